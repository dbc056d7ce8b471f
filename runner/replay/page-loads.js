// Recorded pages loaded again and again over each protocol, measured as the lab measures anything:
// every load a run (runs.js), the runs of a page a point, rounds until decided with Holm's
// step-down across the pages' comparisons (common/stats/until-decided.js, family.js). The lab
// replays through the stage (server/replay/stage.js); each server has a browser of its own that
// sends every recorded origin to it (browser.js), and each cold load runs in a fresh browser
// context, so it opens every connection anew and resumes no TLS session.
import os from 'node:os';
import { networkOf } from '../../common/setup/networks.js';
import { defaultPresetId, presetById } from '../../common/setup/presets.js';
import { runLossSeed } from '../../common/setup/seeds.js';
import { serverById } from '../../common/setup/servers.js';
import { judgeExperiment, plannedComparisons } from '../../common/stats/family.js';
import { summarizeResult } from '../../common/stats/stats.js';
import { inRounds } from '../../common/stats/until-decided.js';
import { parseConditions } from '../../server/path/conditions.js';
import { schemaVersion } from '../../common/report/result.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { createReplayHandler } from '../../server/replay/handler.js';
import { asServed, reusedConnections } from './as-served.js';
import { createPageModel } from '../../server/replay/model.js';
import { replayBrowsers } from './browser.js';
import { hostAddresses } from './flags.js';
import { replayRun } from './runs.js';

/**
 * A recording to replay, read (server/replay/archive.js).
 * @typedef {object} ReplayPage
 * @property {string} name  its file's name without .har
 * @property {string} file
 * @property {string} url  the page loaded (the HAR's page, else its first document)
 * @property {import('../../server/replay/archive.js').Archive} archive
 */

/**
 * @typedef {object} ReplaySettings  what every page's result records as its settings
 * @property {string[]} servers  the lab servers that replay, one per protocol
 * @property {import('./browser.js').ReplayBrowserName} browser  the browser that loads the pages
 * @property {''} control  no A/A control (yet)
 * @property {import('./runs.js').PageMetric} metric  the time the verdicts are on
 * @property {'cold'|'warm'} connections  cold: a fresh browser context per load; warm: one per
 *   server, after an untimed load, with the HTTP cache off
 * @property {import('../../common/setup/networks.js').NetworkId} network  one without twin ports (command.js): DevTools', or one the lab sets
 * @property {string} preset
 * @property {number} loss  % each way, on the packet network
 * @property {number} [lossSeed]  the base seed of a lossy path's losses (runs pair by repeat)
 * @property {'recorded'|'none'} think  the recorded server think time, or none
 * @property {import('../../server/replay/certs.js').Coalescing} coalescing  a certificate per host, or one for all
 * @property {'recorded'|'model'} bodies  the HAR's bodies (a page model's where it has none), or the model's for all
 * @property {number} repeats  per server: the cap under repeats until decided
 * @property {number} [maxRepeats]
 * @property {number} [aimPercent]
 * @property {number} timeoutMs  a load that takes longer fails
 */

/**
 * One recorded page replayed: the lab's Result (common/report/result.js) with a page's settings
 * and runs, and what it replayed. The statistics read a result's runs and its settings' servers,
 * control and repeats alone, so they take it as a Result (cast where they are called).
 * @typedef {Omit<import('../../common/report/result.js').Result, 'kind'|'settings'|'environment'|'runs'|'floorMsByServer'> & {
 *   kind: 'replay', settings: ReplaySettings, environment: ReplayEnvironment,
 *   runs: Array<import('../../common/report/result.js').RunRecord & { page: import('./runs.js').PageRecord }>, page: ReturnType<typeof pageRecord> }} ReplayResult
 */

/**
 * @typedef {object} ReplayEnvironment
 * @property {object|null} conditions  a network the lab sets: its conditions as set (GET /api/networks/<id>); null under DevTools
 * @property {string} browser  the browser's name and version
 * @property {string} node  Node's version, which runs the lab
 * @property {number} cpus
 * @property {Record<string, string>} [software]  each server's implementation and version
 */

/** A load that cannot end in this long fails (its run is invalid): the slowest preset's pages end well within. */
export const loadTimeoutMs = 120_000;

/**
 * @typedef {object} ReplayContext  what the loads share
 * @property {import('../browsers/session.js').StartedLab} lab
 * @property {ReturnType<typeof import('../../server/replay/stage.js').createReplayStage>} stage
 * @property {boolean} packet  the lab and browsers are on the packet network
 * @property {{ spkiSha256: string, caCertPath: string, certs: import('../../server/replay/certs.js').ReplayCerts }} trust  the certificates the lab serves (the replay's): their key, their CA, and themselves
 * @property {{ netLogDir?: string|null }} [evidence]
 * @property {(line: string) => void} log
 */

/**
 * Measures every page, in rounds until decided (untilDecided) or `settings.repeats` each, and
 * answers each page's result judged across all of them.
 * @param {ReplayPage[]} pages
 * @param {ReplaySettings} settings
 * @param {ReplayContext & { untilDecided: { maxRepeats: number, budgetS: number|null, aimPercent: number|null } | null }} o
 * @returns {Promise<ReplayResult[]>}
 */
