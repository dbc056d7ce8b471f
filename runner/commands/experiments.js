// `npm run experiments -- [options]`: whole experiments from one command. Starts the servers (unless
// --no-servers), drives the built page in headless Chromium (or Firefox, or each in turn:
// --browser, runner/browsers/browsers.js) through window.h2lab.run, applies each preset through the
// DevTools Protocol (and clears it) or lets the page set the lab link (--network link), or sets
// the packet network's conditions (--network packet: the command runs again inside it,
// server/packet/), cross-checks every request with DevTools (Chromium's), and writes tables,
// CSV/JSON and chart images. Exit 0: every run valid; 1: some runs failed or were invalid; 2: usage.
import { UsageError } from '../../common/setup/errors.js';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { presetById } from '../../common/setup/presets.js';
import { frontsOf, measuredServers, unavailableReason } from '../../common/setup/servers.js';
import { summarizeResult } from '../../common/stats/stats.js';
import { inRounds } from '../../common/stats/until-decided.js';
import { judgeExperiment, judgeExperiments, plannedComparisons } from '../../common/stats/family.js';
import { runCli } from '../../cli/run.js';
import { parseRunnerArgs, runnerUsage } from '../args.js';
import { loadLabPage } from '../browsers/chromium.js';
import { runSession } from '../browsers/session.js';
import { crossCheck, recordResponses } from '../output/cross-check.js';
import { mismatchText } from '../../common/report/network-check.js';
import { withPreset } from '../../common/setup/devtools-network.js';
import { planExperiments, planRecord } from '../plan.js';
import { whileNetworkLasts } from '../network-watch.js';
import { networkOf } from '../../common/setup/networks.js';
import { environmentLine, writeOutputs } from '../output/report.js';
import { experimentCharts } from '../output/charts.js';
import { addNetLogToRuns } from '../output/netlog.js';
import { captureFilesFrom, evidencePaths } from '../output/evidence.js';
import { summaryMarkdown } from '../../common/report/summary-markdown.js';
import { invalidText, invalidate } from '../../common/stats/validity.js';

/** @typedef {import('../args.js').RunnerOptions} RunnerOptions */
/** @typedef {import('../output/report.js').RunnerEnvironment} RunnerEnvironment */
/** @typedef {import('../plan.js').PlannedExperiment} PlannedExperiment */
/** @typedef {Omit<PlannedExperiment, 'points'> & { points: Array<import('../plan.js').PlannedPoint & { result: import('../../common/report/result.js').Result }> }} MeasuredExperiment  its points that were measured */
/** @typedef {(line: string) => void} Log */

/**
 * The servers the runs use: those asked for, which must all be usable (a usage error names the
 * one that is not and why), or by default every usable one, saying in one line what is left out.
 * Asked twice: of the lab before the browser starts, and of the page's preflight in that browser.
 * @param {RunnerOptions} o
 * @param {(id: string) => string|null} why why a server cannot run here, or null
 * @param {Log} log
 * @returns {RunnerOptions}
 */
function withUsableServers(o, why, log) {
  const missing = o.settings.servers.filter(why);
  if (!missing.length) return o;
  if (o.settings.control && missing.includes(o.settings.control)) {
    throw new UsageError(`--control: ${o.settings.control} cannot run here: ${why(o.settings.control)}`);
  }
  if (o.serversGiven || missing.length === o.settings.servers.length) {
    throw new UsageError(`--servers: ${missing.join(', ')} cannot run here: ${why(missing[0])}`);
  }
  log(`Left out ${missing.join(', ')}: ${why(missing[0])}`);
  return { ...o, settings: { ...o.settings, servers: o.settings.servers.filter((id) => !missing.includes(id)) } };
}

/** @param {RunnerOptions} o */
async function run(o) {
  /** @param {string} line */
  const log = (line) => o.quiet || process.stderr.write(`${line}\n`);
  const fronts = o.sweep?.param === 'servers' ? frontsOf() : frontsOf(o.settings.servers);
  const session = { packet: o.networks.some((n) => networkOf(n).ownLab), servers: o.servers, ui: o.ui, browserUrl: o.browserUrl, headed: o.headed, fronts, log, browsers: o.browsers, evidence: evidencePaths(o) };
  let usable = o;
  /** @param {import('../browsers/session.js').LabDescription} described */
  const check = (described) => (usable = withUsableServers(o, (id) => unavailableReason(described, id), log));
  return runSession(session, (s) => measure(usable, s, log), { check });
}

