// `npm run merge-results -- DIR… --out DIR`: joins the output folders of `npm run experiments --
// --shard K/N` (one per machine) into one, in the form of an unsharded run's: results.json, the
// CSVs, summary.md and report.html with its charts (drawn by the lab's page in headless Chromium,
// as the runner draws them). It refuses, in one line and exit 2, folders that are not shards of
// one experiment: another plan, other settings, servers or browser, a shard given twice; and
// input that is more than npm run experiments makes (below), before the lab or a browser starts.
import { UsageError } from '../../common/setup/errors.js';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mergeParts } from '../../common/stats/merge-parts.js';
import { judgeExperiments } from '../../common/stats/family.js';
import { fields, limits } from '../../common/setup/settings.js';
import { untilDecided } from '../../common/setup/settings.js';
import { serverIds } from '../../common/setup/servers.js';
import { presets } from '../../common/setup/presets.js';
import { classicSweeps } from '../../common/setup/sweep.js';
import { networkIds } from '../../common/setup/networks.js';
import { browserNames } from '../../common/setup/browser-names.js';
import { MiB } from '../../common/setup/units.js';
import { runCli } from '../../cli/run.js';
import { readOutDir } from '../../cli/options.js';
import { isSafeName, safeNameRule } from '../../server/private-files.js';
import { environmentLine, writeOutputs } from '../output/report.js';
import { reportData } from '../../common/report/report-html.js';

const usage = `Usage: npm run merge-results -- DIR… --out DIR
Joins the output folders of npm run experiments -- … --shard K/N into one folder in the form of
an unsharded run's. Every folder must be a shard of the same experiment (same plan, settings,
servers and browser), each shard once. One whole run's folder given alone is summarized again
under the current rules (its results.json, or the data inside its report.html).`;

/** @param {string} message */
const refuse = (message) => new UsageError(message);

// Its input is a file anyone may have crafted: what it reads is bounded before any of it is
// summarized (a summary costs the square of a server's runs in a point: common/stats/stats.js
// ratioInterval), and no more than a plan of npm run experiments makes is taken.
//
// The most it reads, all files together: 256 MiB. A run keeps about 190 bytes a request: the
// largest published results.json is 0.5 MB (docs/results/until-decided/grid4, 80 runs of 30
// requests), the classic suite (--suite classic: 6 servers, 10 repeats, up to 3,750 requests a
// run) about 120 MB, twice that in two browsers. V8 holds no string over 512 MiB, so a file
// twice the bound could not be parsed anyway; one at the bound takes seconds to parse.
const maxInputBytes = 256 * MiB;
// A point's repeats (common/setup/settings.js repeats, and until decided at most maxRepeats), each once
// a server; its servers are the registry's, with an A/A control.
const maxRepeats = Math.max(fields.repeats.max, untilDecided.maxRepeats.max);
const maxRunsAPoint = maxRepeats * (serverIds.length + 1);
// A plan's experiments (runner/plan.js): one a classic grid or a preset, on each network, in each browser.
const maxExperiments = Math.max(classicSweeps.length, presets.length) * networkIds.length * browserNames.length;

/** Echoes input in a message, bounded. @param {unknown} value */
const shown = (value) => JSON.stringify(typeof value === 'string' && value.length > 40 ? `${value.slice(0, 40)}…` : value) ?? String(value);

/**
 * A file's text, refused by its size before it is read where it exceeds what is left of the budget.
 * @param {string} file @param {{ left: number }} budget  bytes merge-results may still read (maxInputBytes in all)
 */
function readBounded(file, budget) {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > budget.left) throw refuse(`${file} is ${(size / MiB).toFixed(1)} MiB, over the ${maxInputBytes / MiB} MiB merge-results reads${budget.left < maxInputBytes ? ' of all the folders together' : ''}`);
    budget.left -= size;
    // Only the bytes the size said: a file still growing is cut there, not read on.
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break; // the file shrank
      read += n;
    }
    return bytes.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses results that are not what npm run experiments writes, or more than its plans make: ids
 * that are no file names (they name the charts), more experiments or points than a plan has.
 * @param {string} dir @param {any} results  any: a file's JSON, checked here
 */
