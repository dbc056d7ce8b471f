// `npm run merge-results -- DIR… --out DIR`: joins the output folders of `npm run experiments --
// --shard K/N` (one per machine) into one, in the form of an unsharded run's: results.json, the
// CSVs, summary.md and report.html with its charts (drawn by the lab's page in headless Chromium,
// as the runner draws them). It refuses, in one line and exit 2, folders that are not shards of
// one experiment: another plan, other settings, servers or browser, a shard given twice.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { summarizeResult } from '../common/stats.js';
import { runCli } from '../cli/run.js';
import { readOutDir } from '../cli/options.js';
import { experimentCharts } from './charts.js';
import { loadLabPage } from './browser.js';
import { runSession } from './session.js';
import { environmentLine, writeOutputs } from './report.js';

const usage = `Usage: npm run merge-results -- DIR… --out DIR
Joins the output folders of npm run experiments -- … --shard K/N into one folder in the form of
an unsharded run's. Every folder must be a shard of the same experiment (same plan, settings,
servers and browser), each shard once.`;

/** @param {string} message */
const refuse = (message) => Object.assign(new Error(message), { exitCode: 2 });

/**
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ help: true } | { help: false, dirs: string[], out: string }}
 */
function parse(argv, env) {
  const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (values.help) return { help: true };
  if (!positionals.length) throw new Error('give the shards\' folders: npm run merge-results -- DIR… --out DIR');
  if (values.out === undefined) throw new Error('--out: must be a directory for the merged results');
  const base = env.INIT_CWD ?? process.cwd();
  return { help: false, dirs: positionals.map((d) => path.resolve(base, d)), out: readOutDir(values.out, env, new Date()) };
}

/**
 * A shard's results.json.
 * @param {string} dir
 * @returns {import('./report.js').RunnerResults & { experiments: Array<import('../common/summary-markdown.js').Experiment & { param?: string }> }}
 */
function readShard(dir) {
  let results;
  try {
    results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
  } catch (err) {
    throw refuse(`${dir}: no results.json to read (${/** @type {Error} */ (err).message})`);
  }
  if (!results?.environment?.shard) throw refuse(`${dir}: not a shard (its results.json has no environment.shard: run npm run experiments with --shard K/N)`);
  return results;
}

/** What must be equal in every shard of one experiment: the plan and each point's settings but its repeats. @param {ReturnType<typeof readShard>} r */
const planOf = (r) => JSON.stringify(r.experiments.map((e) => ({ id: e.id, title: e.title, points: e.points.map((p) => ({ label: p.label, repeats: p.shard?.repeats, settings: { ...p.result.settings, repeats: undefined } })) })));

/**
 * Checks that the shards belong together; answers the repeats no shard ran, per point.
 * @param {Array<{ dir: string, results: ReturnType<typeof readShard> }>} shards
 */
function check(shards) {
  const [first] = shards;
  const { n } = /** @type {{ k: number, n: number }} */ (first.results.environment.shard);
  const seen = new Map();
  for (const { dir, results } of shards) {
    const e = results.environment;
    const shard = /** @type {{ k: number, n: number }} */ (e.shard);
    if (shard.n !== n) throw refuse(`${dir}: shard ${shard.k} of ${shard.n}, not of ${n} like ${first.dir}`);
    if (seen.has(shard.k)) throw refuse(`${dir}: shard ${shard.k} of ${n} again (${seen.get(shard.k)} is the same shard)`);
    seen.set(shard.k, dir);
    if (e.browser !== first.results.environment.browser) throw refuse(`${dir}: ran ${e.browser}, ${first.dir} ran ${first.results.environment.browser}`);
    if (planOf(results) !== planOf(first.results)) throw refuse(`${dir}: another experiment than ${first.dir} (its points, settings or servers differ)`);
  }
  return Array.from({ length: n }, (_, i) => i + 1).filter((k) => !seen.has(k));
}

/**
 * The experiments of all shards as one: each point's runs together, in repeat order, summarized again.
 * @param {Array<{ dir: string, results: ReturnType<typeof readShard> }>} shards
 * @param {string} out  where capture files are named from
 */
function merge(shards, out) {
  const [first] = shards;
  return first.results.experiments.map((e, i) => ({
    ...e,
    points: e.points.map((p, j) => {
      const parts = shards.map(({ dir, results }) => ({ dir, point: results.experiments[i].points[j] }));
      const runs = parts
        .flatMap(({ dir, point }) => point.result.runs.map((r) => (r.capture ? { ...r, capture: rebased(r.capture, dir, out) } : r)))
        .sort((a, b) => a.repeat - b.repeat);
      const settings = { ...p.result.settings, repeats: parts.reduce((sum, { point }) => sum + point.result.settings.repeats, 0) };
      const { shard, ...point } = p;
      return { ...point, result: { ...p.result, settings, runs, ...summarizeResult(runs) } };
    }),
  }));
}

/**
 * A run's capture files, named from the merged folder (they stay in their shard's).
 * @param {import('../common/result.js').CaptureRecord} capture @param {string} dir @param {string} out
 */
function rebased(capture, dir, out) {
  /** @param {string|null} file */
  const from = (file) => (file ? path.relative(out, path.resolve(dir, file)) : file);
  return { ...capture, files: { sent: /** @type {string} */ (from(capture.files.sent)), received: /** @type {string} */ (from(capture.files.received)), keys: from(capture.files.keys) } };
}

/** @param {Exclude<ReturnType<typeof parse>, { help: true }>} o */
async function run(o) {
  const shards = o.dirs.map((dir) => ({ dir, results: readShard(dir) }));
  const missing = check(shards);
  const experiments = merge(shards, o.out);
  const environment = {
    ...shards[0].results.environment,
    shard: null,
    mergedFrom: shards.map(({ dir }) => path.relative(o.out, dir) || '.'),
    wallTimeS: shards.reduce((sum, { results }) => sum + results.environment.wallTimeS, 0),
  };
  // The charts come from the lab's own page, as the runner draws them: a lab and a headless browser for the moment.
  return runSession({ servers: true, ui: null, browserUrl: null, headed: false, front: false, log: () => {} }, async ({ browser, uiOrigin }) => {
    const { page } = await loadLabPage(browser, uiOrigin);
    const charts = await experimentCharts(page, experiments, o.out);
    const files = await writeOutputs(o.out, experiments, environment, charts.map((c) => ({ title: c.title, pngBase64: c.reportPngBase64 })));
    for (const { file, pngBase64 } of charts) {
      await writeFile(file, Buffer.from(pngBase64, 'base64'));
      files.push(file);
    }
    process.stderr.write(`${environmentLine(environment)}\nWrote ${files.join(', ')}\n`);
    if (!missing.length) return 0;
    const n = /** @type {{ n: number }} */ (shards[0].results.environment.shard).n;
    process.stderr.write(`h2lab merge-results: shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${n} missing: their repeats are not in the merged results\n`);
    return 1;
  });
}

process.exitCode = await runCli({ name: 'merge-results', usage, parse, run });