/**
 * The session's work: every point measured, then the outputs written. Resolves the exit code.
 * @param {RunnerOptions} o
 * @param {import('../browsers/session.js').Session} session
 * @param {Log} log
 * @returns {Promise<number>}
 */
async function measure(o, session, log) {
  const { lab, uiOrigin, certificate } = session;
  const started = Date.now();
  let { page, unusable } = await loadLabPage(session.browser, uiOrigin, { networks: o.networks });
  o = withUsableServers(o, unusable, log);
  const limits = await page.evaluate(() => window.h2lab.lab.limits);
  const experiments = planExperiments(o);
  const runOptions = { ...(await uploadTraces(uiOrigin, o.traces)), burst: o.burst, capture: o.capture };
  /** @type {Array<{ name: string, browser: string, userAgent: string }>} */
  const browsers = [];
  let runsDone = 0;
  let totalRuns = 0;
  /** @type {string[]} */
  const invalid = [];
  /** @type {Error|null} */
  let stoppedBy = null;
  /** @type {Array<{ e: PlannedExperiment, point: import('../plan.js').PlannedPoint }>} */
  const unbegun = [];
  // Each browser in turn measures its experiments (all of them, with one browser).
  for (const [k, name] of o.browsers.entries()) {
    if (k) {
      ({ page, unusable } = await loadLabPage(await session.switchBrowser(name), uiOrigin, { networks: o.networks }));
      const blocked = o.settings.servers.find(unusable);
      if (blocked) throw new UsageError(`--browser: ${blocked} cannot run in ${name}: ${unusable(blocked)}`);
    }
    // Read before the runs: a browser that goes away mid-run must not take the environment with it.
    const seen = { name, ...(await session.browser.version(page)) };
    browsers.push(seen);
    const mine = experiments.filter((e) => (e.browser ?? o.browsers[0]) === name);
    const done = await measurePoints(mine, { page, browser: seen, labNetworks: lab?.networks ?? {}, runOptions, out: o.out, quiet: o.quiet, untilDecided: o.untilDecided });
    runsDone += done.runsDone;
    totalRuns += done.totalRuns;
    invalid.push(...done.invalid);
    unbegun.push(...done.unbegun);
    stoppedBy = done.stoppedBy;
    if (stoppedBy) break;
  }
  // Each experiment's verdicts judged across all its comparisons (common/stats/family.js).
  const finished = judgeExperiments(/** @type {MeasuredExperiment[]} */ (experiments.map((e) => ({ ...e, points: e.points.filter((p) => p.result) })).filter((e) => e.points.length)));
  const environment = runnerEnvironment(o, { browsers, certificate, limits, started, experiments, finished });
  const charts = stoppedBy ? [] : await experimentCharts(page, finished, o.out);
  if (o.netlog) {
    // Chromium writes the NetLog's last events as it exits, Firefox keeps its qlog as it closes:
    // closed now that the charts are drawn.
    await session.browser.close();
    const chromiumRuns = finished.filter((e) => (e.browser ?? o.browsers[0]) === 'chromium').flatMap((e) => e.points.flatMap((p) => p.result.runs));
    if (environment.netLog) environment.netLogError = addNetLogToRuns(chromiumRuns, path.join(o.out, 'netlog.json'));
    if (environment.netLogError) log(`NetLog: ${environment.netLogError}`);
  }
  // Every output written once, with the whole run's wall time in it.
  environment.wallTimeS = (Date.now() - started) / 1000;
  const files = await writeOutputs(o.out, finished, environment, charts.map((c) => ({ title: c.title, pngBase64: c.reportPngBase64 })));
  for (const { file, pngBase64 } of charts) {
    await writeFile(file, Buffer.from(pngBase64, 'base64'));
    files.push(file);
  }
  if (o.json) process.stdout.write(`${JSON.stringify({ environment, experiments: finished })}\n`);
  else process.stdout.write(summaryMarkdown(finished, environmentLine(environment)));
  log(`\n${environmentLine(environment)} · wall time ${environment.wallTimeS.toFixed(0)} s`);
  log(`Wrote ${files.join(', ')}`);
  return exitCode({ runsDone, totalRuns, invalid, stoppedBy, unbegun }, o.quiet, log);
}

