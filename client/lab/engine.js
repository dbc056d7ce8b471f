// The run engine: N parallel fetches per server, timed per request from Resource Timing and as
// a whole from first dispatch to last body end, repeated in alternating server order. It
// produces the plain result object (result.js); it draws and exports nothing.
import { getStats, losesPackets, onNetwork, resetConnections, seedLoss, settleAfterReset, startCapture, stopCapture } from './api.js';
import { calibrate, probeServerOf } from './calibrate.js';
import { networkMismatches } from '../../common/report/network-check.js';
import { floorMs } from '../../common/stats/floor.js';
import { isThrottled, presetById } from '../../common/setup/presets.js';
import { MiB } from '../../common/setup/units.js';
import { judgeExperiment, plannedComparisons } from '../../common/stats/family.js';
import { entriesFor, resetResourceTimings } from './timing.js';
import { fetchOrigin, optionUrls, runTag } from '../../common/setup/urls.js';
import { judgeRun } from '../../common/stats/validity.js';
import { labEntryOf, labIdOf, measuredServers, serverLabel, unavailableReason } from '../../common/setup/servers.js';
import { schemaVersion } from '../../common/report/result.js';
import { labSetsNetwork, limits, withLossSeed } from '../../common/setup/settings.js';
import { runLossSeed } from '../../common/setup/seeds.js';
import { networkOf, networks } from '../../common/setup/networks.js';
import { bareNetworkRecord } from '../../common/report/network-record.js';
import { watchStall } from './stall-watch.js';
import { inRounds } from '../../common/stats/until-decided.js';

/** @typedef {import('../../common/report/result.js').Settings} Settings */
/** @typedef {import('../../common/report/result.js').Result} Result */
/** @typedef {import('../../common/report/result.js').RunRecord} RunRecord */
/** @typedef {import('../../common/report/result.js').RequestRecord} RequestRecord */
/** @typedef {import('../../common/report/result.js').PresetAppliedBy} PresetAppliedBy */
/** @typedef {import('../../common/setup/presets.js').Preset} Preset */
/** @typedef {import('./api.js').Lab} Lab */
/** @typedef {import('./api.js').LabServer} LabServer */
/** @typedef {import('./api.js').LabStats} LabStats */

/**
 * @typedef {object} Progress  what onProgress hears, a few times a second
 * @property {number} done       requests finished (loads, for page loads)
 * @property {number} total
 * @property {string} phase      what happens now, for people
 * @property {number} [repeats]
 * @property {number} [repeat]
 * @property {string} [server]
 */

const warmupRequests = 12; // enough to open HTTP/1.1's six connections twice over
const dispatchBatch = 100;
const progressEveryMs = 250;
// scheduler.yield is not in TypeScript's DOM library yet.
const yieldToPage = () => /** @type {{ scheduler?: { yield?: () => Promise<void> } }} */ (globalThis).scheduler?.yield?.() ?? new Promise((r) => setTimeout(r));

/**
 * Reads a body to the end; only its length matters. A Blob is filled by the browser without a
 * JavaScript turn per chunk (a reader loop over 100 parallel bodies put the page's own work
 * into the measured total) and is not copied into the page's heap.
 * @param {Response} res
 */
async function drain(res) {
  return (await res.blob()).size;
}

/**
 * Reads a body piece by piece, telling `onPiece` of each: for runs slow enough that a body's end
 * comes too seldom to show the run is alive (limits.stall), where a JavaScript turn per piece
 * costs nothing next to the wait.
 * @param {Response} res
 * @param {() => void} onPiece
 */
async function drainWatched(res, onPiece) {
  let bytes = 0;
  const reader = /** @type {ReadableStream<Uint8Array>} a fetch's answer has a body */ (res.body).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
    onPiece();
  }
}