export async function measureReplay(pages, settings, o) {
  const browsers = await startBrowsers(pages, settings, o);
  try {
    const labNetwork = networkOf(settings.network).labSets ? o.lab.networks[settings.network] : null;
    await labNetwork?.set(parseConditions({ preset: settings.preset, loss: settings.loss }, settings.network));
    const points = pages.map((page) => {
      const model = createPageModel(page.archive, page.url);
      return { page, model, handlers: handlersOf(page, settings, model), result: /** @type {Result|null} */ (null) };
    });
    const planned = points.length * plannedComparisons(asResult({ settings }).settings);
    /** @param {typeof points[number]} p @param {number[]} repeats */
    const measure = (p, repeats) => measurePage(p, repeats, settings, { ...o, browsers });
    if (o.untilDecided) {
      const { maxRepeats: cap, budgetS, aimPercent } = o.untilDecided;
      await inRounds(points, {
        cap,
        order: 'round-robin',
        aimPercent,
        budgetSpent: () => budgetS !== null && performance.now() / 1000 >= budgetS,
        measure,
        judge: (p, result) => /** @type {Result} the last of those given */ (judgeExperiment([...points.flatMap((q) => (q !== p && q.result ? [q.result] : [])), result], planned).at(-1)),
        onLook: (p, result) => (p.result = result),
      });
    } else {
      for (const p of points) p.result = await measure(p, Array.from({ length: settings.repeats }, (_, i) => i + 1));
    }
    const measured = points.flatMap((p) => (p.result ? [{ ...p, result: p.result }] : []));
    return judgeExperiment(measured.map((p) => p.result), planned).map((r, i) => /** @type {ReplayResult} */ (/** @type {unknown} */ ({ ...r, page: pageRecord(measured[i].page, measured[i].model) })));
  } finally {
    await Promise.all([...browsers.values()].map((b) => b.close().catch(() => {})));
  }
}

/**
 * Per server, a browser that sends every page's origins to it: on the packet network to an
 * address of each host's own on the server side, else to loopback.
 * @param {ReplayPage[]} pages @param {ReplaySettings} settings @param {ReplayContext} o
 * @returns {Promise<Map<string, ReplayBrowser>>}
 */
async function startBrowsers(pages, settings, o) {
  const origins = [...new Set(pages.flatMap((p) => [...p.archive.byOrigin.keys()]))];
  // On the packet network each recorded host has an address of its own, or its recorded
  // neighbours' (flags.js), as on the web: Chromium maps names to them one by one, Firefox asks
  // the replay's own DNS for them (doh.js).
  const addresses = hostAddresses(pages.map((p) => p.archive));
  const hostOf = (/** @type {string} */ hostname) => /** @type {string} every recorded host has one */ (addresses.get(hostname));
  const described = o.lab.describe().servers;
  const preset = /** @type {import('../../common/setup/presets.js').Preset} read from a flag that checked it */ (presetById(settings.preset));
  const throttle = networkOf(settings.network).labSets || preset.id === defaultPresetId ? null : preset;
  /** @type {Map<string, ReplayBrowser>} */
  const browsers = new Map();
  try {
    for (const id of settings.servers) {
      const server = /** @type {{ origin: string }} */ (described.find((s) => s.id === id));
      const protocol = /** @type {import('../../common/setup/servers.js').ServerEntry} */ (serverById(id)).protocol;
      const netLogFile = o.evidence?.netLogDir ? `${o.evidence.netLogDir}/netlog-${id}.json` : null;
      const reach = { protocol, host: o.packet ? serverSideAddress : '127.0.0.1', port: Number(new URL(server.origin).port), ...(o.packet && { hostOf }) };
      browsers.set(id, await replayBrowsers[settings.browser]({ trust: o.trust, origins, server: reach, packet: o.packet, throttle, netLogFile }));
    }
  } catch (err) {
    await Promise.all([...browsers.values()].map((b) => b.close().catch(() => {})));
    throw err;
  }
  return browsers;
}

/** @typedef {import('./browser.js').ReplayBrowser} ReplayBrowser */

/**
 * One replay handler per server for a page, its model making the bodies the HAR lacks.
 * @param {ReplayPage} page @param {ReplaySettings} settings @param {ReturnType<typeof createPageModel>} model
 */
const handlersOf = (page, settings, model) => new Map(settings.servers.map((id) => [id, createReplayHandler({ serverId: id, archive: page.archive, think: settings.think, model })]));

/**
 * Repeats `repeats` of a page: in each, every server's load, the servers' order turning each repeat.
 * @param {{ page: ReplayPage, handlers: Map<string, ReturnType<typeof createReplayHandler>> }} point
 * @param {number[]} repeats  1-based, numbered on from the rounds before
 * @param {ReplaySettings} settings
 * @param {ReplayContext & { browsers: Map<string, ReplayBrowser> }} o
 * @returns {Promise<Result>}
 */