/**
 * What the runs ran on and under: the browsers, this machine, the lab's limits and what the
 * command asked for; wallTimeS is set once every output is about to be written.
 * @param {RunnerOptions} o
 * @param {{ browsers: Array<{ name: string, browser: string, userAgent: string }>, certificate: RunnerEnvironment['certificate'],
 *   limits: RunnerEnvironment['limits'], started: number, experiments: PlannedExperiment[], finished: MeasuredExperiment[] }} seen
 *   started: the command's start (Date.now()); experiments: as planned; finished: their points that were measured
 * @returns {RunnerEnvironment}
 */
function runnerEnvironment(o, { browsers, certificate, limits, started, experiments, finished }) {
  return {
    browser: browsers.map((b) => b.browser).join(' and '),
    userAgent: browsers.map((b) => b.userAgent).join(' and '),
    browsers,
    // A browser driven through --browser-url runs elsewhere: its user agent names its device;
    // os and cpus below are the runner's and the servers' machine.
    browserUrl: o.browserUrl,
    certificate,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    node: process.version,
    servers: /** @type {Array<{ label: string }>} */ (finished[0]?.points[0]?.result.environment.servers ?? []),
    limits,
    date: new Date(started).toISOString(),
    wallTimeS: 0,
    shard: o.shard,
    plan: planRecord(experiments),
    lossSeed: o.settings.lossSeed ?? null,
    untilDecided: o.untilDecided,
    // The session's evidence, relative to the output folder; each run's capture is on the run.
    netLog: o.netlog && o.browsers.includes('chromium') ? 'netlog.json' : null,
    qlog: o.netlog && o.browsers.includes('firefox') ? 'qlog/' : null,
  };
}

/**
 * The command's exit code once its outputs are written: 1 after a stop, a budget spent before
 * some points began, or invalid runs, each said on stderr.
 * @param {{ runsDone: number, totalRuns: number, invalid: string[], stoppedBy: Error|null, unbegun: PointOf[] }} measured  over every browser
 * @param {boolean} quiet
 * @param {Log} log
 */
function exitCode({ runsDone, totalRuns, invalid, stoppedBy, unbegun }, quiet, log) {
  if (stoppedBy) {
    // One line even when the runner is quiet: the exit code alone would not say why.
    process.stderr.write(`h2lab experiments: stopped after ${runsDone} of ${totalRuns} runs (${String(stoppedBy.message).split('\n')[0]}); the finished points are written, without charts\n`);
    return 1;
  }
  if (unbegun.length) {
    // One line even when the runner is quiet: these points are in no output.
    process.stderr.write(`h2lab experiments: the budget (--budget) was spent before ${unbegun.length} point${unbegun.length > 1 ? 's' : ''} began (${unbegun.map(({ e, point }) => `${e.title} · ${point.label}`).join('; ')}); the others are written\n`);
    return 1;
  }
  if (invalid.length) {
    // One line even when the runner is quiet, as for a stop; the whole list otherwise.
    if (quiet) process.stderr.write(`h2lab experiments: ${invalid.length} invalid runs, the first: ${invalid[0]}\n`);
    else log(`${invalid.length} invalid runs:\n  ${invalid.join('\n  ')}`);
    return 1;
  }
  return 0;
}