function checkShape(dir, results) {
  if (!Array.isArray(results?.experiments) || !results.environment) throw refuse(`${dir}: not the output of npm run experiments (no experiments and environment in its results)`);
  const { experiments } = results;
  if (experiments.length > maxExperiments) throw refuse(`${dir}: ${experiments.length} experiments, and a plan makes at most ${maxExperiments} (one a classic grid or a preset, on each network, in each browser)`);
  for (const e of experiments) {
    if (!isSafeName(e?.id)) throw refuse(`${dir}: experiment id ${shown(e?.id)} is not a file name (${safeNameRule}); it names the experiment's charts`);
    const points = e.points;
    if (!Array.isArray(points) || !points.every((p) => Array.isArray(p?.result?.runs) && p.result.runs.every((/** @type {unknown} */ r) => r && typeof r === 'object'))) {
      throw refuse(`${dir}: experiment ${e.id} is not one of npm run experiments (a point without its runs)`);
    }
    if (points.length > limits.sweep.maxPoints) throw refuse(`${dir}: experiment ${e.id} has ${points.length} points, and a sweep has at most ${limits.sweep.maxPoints}`);
  }
}

/**
 * Refuses a point with more runs than its settings allow, before it is summarized.
 * @param {string} point  named in the message
 * @param {import('../../common/report/result.js').RunRecord[]} runs  of all its parts
 */
function checkRuns(point, runs) {
  /** @type {Map<unknown, number>} */
  const perServer = new Map();
  for (const r of runs) perServer.set(r.server, (perServer.get(r.server) ?? 0) + 1);
  for (const [server, n] of perServer) {
    if (n > maxRepeats) throw refuse(`${point}: ${n} runs of ${shown(server)} in one point, and a point has at most ${maxRepeats} repeats, one run each a server`);
  }
  if (runs.length > maxRunsAPoint) throw refuse(`${point}: ${runs.length} runs in one point, and a point has at most ${maxRunsAPoint} (${maxRepeats} repeats of ${serverIds.length} servers and a control)`);
}

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
 * A shard's results: its results.json, or where a published folder kept only its report, the data
 * inside report.html (its runs without their per-request records, which summaries do not need).
 * A folder given alone may be a whole run, summarized again under the current rules.
 * @param {string} dir
 * @param {boolean} alone  the only folder given
 * @param {{ left: number }} budget  bytes it may still read (readBounded)
 * @returns {import('../output/report.js').RunnerResults & { experiments: Array<import('../../common/report/summary-markdown.js').Experiment & { param?: string }> }}
 */
function readShard(dir, alone, budget) {
  const fromReport = !existsSync(path.join(dir, 'results.json')) && existsSync(path.join(dir, 'report.html'));
  let results;
  try {
    const text = readBounded(path.join(dir, fromReport ? 'report.html' : 'results.json'), budget);
    results = fromReport ? reportData(text) : JSON.parse(text);
  } catch (err) {
    if (err instanceof UsageError) throw err; // refused by its size
    throw refuse(`${dir}: no results.json or report.html to read (${/** @type {Error} */ (err).message})`);
  }
  checkShape(dir, results);
  if (!results.environment.shard && !alone) throw refuse(`${dir}: not a shard (its results have no environment.shard: run npm run experiments with --shard K/N); a whole run's folder is summarized again only alone`);
  return results;
}

/** @typedef {ReturnType<typeof readShard>} ShardResults */
/** @typedef {ShardResults['experiments'][number]} ShardExperiment */
/** @typedef {ShardExperiment['points'][number]} ShardPoint */