/**
 * One timed run: `requests` fetches through a dispatch window of `maxInFlight`.
 * @param {{ server: LabServer, settings: Settings, repeat: number, tag: string, signal?: AbortSignal,
 *   onRequestDone?: () => void, pageTtfb?: boolean, watchPieces?: boolean }} o  server: its origin the one to fetch
 * @returns {Promise<RunRecord>}
 */
export async function timedRun({ server, settings, repeat, tag, signal, onRequestDone, pageTtfb = false, watchPieces = false }) {
  const { requests, sizeMiB, maxInFlight } = settings;
  const expectedBytes = Math.floor(sizeMiB * MiB);
  const urlOf = optionUrls(server.origin, settings, tag);
  const urls = Array.from({ length: requests }, (_, i) => urlOf(i));
  resetResourceTimings(requests);

  /** @type {RequestRecord[]} */
  const records = new Array(requests);
  let next = 0;
  let lastEnd = 0;
  // The server's delay is the run's to ask for: no progress is expected while it waits.
  const watch = watchStall(limits.stall.ms + settings.delayMs, signal);
  const t0 = performance.now();

  /** @param {number} i */
  async function one(i) {
    const started = performance.now();
    /** @type {RequestRecord} */
    const record = { i, startMs: started - t0, ttfbMs: null, endMs: null, bytes: 0, protocol: '', connectionId: null, clientPort: null, serverDelayMs: null, error: null };
    records[i] = record;
    try {
      const res = await fetch(urls[i], { cache: 'no-store', signal: watch.signal });
      record.ttfbMs = performance.now() - started; // the page's clock; Resource Timing's below when unthrottled
      watch.progress();
      record.connectionId = Number(res.headers.get('x-connection-id')) || null;
      record.clientPort = Number(res.headers.get('x-client-port')) || null;
      record.bytes = await (watchPieces ? drainWatched(res, watch.progress) : drain(res));
      watch.progress();
      if (!res.ok) record.error = `HTTP ${res.status}`;
      else if (record.bytes !== expectedBytes) record.error = `got ${record.bytes} bytes, expected ${expectedBytes}`;
    } catch (err) {
      if (signal?.aborted) throw err;
      record.error = watch.stalled() ? 'timeout' : `${/** @type {Error} */ (err).name}: ${/** @type {Error} */ (err).message}`;
    }
    const ended = performance.now();
    record.endMs = ended - t0;
    lastEnd = Math.max(lastEnd, ended);
    onRequestDone?.();
  }

  async function lane() {
    while (next < requests) await one(next++);
  }
  // Each fetch() costs the page about half a millisecond: opening a 600-wide window in one
  // task blocked the page for 300 ms, so the window opens in batches with a yield between.
  const lanes = [];
  for (let k = 0; k < Math.min(maxInFlight, requests); k++) {
    if (k && k % dispatchBatch === 0) await yieldToPage();
    lanes.push(lane());
  }
  try {
    await Promise.all(lanes);
  } finally {
    watch.end();
  }
  const totalMs = lastEnd - t0;

  // Resource Timing is more precise than our own timestamps (it excludes the page's scheduling)
  // and is the only source of the negotiated protocol.
  const entries = await entriesFor(urls);
  for (const record of records) {
    const e = entries.get(urls[record.i]);
    if (!e) continue;
    record.protocol = e.nextHopProtocol;
    // Read here, not while timing: the server-timing header costs the timed loop nothing then.
    record.serverDelayMs = e.serverTiming?.find((t) => t.name === 'delay')?.duration ?? null;
    if (record.error || !(e.responseStart > 0)) continue; // no timing detail without Timing-Allow-Origin
    record.startMs = e.startTime - t0;
    record.endMs = e.responseEnd - t0;
    // Under DevTools throttling responseStart precedes the emulated latency; the page's own
    // clock (fetch resolving with the headers) is then the truthful time to first byte.
    if (!pageTtfb) record.ttfbMs = e.responseStart - e.startTime;
  }
  return { server: server.id, ...judgeRun(server.id, records), repeat, totalMs, startEpochMs: performance.timeOrigin + t0, requests: records };
}

