// Page loads as real top-level navigations (Early Hints act on nothing else), in one window the
// lab opened, modes alternating per repeat. The loaded page reports its Navigation and Resource
// Timing back with postMessage; the servers' counters say what became of pushes.
import { getStats, onNetwork, resetConnections } from './api.js';
import { pageLoadLabels, summarizeLoads } from '../../common/page-load.js';
import { presetById } from '../../common/presets.js';
import { plainNumber } from '../../common/units.js';
import { fetchOrigin } from '../../common/urls.js';
import { schemaVersion } from '../../common/result.js';
import { networkOf } from '../../common/networks.js';

/** @typedef {import('../../common/result.js').PageLoad} PageLoad */
/** @typedef {import('../../common/result.js').PageLoadMode} PageLoadMode */

/**
 * @typedef {object} PageReport  what the loaded page posts back (common/page.js): its timing entries, through JSON
 * @property {string} url
 * @property {PerformanceNavigationTiming & { firstInterimResponseStart?: number, finalResponseHeadersStart?: number }} nav
 * @property {PerformanceResourceTiming[]} assets
 */

const reportTimeoutMs = 60_000;

/** @param {string} serverId one the lab runs, so its counters are there */
const statsOf = async (serverId) => /** @type {import('./api.js').ServerCounters} */ ((await getStats()).servers.find((s) => s.id === serverId));

/**
 * @param {string} url
 * @param {AbortSignal} [signal]
 * @returns {Promise<PageReport>}
 */
function waitForReport(url, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no report from ${url} within ${reportTimeoutMs / 1000} s`)), reportTimeoutMs);
    /** @param {MessageEvent} event */
    const onMessage = (event) => {
      // Only the page this load navigated to may report it.
      if (event.origin === new URL(url).origin && event.data?.h2labPageLoad?.url === url) finish(null, event.data.h2labPageLoad);
    };
    const onAbort = () => finish(new DOMException('stopped', 'AbortError'));
    /**
     * @param {Error|null} err
     * @param {PageReport} [value]
     */
    function finish(err, value) {
      clearTimeout(timer);
      removeEventListener('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(/** @type {PageReport} with no error */ (value));
    }
    addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort);
  });
}

/**
 * @param {import('../../common/result.js').PageLoadSettings} settings
 * @param {{ server: import('./api.js').LabServer, win: Window, signal?: AbortSignal, onProgress?: (p: import('./engine.js').Progress) => void,
 *   presetAppliedBy?: import('../../common/result.js').PresetAppliedBy }} o
 *   server: its entry of /api/servers; win: the window the lab opened; presetAppliedBy: as a Result's
 * @returns {Promise<import('../../common/result.js').PageLoadResult>}
 */
export async function runPageLoads(settings, { server, win, signal, onProgress = () => {}, presetAppliedBy = 'label' }) {
  const { assets, assetKiB, thinkMs, repeats, modes } = settings;
  const origin = fetchOrigin(server, settings.network);
  const startedAt = new Date().toISOString();
  /** @type {PageLoad[]} */
  const loads = [];
  const loadAll = async () => {
    for (let repeat = 1; repeat <= repeats; repeat++) {
      for (const mode of repeat % 2 ? modes : [...modes].reverse()) {
        if (signal?.aborted) return;
        onProgress({ done: loads.length, total: repeats * modes.length, phase: `repeat ${repeat}/${repeats} · ${pageLoadLabels[mode]}` });
        loads.push(await loadOnce({ origin, serverId: server.id, mode, repeat, assets, assetKiB, thinkMs, win, signal }));
      }
    }
  };
  // The preset is what the lab applied through the window's DevTools port, what the person set in
  // its DevTools (a label the page cannot check), or what the lab link or packet network was set to.
  /** @type {import('../../common/result.js').PageLoadEnvironment} */
  const environment = { preset: presetById(settings.preset) ?? null, network: networkOf(settings.network).id, presetAppliedBy, link: null, packet: null };
  // No loss here: page loads compare push, preload and hints on a clean path.
  await onNetwork({ network: settings.network, preset: settings.preset }, (records) => {
    Object.assign(environment, records);
    return loadAll();
  });
  return { schemaVersion, kind: 'page-loads', startedAt, userAgent: navigator.userAgent, settings, environment, loads, summary: summarizeLoads(loads, modes) };
}

/**
 * One cold page load in the lab's window, with what the servers saw of it.
 * @param {{ origin: string, serverId: string, mode: PageLoadMode, repeat: number, assets: number, assetKiB: number,
 *   thinkMs: number, win: Window, signal?: AbortSignal }} o
 * @returns {Promise<PageLoad>}
 */
async function loadOnce({ origin, serverId, mode, repeat, assets, assetKiB, thinkMs, win, signal }) {
  await resetConnections([serverId]); // every load starts cold, as a first visit does
  const before = await statsOf(serverId);
  const flags = `preload=${mode === 'preload' ? 1 : 0}&push=${mode === 'push' ? 1 : 0}&hints=${mode === 'hints' ? 1 : 0}`;
  const url = `${origin}/page?assets=${assets}&size=${plainNumber(assetKiB / 1024)}&delay=${thinkMs}&${flags}&load=${Math.random().toString(36).slice(2)}`;
  const report = waitForReport(url, signal);
  win.location.href = url;
  const { nav, assets: entries } = await report;
  const after = await statsOf(serverId);
  const early = nav.serverTiming?.find((t) => t.name === 'early-assets');
  const assetsRequestedEarly = early ? Number(early.description) : null;
  return {
    mode,
    repeat,
    loadMs: nav.loadEventStart,
    documentHeadersMs: nav.finalResponseHeadersStart || nav.responseStart,
    hint103Ms: nav.firstInterimResponseStart || null,
    assetsEndMs: Math.max(...entries.map((e) => e.responseEnd)),
    earlyHintAssets: entries.filter((e) => e.initiatorType === 'early-hints').length,
    // Seen by the server: assets requested before it sent the HTML, and how long before.
    assetsRequestedEarly,
    earlyLeadMs: early ? early.duration : null,
    // Whether the browser acted on the 103 in this load (null outside Early Hints mode): Resource
    // Timing names an asset's initiator 'early-hints', or the server saw an asset before it sent
    // the HTML. The server alone cannot tell when the round trip is longer than the think time:
    // the early request then arrives after the HTML has left.
    hintActedOn: mode === 'hints' ? entries.some((e) => e.initiatorType === 'early-hints') || (assetsRequestedEarly ?? 0) > 0 : null,
    protocol: nav.nextHopProtocol,
    pushesSent: after.pushesSent - before.pushesSent,
    pushesRefused: after.pushesRefused - before.pushesRefused,
  };
}