/**
 * A point's place in the plan and what must be equal in every shard that ran it: its settings but
 * its repeats, and the repeats of the whole.
 * @param {ShardExperiment} e @param {ShardPoint} p
 */
const pointKey = (e, p) => planKey(e, p.label);
/** @param {{ id: string, title: string }} e @param {string} label */
const planKey = (e, label) => JSON.stringify([e.id, e.title, label]);
/** @param {ShardPoint} p */
const pointPlan = (p) => JSON.stringify({ repeats: p.shard?.repeats, settings: { ...p.result.settings, repeats: undefined } });

/**
 * Checks that the shards belong together. A shard that stopped kept the points it finished, the
 * first ones of its plan: every shard's points must be among those of the shard with the most,
 * with the same settings.
 * @param {Array<{ dir: string, results: ShardResults }>} shards
 */
function check(shards) {
  const [first] = shards;
  if (!first.results.environment.shard) return; // a whole run, given alone (readShard)
  const { n } = /** @type {{ k: number, n: number }} */ (first.results.environment.shard);
  const seen = new Map();
  const fullest = shards.reduce((a, b) => (b.results.experiments.flatMap((e) => e.points).length > a.results.experiments.flatMap((e) => e.points).length ? b : a));
  const plan = new Map(fullest.results.experiments.flatMap((e) => e.points.map((p) => [pointKey(e, p), pointPlan(p)])));
  for (const { dir, results } of shards) {
    const e = results.environment;
    const shard = /** @type {{ k: number, n: number }} */ (e.shard);
    if (shard.n !== n) throw refuse(`${dir}: shard ${shard.k} of ${shard.n}, not of ${n} like ${first.dir}`);
    if (seen.has(shard.k)) throw refuse(`${dir}: shard ${shard.k} of ${n} again (${seen.get(shard.k)} is the same shard)`);
    seen.set(shard.k, dir);
    if (e.browser !== first.results.environment.browser) throw refuse(`${dir}: ran ${e.browser}, ${first.dir} ran ${first.results.environment.browser}`);
    if (JSON.stringify(e.plan) !== JSON.stringify(first.results.environment.plan)) throw refuse(`${dir}: another plan than ${first.dir}'s (its experiments or points differ)`);
    const foreign = results.experiments.some((x) => x.points.some((p) => plan.get(pointKey(x, p)) !== pointPlan(p)));
    if (foreign) throw refuse(`${dir}: another experiment than ${fullest.dir} (its points, settings or servers differ)`);
  }
}

/**
 * The experiments of all shards as one, in the plan's order: each point's runs together, in
 * repeat order, summarized again; and per point the repeats no shard brought (a shard missing, or
 * one that stopped before the point), and the points of the plan (environment.plan, runner/plan.js)
 * that no shard reached.
 * @param {Array<{ dir: string, results: ShardResults }>} shards
 * @param {string} out  where capture files are named from
 */
function merge(shards, out) {
  /** @type {Map<string, { e: ShardExperiment, p: ShardPoint, parts: import('../../common/report/result.js').Result[] }>} */
  const points = new Map();
  for (const { dir, results } of shards) {
    for (const e of results.experiments) {
      for (const p of e.points) {
        const key = pointKey(e, p);
        if (!points.has(key)) points.set(key, { e, p, parts: [] });
        points.get(key)?.parts.push({ ...p.result, runs: p.result.runs.map((r) => (r.capture ? { ...r, capture: rebased(r.capture, dir, out) } : r)) });
      }
    }
  }
  /** @type {Map<string, ShardExperiment>} */
  const experiments = new Map();
  /** @type {string[]} */
  const missing = [];
  for (const { e, p, parts } of points.values()) {
    checkRuns(`${e.id} · ${p.label}`, parts.flatMap((part) => part.runs));
    const { shard, ...point } = p;
    // A run until decided keeps the level its last look needed.
    const result = mergeParts(parts, p.result.untilDecided?.requiredLevel);
    const ran = new Set(result.runs.map((r) => r.repeat));
    const absent = shard ? Array.from({ length: shard.repeats }, (_, i) => i + 1).filter((r) => !ran.has(r)) : [];
    if (absent.length) missing.push(`${e.title} · ${p.label}: repeat${absent.length > 1 ? 's' : ''} ${absent.join(', ')}`);
    if (!experiments.has(e.id)) experiments.set(e.id, { ...e, points: [] });
    experiments.get(e.id)?.points.push({ ...point, result });
  }
  const { plan, shard } = shards[0].results.environment;
  // A whole run summarized again said itself which points it did not begin.
  if (shard) for (const e of plan ?? []) for (const label of e.points) if (!points.has(planKey(e, label))) missing.push(`${e.title} · ${label}: no shard reached it`);
  // Each experiment's verdicts judged across all its comparisons under the current rule (common/stats/family.js).
  return { experiments: judgeExperiments([...experiments.values()]), missing };
}