/** @param {boolean} quiet @param {number} total */
function progressBar(quiet, total) {
  if (quiet) return null;
  const bar = new cliProgress.SingleBar(
    {
      format: '{bar} {percentage}% · {value}/{total} runs · ETA {eta_formatted} · {point}',
      stream: process.stderr,
      hideCursor: true,
      // Also when stderr is a file or a CI log: a line every 10 s instead of a live bar.
      noTTYOutput: true,
      notTTYSchedule: 10_000,
      // Before the first run ends the ETA is unknown (cli-progress's 'INF' would print as "NFs").
      formatTime: (/** @type {number|string} */ t, /** @type {object} */ options, /** @type {number} */ roundTo) => (typeof t === 'number' && Number.isFinite(t) ? cliProgress.Format.TimeFormat(t, options, roundTo) : '…'),
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { point: '' });
  return bar;
}

/** @typedef {{ e: PlannedExperiment, point: import('../plan.js').PlannedPoint }} PointOf  a point and its experiment */
/** @typedef {(p: PointOf, repeatNumbers: number[] | null) => Promise<import('../../common/report/result.js').Result>} MeasurePart */

/**
 * Measures every point, leaving its result on it: in turn, or with --repeats auto in rounds until
 * decided. A browser or lab that goes away stops the loop: what finished is kept, and `stoppedBy`
 * says why; with a budget spent, `unbegun` names the points that never began.
 * @param {PlannedExperiment[]} experiments
 * @param {Omit<PointContext, 'cdp'> & { quiet: boolean, browser: { name: string, browser: string }, untilDecided: import('../../cli/until-decided.js').UntilDecided | null }} o
 */
async function measurePoints(experiments, { page, browser, labNetworks, runOptions, out, quiet, untilDecided }) {
  // DevTools, where the browser has it: for its throttling, and to cross-check every request.
  const cdp = page.devtools ? await page.devtools() : null;
  const responses = cdp ? recordResponses(cdp) : null;
  // The cross-check needs Network's events under every network, not only where DevTools
  // throttles (a --network link run saw none, and every run failed its cross-check).
  await cdp?.send('Network.enable');
  const points = experiments.flatMap((e) => e.points.map((point) => ({ e, point })));
  // Until decided, each point's settings.repeats is its cap: the total shrinks as points stop early.
  let totalRuns = points.reduce((n, { point }) => n + point.settings.repeats * measuredServers(point.settings).length, 0);
  const bar = progressBar(quiet, totalRuns);
  let runsDone = 0;
  /** @type {string[]} */
  const invalid = [];
  /** @type {Error|null} */
  let stoppedBy = null;
  /** @type {PointOf[]} */
  let unbegun = [];
  /**
   * One part of a point (its repeats `repeatNumbers`, all of them when null), measured and cross-checked.
   * @type {MeasurePart}
   */
  const measurePart = async ({ e, point }, repeatNumbers) => {
    bar?.update(runsDone, { point: `${e.title} · ${point.label}` });
    responses?.clear();
    const settings = repeatNumbers ? { ...point.settings, repeats: repeatNumbers.length } : point.settings;
    const result = await measurePoint(settings, { page, cdp, labNetworks, runOptions: { ...runOptions, repeatNumbers }, out });
    Object.assign(result.environment, { browser: browser.browser, browserName: browser.name, crossCheckSkipped: responses ? null : noCrossCheck });
    if (responses) crossCheck(result, responses);
    runsDone += result.runs.length;
    bar?.update(runsDone);
    for (const r of result.runs.filter((x) => !x.valid)) invalid.push(`${e.title} · ${point.label} · ${r.server} repeat ${r.repeat}: ${invalidText(r)}`);
    return result;
  };
  // The page keeps a point it could not finish (the lab went away after some runs): it is
  // written with what it has, and the session ends there.
  /** @param {PointOf} p */
  const stoppedEarly = ({ e, point }) => new Error(`${e.title} · ${point.label} stopped early: ${point.result?.stopReason}`);
  try {
    if (untilDecided) {
      const rounds = await measureInRounds(points, untilDecided, measurePart, (fewer) => bar?.setTotal((totalRuns -= fewer)));
      if (rounds.stopped) throw stoppedEarly(rounds.stopped);
      unbegun = rounds.unbegun;
    } else {
      for (const p of points) {
        p.point.result = await measurePart(p, p.point.shard?.repeatNumbers ?? null);
        if (p.point.result.stopped) throw stoppedEarly(p);
      }
    }
  } catch (err) {
    stoppedBy = /** @type {Error} */ (err);
  }
  bar?.stop();
  return { runsDone, totalRuns, invalid, stoppedBy, unbegun };
}

/**
 * --repeats auto: the points in rounds until decided (common/stats/until-decided.js inRounds), round by
 * round across them, not point by point, so a budget spent leaves every point with its first
 * rounds rather than the last points with none. Each look judges a point with the other points of
 * its experiment measured so far (Holm's step-down over the comparisons the experiment plans,
 * common/stats/family.js).
 * @param {PointOf[]} points
 * @param {import('../../cli/until-decided.js').UntilDecided} untilDecided
 * @param {MeasurePart} measurePart
 * @param {(runs: number) => void} onFewer  a point stopped this many runs short of its cap
 */
function measureInRounds(points, { maxRepeats: cap, budgetS, aimPercent }, measurePart, onFewer) {
  return inRounds(points, {
    cap,
    order: 'round-robin',
    aimPercent,
    // performance.now() counts from the process's start: the budget is the whole command's.
    budgetSpent: () => budgetS !== null && performance.now() / 1000 >= budgetS,
    measure: measurePart,
    judge: (p, result) => {
      const mates = points.filter((q) => q.e === p.e);
      const planned = mates.reduce((n, q) => n + plannedComparisons(q.point.settings), 0);
      const others = mates.flatMap((q) => (q !== p && q.point.result ? [q.point.result] : []));
      return /** @type {import('../../common/report/result.js').Result} the last of those given */ (judgeExperiment([...others, result], planned).at(-1));
    },
    onLook: (p, result) => (p.point.result = result),
    onStop: (p, _, repeatsDone) => onFewer((cap - repeatsDone) * measuredServers(p.point.settings).length),
  });
}

// Why a Firefox run has no DevTools cross-check: its protocol is Resource Timing's alone.
const noCrossCheck = "Firefox has no DevTools Protocol: each request's protocol is Resource Timing's nextHopProtocol alone, without DevTools' cross-check";

/**
 * --trace-down and --trace-up: files go to the lab (POST /api/traces) under their names; a name
 * alone is the lab's to know. Resolves the names the page's runs give.
 * @param {string} uiOrigin
 * @param {ReturnType<typeof import('../args.js').parseRunnerArgs> extends infer R ? R extends { traces: infer T } ? T : never : never} traces
 */
async function uploadTraces(uiOrigin, traces = {}) {
  /** @type {{ traceDown: string|null, traceUp: string|null }} */
  const names = { traceDown: null, traceUp: null };
  for (const [key, trace] of /** @type {[keyof typeof names, { name: string, text?: string }][]} */ (Object.entries(traces))) {
    if (trace.text !== undefined) {
      const res = await fetch(`${uiOrigin}/api/traces?name=${encodeURIComponent(trace.name)}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: trace.text });
      if (!res.ok) throw new Error(`the lab refused the trace ${trace.name}: ${(await res.json()).error}`);
    }
    names[key] = trace.name;
  }
  return names;
}

/**
 * What a point is measured with: the lab's page, its DevTools session, the lab's networks and the traces to follow.
 * @typedef {object} PointContext
 * @property {import('../browsers/browsers.js').LabPage} page
 * @property {import('playwright-core').CDPSession|null} cdp  the page's DevTools session (Chromium), else null
 * @property {Record<string, Parameters<typeof whileNetworkLasts>[0]>} labNetworks  lab.networks ({} for a lab of --ui)
 * @property {Awaited<ReturnType<typeof uploadTraces>> & { burst: { p: number, r: number } | null, capture: { whole: boolean } | null, repeatNumbers?: number[] | null }} runOptions
 *   window.h2lab.run's second argument: the traces to follow, whether to capture each run, and a shard's repeats
 * @property {string} out  the output folder, which capture files are named from
 */

/**
 * One point under its network: the page's result, its runs judged and summarized.
 * @param {import('../../common/report/result.js').Settings} settings
 * @param {PointContext} o
 * @returns {Promise<import('../../common/report/result.js').Result>}
 */
async function measurePoint(settings, { page, cdp, labNetworks, runOptions, out }) {
  const preset = /** @type {import('../../common/setup/presets.js').Preset} */ (presetById(settings.preset)); // args.js checked it
  const measureIt = () => page.evaluate(([s, t]) => window.h2lab.run(s, t), /** @type {const} */ ([settings, runOptions]));
  // A network the lab sets, the page sets itself; DevTools' emulation is ours to apply.
  const network = networkOf(settings.network);
  if (!network.labSets && !cdp) throw new Error(`${network.title} throttling needs DevTools`); // args.js refuses it first
  const result = network.labSets ? await whileNetworkLasts(labNetworks[network.id], measureIt) : await withPreset(/** @type {import('playwright-core').CDPSession} */ (cdp), preset, measureIt);
  if (!network.labSets) result.environment.presetAppliedBy = 'runner';
  captureFilesFrom(result.runs, out);
  // A point whose network did not measure as its preset is not that preset's number.
  const mismatches = result.environment.networkMismatches ?? [];
  if (mismatches.length) for (const r of result.runs) invalidate(r, 'network-mismatch', mismatchText(preset, mismatches));
  return Object.assign(result, summarizeResult(result.runs));
}


process.exitCode = await runCli({ name: 'experiments', usage: runnerUsage, parse: parseRunnerArgs, run });
