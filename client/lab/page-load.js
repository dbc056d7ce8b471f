// Page loads as real top-level navigations (Early Hints act on nothing else), in one window the
// lab opened, modes alternating per repeat. The loaded page reports its Navigation and Resource
// Timing back with postMessage; the servers' counters say what became of pushes.
import { getStats, onNetwork, resetConnections, startCapture, stopCapture } from './api.js';
import { pageLoadLabels, summarizeLoads } from '../../common/report/page-load.js';
import { presetById } from '../../common/setup/presets.js';
import { plainNumber } from '../../common/setup/units.js';
import { fetchOrigin, runTag } from '../../common/setup/urls.js';
import { schemaVersion } from '../../common/report/result.js';
import { networkOf, networks } from '../../common/setup/networks.js';
import { bareNetworkRecord } from '../../common/report/network-record.js';

/** @typedef {import('../../common/report/result.js').PageLoad} PageLoad */
/** @typedef {import('../../common/report/result.js').PageLoadMode} PageLoadMode */

/**
 * @typedef {object} PageReport  what the loaded page posts back (common/setup/page.js): its timing entries, through JSON
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
 * @param {import('../../common/report/result.js').PageLoadSettings} settings
 * @param {{ server: import('./api.js').LabServer, win: Window, signal?: AbortSignal, onProgress?: (p: import('./engine.js').Progress) => void,
 *   presetAppliedBy?: import('../../common/report/result.js').PresetAppliedBy, capture?: { whole: boolean } | null }} o
 *   server: its entry of /api/servers; win: the window the lab opened; presetAppliedBy: as a Result's;
 *   capture: each load's packets captured on a network that sees them (load.capture), whole or headers only
 * @returns {Promise<import('../../common/report/result.js').PageLoadResult>}
 */
export async function runPageLoads(settings, { server, win, signal, onProgress = () => {}, presetAppliedBy = 'label', capture = null }) {
  const { assets, assetKiB, thinkMs, repeats, modes } = settings;
  const network = networkOf(settings.network);
  if (capture && !network.capturesPackets) throw new Error(`${network.title} sees no packets to capture: only a network that carries them can (${networks.filter((n) => n.capturesPackets).map((n) => n.id).join(', ')})`);
  // Names the loads' captures, as a Result's id names its runs'.
  const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 6)}`;
  const origin = fetchOrigin(server, settings.network);
  const startedAt = new Date().toISOString();
  /** @type {PageLoad[]} */
  const loads = [];
  const loadAll = async () => {
    for (let repeat = 1; repeat <= repeats; repeat++) {
      for (const mode of repeat % 2 ? modes : [...modes].reverse()) {
        if (signal?.aborted) return;
        const label = `repeat ${repeat}/${repeats} · ${pageLoadLabels[mode]}`;
        onProgress({ done: loads.length, total: repeats * modes.length, phase: label });
        const tag = capture && runTag(id, mode, repeat);
        const load = await loadOnce({ origin, serverId: server.id, mode, repeat, assets, assetKiB, thinkMs, win, signal, capture: tag ? { ...capture, tag, network: network.id } : null });
        // A capture that could not be written (a full disk) fails its load; those before it are kept.
        if (load.capture?.error) throw new Error(`capture of ${label}: ${load.capture.error}`);
        loads.push(load);
      }
    }
  };
  // The preset is what the lab applied through the window's DevTools port, what the person set in
  // its DevTools (a label the page cannot check), or what the lab link or packet network was set to.
  /** @type {import('../../common/report/result.js').PageLoadEnvironment} */
  const environment = { preset: presetById(settings.preset) ?? null, network: bareNetworkRecord(network.id), presetAppliedBy };
  /** @type {string|null} */
  let stopReason = null;
  try {
    // No loss here: page loads compare push, preload and hints on a clean path.
    await onNetwork({ network: settings.network, preset: settings.preset }, (record) => {
      environment.network = record;
      return loadAll();
    });
  } catch (err) {
    // Whatever ended the loads (Stop, a failed capture, the lab going away), those that finished
    // are kept and said to be all there is, as an experiment's runs are; with none there is nothing to keep.
    if (!loads.length) throw err;
    stopReason = signal?.aborted ? 'stopped' : /** @type {Error} */ (err).message;
  }
  return {
    schemaVersion, kind: 'page-loads', id, startedAt, userAgent: navigator.userAgent, settings, environment, loads, summary: summarizeLoads(loads, modes),
    ...(stopReason && { stopped: true, stopReason }),
  };
}

/**
 * One cold page load in the lab's window, with what the servers saw of it.
 * @param {{ origin: string, serverId: string, mode: PageLoadMode, repeat: number, assets: number, assetKiB: number,
 *   thinkMs: number, win: Window, signal?: AbortSignal, capture: { whole: boolean, tag: string, network: import('../../common/setup/networks.js').NetworkId } | null }} o
 *   capture: the load's packets, in files named after `tag`
 * @returns {Promise<PageLoad>}
 */
async function loadOnce({ origin, serverId, mode, repeat, assets, assetKiB, thinkMs, win, signal, capture }) {
  // Started before the reset: Chromium may open a connection to the origin as soon as its old ones
  // are reset (a preconnect), before a capture started after the reset would see its handshake (a
  // load captured without it, once in six runs of test/runner-page-loads.test.js). The capture then
  // also holds the old connections' last packets, as records without a handshake.
  if (capture) await startCapture(capture.network, { name: capture.tag, whole: capture.whole });
  const flags = `preload=${mode === 'preload' ? 1 : 0}&push=${mode === 'push' ? 1 : 0}&hints=${mode === 'hints' ? 1 : 0}`;
  const url = `${origin}/page?assets=${assets}&size=${plainNumber(assetKiB / 1024)}&delay=${thinkMs}&${flags}&load=${Math.random().toString(36).slice(2)}`;
  /** @type {import('./api.js').CaptureRecord|null} */
  let captured = null;
  /** @type {PageReport} */
  let reported;
  /** @type {Awaited<ReturnType<typeof statsOf>>} */
  let before;
  try {
    await resetConnections([serverId]); // every load starts cold, as a first visit does
    before = await statsOf(serverId);
    const report = waitForReport(url, signal);
    win.location.href = url;
    reported = await report;
  } finally {
    // Stopped whatever ended the load, so no capture outlives it.
    if (capture) captured = await stopCapture(capture.network);
  }
  const { nav, assets: entries } = reported;
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
    ...(captured && { capture: captured }),
  };
}
