// `npm run bench:verdicts -- [--experiments N]`: the verdict rules' error rates and power by
// simulation (common/stats/simulation.js), the figures of docs/statistics.md. For every shape of
// times with no real difference, at caps 8 and 12 of repeats until decided: the share of false
// "faster" or "slower" verdicts per comparison (experiments of one point and one comparison) and
// the share of experiments of 4 points × 3 comparisons with any; then how often a true 10 % and
// 20 % difference is found (one point, one comparison), unpaired and paired, with the mean repeats.
// Seeded: the same figures every time. N experiments per cell (default 1,000; 10,000 take about
// an hour on a 2-core machine).
import { runCli } from '../cli/run.js';
import { readNumberArgs } from '../cli/options.js';
import { falseVerdicts, shapes } from '../common/stats/simulation.js';

const usage = `Usage: npm run bench:verdicts -- [--experiments N]
  --experiments N   simulated experiments per cell (default 1000)`;
/** @param {string[]} args */
const parse = (args) => readNumberArgs(args, { experiments: { min: 10, max: 100_000, default: 1000, integer: true } });

/** @param {number} x */
const percent = (x) => `${(x * 100).toFixed(1)} %`;
const pair = ['caddy-h1', 'caddy-h2'];

/** @param {{ experiments: number }} o */
async function run({ experiments: n }) {
  const out = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
  out(`False verdicts with no real difference, repeats until decided (${n} experiments a cell)`);
  out('| times | cap | per comparison | experiments (4 points × 3 comparisons) with any | repeats a point |');
  out('|---|---|---|---|---|');
  for (const [name, shape] of Object.entries(shapes)) {
    for (const cap of [8, 12]) {
      const one = falseVerdicts(shape, { points: 1, cap, servers: pair }, n, 1);
      const whole = falseVerdicts(shape, { points: 4, cap }, n, 2);
      out(`| ${name} | ${cap} | ${percent(one.perComparison)} | ${percent(whole.wrongExperiments / n)} | ${whole.repeats.toFixed(1)} |`);
    }
  }
  out('');
  out(`Power: HTTP/2 really 10 % or 20 % faster, one comparison (${n} experiments a cell)`);
  out('| times | cap | finds 10 % | repeats | finds 20 % | repeats |');
  out('|---|---|---|---|---|---|');
  for (const name of ['skewed', 'bimodal', 'heavy', 'paired, skewed', 'paired, bimodal']) {
    for (const cap of [8, 12]) {
      const cells = [0.9, 0.8].map((factor) => falseVerdicts(shapes[name], { points: 1, cap, servers: pair, factor: { 'caddy-h2': factor } }, n, 3, { server: 'caddy-h2', baseline: 'caddy-h1', verdict: 'faster' }));
      out(`| ${name} | ${cap} | ${cells.map((c) => `${percent(/** @type {number} */ (c.found))} | ${c.repeats.toFixed(1)}`).join(' | ')} |`);
    }
  }
  return 0;
}

process.exitCode = await runCli({ name: 'bench:verdicts', usage, parse, run });
