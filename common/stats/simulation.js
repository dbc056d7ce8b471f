// Simulated experiments for the verdict rules: the false-verdict tests (family.spec.js) and the
// power figures of docs/statistics.md (npm run bench:verdicts). Each experiment is a set of
// points measuring three servers (HTTP/1.1, HTTP/2 and HTTP/3 of Caddy's family: three
// comparisons a point), run as the runner runs them (common/stats/until-decided.js inRounds): a round of
// every open point, then the experiment judged (common/stats/family.js), until each point is decided or
// at its cap. Seeded (common/setup/seeds.js mulberry32): the same figures every time.
import { judgeExperiment } from './family.js';
import { mulberry32 } from '../setup/seeds.js';
import { verdicts } from './stats.js';
import { nextRound, stopReason } from './until-decided.js';

/** The servers of a simulated point, baseline first: comparisons h2/h1, h3/h1 and h3/h2. */
export const simulatedServers = Object.freeze(['caddy-h1', 'caddy-h2', 'caddy-h3']);

/**
 * Run times of a shape: `draw(server, shared)` gives one run's total time in ms; `shared` is what
 * the runs of one repeat share under paired losses (the same seed), 1 otherwise.
 * @typedef {object} Shape
 * @property {(random: () => number) => () => number} [shared]  per repeat, paired shapes only
 * @property {(random: () => number) => (server: string, shared: number) => number} draw
 */

/** @param {() => number} random a standard normal draw (Box–Muller) */
const gaussianOf = (random) => () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/**
 * The shapes the simulations cover, all with equal medians for every server (A/A): every
 * "faster" or "slower" is false.
 * @type {Record<string, Shape>}
 */
export const shapes = {
  // A long right tail: lognormal around 1 s, 20 % spread.
  skewed: { draw: (random) => { const g = gaussianOf(random); return () => 1000 * Math.exp(0.2 * g()); } },
  // A run that pays a retransmission timeout: 30 % of runs 300 ms more, on 5 % noise.
  bimodal: { draw: (random) => { const g = gaussianOf(random); return () => 1000 * Math.exp(0.05 * g()) + (random() < 0.3 ? 300 : 0); } },
  // Heavy-tailed: Pareto excess of index 1.2 (no variance), 50 ms scale, on 1 s.
  heavy: { draw: (random) => () => 1000 + 50 * ((1 - random()) ** (-1 / 1.2) - 1) },
  // Tied times: a clock of 20 ms steps over a 5 % spread, most runs sharing a value with another.
  tied: { draw: (random) => { const g = gaussianOf(random); return () => 20 * Math.round((1000 * Math.exp(0.05 * g())) / 20); } },
  // Unequal spreads, equal medians: HTTP/1.1 lognormal with σ 0.3, the others σ 0.01 (grid4's
  // HTTP/1.1 sd was 123 ms against node:http2's 14 ms).
  'unequal, skewed': { draw: (random) => { const g = gaussianOf(random); return (server) => 1000 * Math.exp((server === 'caddy-h1' ? 0.3 : 0.01) * g()); } },
  // The same, symmetric: normal times of sd 30 % against 1 % of 1 s (floored at 50 ms).
  'unequal, symmetric': { draw: (random) => { const g = gaussianOf(random); return (server) => Math.max(50, 1000 * (1 + (server === 'caddy-h1' ? 0.3 : 0.01) * g())); } },
  // Paired: each repeat's runs share its losses (lognormal 50 %), each run its own 10 %.
  'paired, skewed': {
    shared: (random) => { const g = gaussianOf(random); return () => Math.exp(0.5 * g()); },
    draw: (random) => { const g = gaussianOf(random); return (_, shared) => shared * 1000 * Math.exp(0.1 * g()); },
  },
  // Paired: 30 % of repeats pay a retransmission timeout (1.5×), each run 80 % at 1.0 s, 20 % at 1.2 s.
  'paired, bimodal': {
    shared: (random) => () => (random() < 0.3 ? 1.5 : 1),
    draw: (random) => { const g = gaussianOf(random); return (_, shared) => shared * ((random() < 0.8 ? 1000 : 1200) + 20 * g()); },
  },
};

/**
 * @typedef {object} SimulatedExperiment
 * @property {number} points  points in the experiment
 * @property {number} cap  the cap of repeats until decided; a fixed number of repeats with `fixed`
 * @property {boolean} [fixed]  one look at `cap` repeats
 * @property {string[]} [servers]  the servers a point measures (simulatedServers unless given)
 * @property {Record<string, number>} [factor]  a real difference: a server's times multiplied by it
 */