/**
 * A run's capture files, named from the merged folder (they stay in their shard's).
 * @param {import('../../common/report/result.js').CaptureRecord} capture @param {string} dir @param {string} out
 */
function rebased(capture, dir, out) {
  /** @param {string|null} file */
  const from = (file) => (file ? path.relative(out, path.resolve(dir, file)) : file);
  return { ...capture, files: { sent: /** @type {string} */ (from(capture.files.sent)), received: /** @type {string} */ (from(capture.files.received)), keys: from(capture.files.keys) } };
}

/** @param {Exclude<ReturnType<typeof parse>, { help: true }>} o */
async function run(o) {
  const budget = { left: maxInputBytes };
  const shards = o.dirs.map((dir) => ({ dir, results: readShard(dir, o.dirs.length === 1, budget) }));
  check(shards);
  const { experiments, missing } = merge(shards, o.out);
  const whole = !shards[0].results.environment.shard;
  const environment = {
    ...shards[0].results.environment,
    shard: null,
    ...(whole ? { summarizedAgainAt: new Date().toISOString() } : { mergedFrom: shards.map(({ dir }) => path.relative(o.out, dir) || '.') }),
    wallTimeS: shards.reduce((sum, { results }) => sum + results.environment.wallTimeS, 0),
  };
  // The charts come from the lab's own page, as the runner draws them: a lab and a headless browser
  // for the moment. Their modules load only now, for input that passed: a refusal takes a moment.
  const [{ experimentCharts }, { loadLabPage }, { runSession }] = await Promise.all([import('../output/charts.js'), import('../browsers/chromium.js'), import('../browsers/session.js')]);
  return runSession({ servers: true, ui: null, browserUrl: null, headed: false, log: () => {} }, async ({ browser, uiOrigin }) => {
    const { page } = await loadLabPage(browser, uiOrigin);
    const charts = await experimentCharts(page, experiments, o.out);
    const files = await writeOutputs(o.out, experiments, environment, charts.map((c) => ({ title: c.title, pngBase64: c.reportPngBase64 })));
    for (const { file, pngBase64 } of charts) {
      await writeFile(file, Buffer.from(pngBase64, 'base64'));
      files.push(file);
    }
    process.stderr.write(`${environmentLine(environment)}\nWrote ${files.join(', ')}\n`);
    if (!missing.length) return 0;
    const { n } = /** @type {{ n: number }} */ (shards[0].results.environment.shard);
    const shardsMissing = Array.from({ length: n }, (_, i) => i + 1).filter((k) => !shards.some(({ results }) => results.environment.shard?.k === k));
    const which = shardsMissing.length ? `shard${shardsMissing.length > 1 ? 's' : ''} ${shardsMissing.join(', ')} of ${n} missing; ` : '';
    process.stderr.write(`h2lab merge-results: ${which}not in the merged results: ${missing.join('; ')}\n`);
    return 1;
  });
}

process.exitCode = await runCli({ name: 'merge-results', usage, parse, run });