async function measurePage({ page, handlers }, repeats, settings, o) {
  o.stage.show(handlers);
  const startedAt = new Date().toISOString();
  const recorded = new Set(page.archive.byOrigin.keys());
  const warm = settings.connections === 'warm' ? await warmContexts(page, settings, o) : null;
  /** @type {ReplayResult['runs']} */
  const runs = [];
  try {
    for (const repeat of repeats) {
      const turn = (repeat - 1) % settings.servers.length;
      for (const server of [...settings.servers.slice(turn), ...settings.servers.slice(0, turn)]) {
        const lossSeed = settings.lossSeed !== undefined && settings.loss > 0 ? runLossSeed(settings.lossSeed, repeat, { loss: settings.loss, burst: null }) : null;
        if (lossSeed !== null) await o.lab.networks[settings.network].seedLoss?.(lossSeed);
        const handler = /** @type {ReturnType<typeof createReplayHandler>} */ (handlers.get(server));
        const before = { ...handler.replay, missed: handler.replay.missed.length, arrivals: handler.replay.arrivals.length };
        const startEpochMs = Date.now();
        const browser = /** @type {ReplayBrowser} one per server */ (o.browsers.get(server));
        const told = await loadOnce(page.url, settings, warm?.get(server) ?? null, browser);
        const now = handler.replay;
        const protocol = /** @type {import('../../common/setup/servers.js').ServerEntry} */ (serverById(server)).protocol;
        const { load, error } = told.load && !browser.tellsConnections ? { ...told, load: asServed(told.load, now.arrivals.slice(before.arrivals), protocol) } : told;
        const served = { misses: now.misses - before.misses, missed: now.missed.slice(before.missed), favicons: now.favicons - before.favicons, reused: reusedConnections(now.arrivals, before.arrivals) };
        runs.push(replayRun({ load, error, server, repeat, recorded, metric: settings.metric, served, lossSeed, startEpochMs }));
        o.log(`${page.name} · ${server} · repeat ${repeat}: ${load ? `${Math.round(load.loadMs)} ms` : `failed (${error})`}`);
      }
    }
  } finally {
    await Promise.all([...(warm?.values() ?? [])].map((c) => c.close().catch(() => {})));
  }
  /** @type {Omit<ReplayResult, 'page'>} */
  const result = {
    schemaVersion,
    kind: 'replay',
    id: `${page.name}-${startedAt}`,
    startedAt,
    finishedAt: new Date().toISOString(),
    settings: { ...settings, repeats: repeats.length },
    environment: {
      conditions: networkOf(settings.network).labSets ? o.lab.networks[settings.network].get() : null,
      browser: /** @type {ReplayBrowser} */ ([...o.browsers.values()][0]).version,
      node: process.version,
      cpus: os.cpus().length,
    },
    runs,
    stopped: false,
    stopReason: null,
    ...summarizeResult(runs),
  };
  return asResult(result);
}

/** @typedef {import('../../common/report/result.js').Result} Result */

/**
 * A replay's result (or its settings alone) as the statistics take it (ReplayResult).
 * @param {object} r
 * @returns {Result}
 */
const asResult = (r) => /** @type {Result} */ (r);

/**
 * Warm connections: per server a session that loaded the page once, untimed, its cache then off.
 * @param {ReplayPage} page @param {ReplaySettings} settings
 * @param {{ browsers: Map<string, ReplayBrowser> }} o
 */
async function warmContexts(page, settings, o) {
  /** @type {Map<string, import('./browser.js').ReplaySession>} */
  const sessions = new Map();
  for (const [id, browser] of o.browsers) {
    const session = await browser.open({ warm: true });
    sessions.set(id, session);
    await loadOnce(page.url, settings, session, browser);
  }
  return sessions;
}

/**
 * One load: in `session` (warm) or in a fresh one closed afterwards (cold).
 * @param {string} url @param {ReplaySettings} settings
 * @param {import('./browser.js').ReplaySession|null} session
 * @param {ReplayBrowser} browser
 * @returns {Promise<{ load: import('./load.js').ReplayLoad|null, error: string|null }>}
 */
async function loadOnce(url, settings, session, browser) {
  const s = session ?? (await browser.open({ warm: false }));
  try {
    return { load: await s.load(url, { timeoutMs: settings.timeoutMs }), error: null };
  } catch (err) {
    return { load: null, error: String(/** @type {Error} */ (err).message).split('\n')[0] };
  } finally {
    if (!session) await s.close().catch(() => {});
  }
}

/**
 * What a result says of its page: the file, the URL, what the archive holds and what its model
 * made (bodies the HAR lacks: their count, bytes made and bytes recorded).
 * @param {ReplayPage} page @param {ReturnType<typeof createPageModel>} model
 */
function pageRecord({ name, file, url, archive }, model) {
  return {
    model: { ...model.made },
    name,
    file,
    url,
    creator: archive.creator,
    origins: archive.byOrigin.size,
    exchanges: archive.exchanges.length,
    withoutBody: archive.counts.withoutBody,
    skipped: archive.skipped,
  };
}