/**
 * One simulated experiment: its points' final results.
 * @param {Shape} shape
 * @param {SimulatedExperiment} plan
 * @param {() => number} random
 * @returns {import('../report/result.js').Result[]}
 */
export function simulateExperiment(shape, { points, cap, fixed = false, servers = [...simulatedServers], factor = {} }, random) {
  const draw = shape.draw(random);
  const shared = shape.shared?.(random);
  const settings = { servers, repeats: 0 };
  /** @type {Array<{ runs: import('../report/result.js').RunRecord[], open: boolean }>} */
  const state = Array.from({ length: points }, () => ({ runs: [], open: true }));
  /** @type {import('../report/result.js').Result[]} */
  let results = [];
  for (;;) {
    for (const s of state.filter((x) => x.open)) {
      const done = s.runs.length / servers.length;
      for (const repeat of fixed ? Array.from({ length: cap }, (_, i) => i + 1) : nextRound(done, cap)) {
        const luck = shared ? shared() : 1;
        for (const server of servers) {
          s.runs.push(/** @type {import('../report/result.js').RunRecord} */ ({ server, repeat, totalMs: (factor[server] ?? 1) * draw(server, luck), valid: true, ...(shared && { lossSeed: repeat }) }));
        }
      }
    }
    const measured = state.map((s) => /** @type {import('../report/result.js').Result} */ ({ settings: { ...settings, repeats: s.runs.length / servers.length }, runs: s.runs, ...(fixed ? {} : { untilDecided: { maxRepeats: cap, rounds: 0, stoppedBy: null, requiredLevel: 0 } }) }));
    results = judgeExperiment(measured);
    state.forEach((s, i) => {
      const repeatsDone = s.runs.length / servers.length;
      if (s.open && (fixed ? repeatsDone >= cap : stopReason({ comparisons: results[i].comparisons, repeatsDone, cap, budgetSpent: false }))) s.open = false;
    });
    if (!state.some((s) => s.open)) return results;
  }
}

/**
 * How often `count` experiments of a plan give a false verdict: the share of comparisons, and of
 * experiments with at least one; and of comparisons found (the verdict `found` on the servers of
 * `factor`, for power), with the mean repeats a point took.
 * @param {Shape} shape
 * @param {SimulatedExperiment} plan
 * @param {number} count
 * @param {number} seed
 * @param {{ server: string, baseline: string, verdict: string }} [target]  the comparison whose verdict counts as found
 */
export function falseVerdicts(shape, plan, count, seed, target) {
  const random = mulberry32(seed);
  let [wrongComparisons, comparisons, wrongExperiments, found, targets, repeats, points] = [0, 0, 0, 0, 0, 0, 0];
  /** @type {string[]} */
  const decided = [verdicts.faster, verdicts.slower];
  for (let e = 0; e < count; e++) {
    const results = simulateExperiment(shape, plan, random);
    let wrong = 0;
    for (const r of results) {
      repeats += r.settings.repeats;
      points += 1;
      for (const c of r.comparisons) {
        comparisons += 1;
        const isTarget = target && c.server === target.server && c.baseline === target.baseline;
        if (isTarget) {
          targets += 1;
          if (c.verdict === target.verdict) found += 1;
        } else if (decided.includes(c.verdict) && !(plan.factor && (plan.factor[c.server] ?? 1) !== (plan.factor[c.baseline] ?? 1))) wrong += 1;
      }
    }
    wrongComparisons += wrong;
    if (wrong) wrongExperiments += 1;
  }
  return { perComparison: wrongComparisons / comparisons, wrongExperiments, experiments: count, wrongComparisons, comparisons, found: targets ? found / targets : null, repeats: repeats / points };
}

/**
 * The most false verdicts among `n` that a true rate of `rate` leaves with a chance above 1 in
 * 1,000: the binomial's 99.9 % quantile. A test that allows this many fails on a procedure whose
 * rate is clearly above `rate` but, seeded, never flakes at it.
 * @param {number} n @param {number} rate
 */
export function binomialBound(n, rate) {
  let term = (1 - rate) ** n;
  let sum = term;
  let k = 0;
  while (sum < 0.999 && k < n) {
    term *= ((n - k) / (k + 1)) * (rate / (1 - rate));
    k += 1;
    sum += term;
  }
  return k;
}