/** @typedef {Omit<Result, 'finishedAt'> & { finishedAt: string|null }} OpenResult  an experiment's result until it ends */

/**
 * @typedef {object} ProgressCounter  an experiment's onProgress, with the requests done so far
 * @property {(extra: Omit<Progress, 'done'|'total'>) => void} tell
 * @property {(extra: Omit<Progress, 'done'|'total'>) => void} requestDone  counts a timed request and tells, a few times a second
 */

/**
 * @typedef {object} Experiment  what one experiment's steps share
 * @property {string} id
 * @property {Settings} settings  as asked: result.settings adds the losses' seed
 * @property {Preset} preset
 * @property {LabServer[]} targets  the servers, each with the origin the page fetches
 * @property {OpenResult} result
 * @property {AbortSignal} [signal]
 * @property {{ whole: boolean } | null} capture
 * @property {number[] | null} repeatNumbers
 * @property {ProgressCounter} progress
 */

/**
 * A whole experiment: calibration, then `repeats` timed runs per server in alternating order.
 * Stopping (signal) ends it early and returns what finished, marked `stopped`.
 * @param {Settings} settings
 * @param {{ lab: Lab, signal?: AbortSignal, onProgress?: (p: Progress) => void, onCalibrated?: (environment: Result['environment']) => void,
 *   presetAppliedBy?: PresetAppliedBy, burst?: import('./api.js').BurstInput | null,
 *   traces?: { traceDown?: string|null, traceUp?: string|null }, capture?: { whole: boolean } | null, repeatNumbers?: number[] | null }} o lab: GET /api/servers;
 *   onCalibrated(environment) once the network is measured; presetAppliedBy: who applied a
 *   DevTools preset (environment.presetAppliedBy); burst: the packet network's bursty loss
 *   (server/packet/conditions.js), which the settings do not carry; traces: a trace's name per
 *   direction for a network the lab sets (GET /api/traces); capture: each timed run's packets
 *   captured on a network that sees them (run.capture), whole or headers only; repeatNumbers:
 *   the numbers of the settings.repeats repeats to run (default 1…repeats): a shard's share of a
 *   larger experiment keeps each repeat's number and its server order (runner --shard)
 * @returns {Promise<Result>}
 */
export async function runExperiment(settings, { lab, signal, onProgress = () => {}, onCalibrated = () => {}, presetAppliedBy = 'label', burst = null, traces = {}, capture = null, repeatNumbers = null }) {
  if (repeatNumbers && repeatNumbers.length !== settings.repeats) throw new RangeError(`repeatNumbers names ${repeatNumbers.length} repeats, settings.repeats is ${settings.repeats}`);
  const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 6)}`;
  if (capture && !networkOf(settings.network).capturesPackets) throw new Error(`${networkOf(settings.network).title} sees no packets to capture: only a network that carries them can (${networks.filter((n) => n.capturesPackets).map((n) => n.id).join(', ')})`);
  const startedAt = new Date().toISOString();
  const servers = runnableServers(settings, lab);
  const preset = /** @type {Preset} settings are validated: a known preset */ (presetById(settings.preset));
  // Through the lab link the page fetches the servers' twin ports, and the link carries the preset;
  // on the packet network the page sets the emulator's conditions, like the link's, for the run.
  const targets = servers.map((s) => ({ ...s, origin: fetchOrigin(s, settings.network) }));
  const result = openResult({ id, startedAt, settings, preset, servers, presetAppliedBy });
  const progress = progressCounter(onProgress, settings.repeats * servers.length * settings.requests, settings.repeats);
  /** @type {Experiment} */
  const experiment = { id, settings, preset, targets, result, signal, capture, repeatNumbers, progress };
  try {
    await onNetwork({ ...settings, burst, ...traces }, (record) => {
      result.environment.network = record;
      return measure(experiment, onCalibrated);
    });
  } catch (err) {
    // Whatever ended the experiment (Stop, or the lab going away under it), the runs that
    // finished are kept and said to be all there is; with none finished there is nothing to keep.
    if (!signal?.aborted && !result.runs.length) throw err;
    result.stopped = true;
    result.stopReason = signal?.aborted ? 'stopped' : /** @type {Error} */ (err).message;
  }
  result.finishedAt = new Date().toISOString();
  // Judged as an experiment of its own; a sweep judges its points together again (runSweep).
  Object.assign(result, judgeExperiment([/** @type {Result} finishedAt is set */ (result)])[0]);
  if (preset) result.floorMsByServer = floorsFor(settings, preset, servers, lab.limits.maxStreams);
  progress.tell({ phase: result.stopped ? 'stopped' : 'done' });
  return /** @type {Result} finishedAt is set */ (result);
}

/**
 * The servers an experiment measures, as the lab has them. What the lab or this page's preflight
 * found unusable runs nowhere, not even from a script.
 * @param {Settings} settings
 * @param {Lab} lab
 * @returns {LabServer[]}
 */
function runnableServers(settings, lab) {
  // An A/A slot is its twin's server under its own id and label (common/setup/servers.js).
  return measuredServers(settings).map((sid) => {
    const why = unavailableReason(lab, sid, settings.network);
    if (why) throw new Error(`${sid} cannot run here: ${why}`);
    const server = /** @type {LabServer} the lab has it, or it would be unavailable */ (labEntryOf(lab.servers, sid));
    return server.id === sid ? server : { ...server, id: sid, label: serverLabel(sid) };
  });
}

/**
 * An experiment's result before its first run.
 * @param {{ id: string, startedAt: string, settings: Settings, preset: Preset, servers: LabServer[], presetAppliedBy: PresetAppliedBy }} o
 * @returns {OpenResult}
 */
function openResult({ id, startedAt, settings, preset, servers, presetAppliedBy }) {
  return {
    schemaVersion,
    kind: 'experiment',
    id,
    startedAt,
    finishedAt: null,
    settings,
    environment: {
      userAgent: navigator.userAgent,
      preset,
      network: bareNetworkRecord(networkOf(settings.network).id), // onNetwork's record once it sets the network
      presetAppliedBy: labSetsNetwork(settings.network) ? settings.network : presetAppliedBy,
      calibration: null,
      networkMismatches: [],
      servers,
    },
    runs: [],
    stopped: false,
    stopReason: null,
    summary: {},
    comparisons: [],
    floorMsByServer: null,
  };
}

/**
 * @param {(p: Progress) => void} onProgress
 * @param {number} total  the timed requests of every run
 * @param {number} repeats
 * @returns {ProgressCounter}
 */
function progressCounter(onProgress, total, repeats) {
  let done = 0;
  let lastAt = 0;
  /** @param {Omit<Progress, 'done'|'total'>} extra */
  const tell = (extra) => onProgress({ done, total, repeats, ...extra });
  return {
    tell,
    requestDone(extra) {
      done += 1;
      // Progress touches the page inside the timed window: a few times a second is enough.
      const now = performance.now();
      if (now - lastAt > progressEveryMs) {
        lastAt = now;
        tell(extra);
      }
    },
  };
}

/**
 * Calibrates, then runs every repeat of every server, on the network already set.
 * @param {Experiment} x
 * @param {(environment: Result['environment']) => void} onCalibrated
 */
async function measure(x, onCalibrated) {
  const { settings, result } = x;
  x.progress.tell({ phase: 'Measuring the network' });
  const probeServer = probeServerOf(x.targets);
  result.environment.calibration = { ...(await calibrate(probeServer.origin, { signal: x.signal })), server: probeServer.id };
  result.environment.networkMismatches = networkMismatches(x.preset, result.environment.calibration, settings.network);
  onCalibrated(result.environment);
  const watchPieces = inFlightMs(settings, result.environment.calibration) > limits.stall.wholeBodiesMs;
  // On a lossy path every server's repeat i loses from the same seed (common/setup/seeds.js), so its
  // runs pair repeat by repeat (common/stats/stats.js comparePaired).
  const seeded = losesPackets(result.environment.network);
  // The losses' base seed: the caller's (drawn once per experiment, so a sweep's points and a
  // point's rounds share it), else a fresh one the result records. The model mixed into each
  // run's seed is what the path applies (common/setup/seeds.js: each rate draws its own losses).
  if (seeded) result.settings = withLossSeed(settings);
  const lossModel = seeded ? result.environment.network.conditions : null;
  /** @type {Set<string>} */
  const warmed = new Set();
  for (const repeat of x.repeatNumbers ?? Array.from({ length: settings.repeats }, (_, i) => i + 1)) {
    // A B C, C B A, …: drift during the experiment favours no server.
    const order = repeat % 2 ? x.targets : [...x.targets].reverse();
    for (const server of order) {
      // A part's repeats (a shard's, a round's) are numbered within a whole this run does not know.
      const label = `repeat ${repeat}${x.repeatNumbers ? '' : `/${settings.repeats}`} · ${server.label}`;
      if (settings.connections === 'cold') {
        await resetConnections([labIdOf(server.id)], settleAfterReset(result.environment.network));
      } else if (!warmed.has(server.id)) {
        x.progress.tell({ phase: `warming up · ${server.label}`, repeat, server: server.id });
        const warm = { ...settings, requests: Math.min(settings.requests, warmupRequests), sizeMiB: 0, delayMs: 0 };
        await timedRun({ server, settings: warm, repeat: 0, tag: `${x.id}-warm`, signal: x.signal });
        warmed.add(server.id);
      }
      x.progress.tell({ phase: label, repeat, server: server.id });
      const run = await recordedRun(x, { server, repeat, label, watchPieces, lossModel });
      result.runs.push(run);
    }
  }
}

/**
 * One timed run with what the lab records around it: the server's counters before and after,
 * its losses' seed, its packets.
 * @param {Experiment} x
 * @param {{ server: LabServer, repeat: number, label: string, watchPieces: boolean,
 *   lossModel: import('../../common/setup/seeds.js').LossModel | null }} run  lossModel: what the path loses by, on a lossy path
 * @returns {Promise<RunRecord>}
 */
async function recordedRun(x, { server, repeat, label, watchPieces, lossModel }) {
  const { settings } = x;
  const statsBefore = await getStats();
  const tag = runTag(x.id, server.id, repeat);
  // After the reset and the warm-up, before the run's first packet: nothing else draws from its losses.
  const lossSeed = lossModel ? runLossSeed(/** @type {number} withLossSeed */ (x.result.settings.lossSeed), repeat, lossModel) : null;
  if (lossSeed !== null) await seedLoss(settings.network, lossSeed);
  // Started after the reset: the capture holds this run's connections and nothing before them.
  if (x.capture) await startCapture(settings.network, { name: tag, whole: x.capture.whole });
  /** @type {import('./api.js').CaptureRecord|null} */
  let captured = null;
  /** @type {RunRecord} */
  let run;
  try {
    run = await timedRun({
      server,
      settings,
      repeat,
      // DevTools delays the headers after Resource Timing's responseStart; the link and the packet network do not.
      pageTtfb: Boolean(!labSetsNetwork(settings.network) && x.preset && isThrottled(x.preset)),
      tag,
      signal: x.signal,
      watchPieces,
      onRequestDone: () => x.progress.requestDone({ phase: label, repeat, server: server.id }),
    });
  } finally {
    // Stopped whatever ended the run, so no capture outlives it.
    if (x.capture) captured = await stopCapture(settings.network);
  }
  if (lossSeed !== null) run.lossSeed = lossSeed;
  if (captured) {
    run.capture = captured;
    // A capture that could not be written (a full disk) fails its run; those before it are kept.
    if (captured.error) throw new Error(`capture of ${label}: ${captured.error}`);
  }
  run.serverStats = serverStatsBetween(statsBefore, await getStats(), server.id);
  return run;
}

/**
 * How long the bytes a run has in flight at once take at the calibrated rate.
 * @param {Settings} settings
 * @param {{ downloadBps: number }} calibration
 */
const inFlightMs = (settings, calibration) => (Math.min(settings.maxInFlight, settings.requests) * settings.sizeMiB * MiB * 1000) / calibration.downloadBps;

/**
 * What the server paid for one run, from the lab's counters before and after it. Runs are
 * sequential, so the differences are that run's own; the CPU is the whole lab process's (every
 * server, the link and the control API share it), idle apart from this run.
 * @param {LabStats} before
 * @param {LabStats} after
 * @param {string} serverId
 * @returns {NonNullable<RunRecord['serverStats']>}
 */
function serverStatsBetween(before, after, serverId) {
  // The lab counts every server it runs, and the run's server is one of them.
  const a = /** @type {import('./api.js').ServerCounters} */ (labEntryOf(before.servers, serverId));
  const b = /** @type {import('./api.js').ServerCounters} */ (labEntryOf(after.servers, serverId));
  return {
    cpuMs: after.cpuMs - before.cpuMs,
    connectionsOpened: b.totalConnections - a.totalConnections,
    requests: b.requests - a.requests,
    bytesSent: b.bytesSent - a.bytesSent,
  };
}

/**
 * @param {Settings} settings
 * @param {Preset} preset
 * @param {LabServer[]} servers
 * @param {number} maxStreams
 * @returns {Record<string, number>|null} null when a server has no floor (no throttling)
 */
function floorsFor(settings, preset, servers, maxStreams) {
  /** @type {[string, number|null][]} */
  const entries = servers.map((s) => [
    s.id,
    floorMs({
      preset,
      requests: settings.requests,
      sizeBytes: Math.floor(settings.sizeMiB * MiB),
      maxInFlight: settings.maxInFlight,
      protocol: s.protocol,
      maxStreams,
    }),
  ]);
  return entries.some(([, v]) => v === null) ? null : /** @type {Record<string, number>} none null */ (Object.fromEntries(entries));
}

/** @typedef {'requests'|'sizeMiB'|'delayMs'|'preset'|'loss'} SweepParam  common/setup/settings.js limits.sweep.params */

/**
 * @typedef {object} SweepPoint  one point of a plan (common/setup/sweep.js planSweep)
 * @property {number|string} value  the swept setting's value
 * @property {string} label
 * @property {Settings} settings
 */

/**
 * @typedef {object} SweepPlan
 * @property {SweepParam} param
 * @property {string} paramLabel
 * @property {SweepPoint[]} points
 */

/**
 * One round of a point until decided: runExperiment on the repeats `round`, numbered on from its
 * rounds before so the server order keeps alternating, its progress saying which round.
 * @param {Settings} settings  with maxRepeats
 * @param {number[]} round
 * @param {Parameters<typeof runExperiment>[1]} o  runExperiment's, but repeatNumbers, which the round sets
 */
function runRound(settings, round, { onProgress = () => {}, ...o }) {
  const phase = `until decided, repeats ${round[0]}–${round.at(-1)} of at most ${settings.maxRepeats}`;
  return runExperiment({ ...settings, repeats: round.length }, { ...o, repeatNumbers: round, onProgress: (p) => onProgress({ ...p, phase: `${phase} · ${p.phase}` }) });
}

/**
 * Repeats until decided (settings.maxRepeats, the cap): round after round (runRound), and a look
 * after each (common/stats/until-decided.js inRounds) that stops once every verdict is decided, or
 * every open one could have found the difference aimed at (settings.aimPercent), or at the cap.
 * Stop ends it after the round it interrupts, with what finished. The result is the rounds joined,
 * with result.untilDecided saying how it went.
 * @param {Settings} settings  with maxRepeats
 * @param {Parameters<typeof runExperiment>[1]} o  runExperiment's, but repeatNumbers, which the rounds set
 * @returns {Promise<Result>}
 */
export async function runUntilDecided(settings, o) {
  const planned = plannedComparisons(settings);
  let last = /** @type {Result|null} */ (null);
  await inRounds([settings], {
    cap: /** @type {number} the caller's condition */ (settings.maxRepeats),
    order: 'point-by-point',
    aimPercent: settings.aimPercent ?? null,
    measure: (s, round) => runRound(s, round, o),
    judge: (_, result) => judgeExperiment([result], planned)[0],
    onLook: (_, result) => (last = result),
  });
  return /** @type {Result} without a budget or beforePoint, its first round always runs */ (last);
}

/**
 * @typedef {object} Sweep  what runSweep returns and the sweep chart draws
 * @property {SweepParam} param
 * @property {string} paramLabel
 * @property {{ value: number|string, label: string, result: Result }[]} points
 * @property {boolean} stopped
 */

/**
 * A sweep: one experiment per point, in order (each until decided where the settings say so, point
 * by point: common/stats/until-decided.js inRounds). `beforePoint` may wait for the user (a preset
 * sweep in the browser asks them to switch DevTools throttling) or apply conditions itself.
 * @param {SweepPlan} plan
 * @param {Omit<Parameters<typeof runExperiment>[1], 'onProgress'> & { onProgress?: (p: Progress) => void,
 *   beforePoint?: (point: SweepPoint, index: number) => Promise<void> }} o  the rest: runExperiment's options
 * @returns {Promise<Sweep>}
 */
export async function runSweep(plan, { lab, signal, onProgress = () => {}, beforePoint = async () => {}, ...more }) {
  // One experiment: its verdicts are judged across all its points' comparisons (common/stats/family.js).
  const planned = plan.points.reduce((n, p) => n + plannedComparisons(p.settings), 0);
  /** @type {Map<SweepPoint, Result>} each point's result so far, in the order the points began */
  const results = new Map();
  /** @param {SweepPoint} point */
  const ready = async (point) => {
    if (signal?.aborted) return false;
    await beforePoint(point, plan.points.indexOf(point));
    return !signal?.aborted; // the person cancelled at the prompt
  };
  /** @param {SweepPoint} point */
  const optionsOf = (point) => ({
    ...more, // onCalibrated, presetAppliedBy
    lab,
    signal,
    onProgress: (/** @type {Progress} */ p) => onProgress({ ...p, phase: `${plan.paramLabel} ${point.label} (${plan.points.indexOf(point) + 1}/${plan.points.length}) · ${p.phase}` }),
  });
  // The points differ in the swept setting alone: the cap and the aim are the sweep's.
  const { maxRepeats, aimPercent = null } = plan.points[0]?.settings ?? {};
  if (maxRepeats) {
    await inRounds(plan.points, {
      cap: maxRepeats,
      order: 'point-by-point',
      aimPercent,
      beforePoint: ready,
      measure: (point, round) => runRound(point.settings, round, optionsOf(point)),
      judge: (point, result) => {
        const others = [...results].flatMap(([q, r]) => (q === point ? [] : [r]));
        return /** @type {Result} the last of those given */ (judgeExperiment([...others, result], planned).at(-1));
      },
      onLook: (point, result) => results.set(point, result),
    });
  } else {
    for (const point of plan.points) {
      if (!(await ready(point))) break;
      const result = await runExperiment(point.settings, optionsOf(point));
      results.set(point, result);
      if (result.stopped) break;
    }
  }
  const judged = judgeExperiment([...results.values()]);
  const points = [...results.keys()].map((point, i) => ({ value: point.value, label: point.label, result: judged[i] }));
  return { param: plan.param, paramLabel: plan.paramLabel, points, stopped: Boolean(signal?.aborted) };
}
