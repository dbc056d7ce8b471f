// Page loads as real top-level navigations (Early Hints act on nothing else), in one window the
// lab opened, modes alternating per repeat. The loaded page reports its Navigation and Resource
// Timing back with postMessage; the servers' counters say what became of pushes.
import { median } from 'simple-statistics';
import { getStats, resetConnections, withLinkPreset } from './api.js';
import { presetById } from '../../common/presets.js';
import { boundsError, limits, serverCaps } from './settings.js';
import { compare, summarize } from './stats.js';
import { plainNumber } from './timing.js';
import { fetchOrigin } from './urls.js';

export const pageLoadModes = ['requested', 'preload', 'push', 'hints'];
export const pageLoadLabels = { requested: 'Requested', preload: 'Preload', push: 'Push', hints: 'Early Hints' };
const reportTimeoutMs = 60_000;

/**
 * The panel's numeric fields, shared by its form and `npm run page-loads`. The bounds are the
 * servers' caps (settings.js serverCaps): assets a page, body size, think time.
 */
export const pageLoadFields = Object.freeze({
  assets: { label: 'Assets', default: 1, min: 1, get max() { return serverCaps.maxAssets; }, integer: true },
  assetKiB: { label: 'Asset size', unit: 'KiB', default: 290, min: 0, get max() { return serverCaps.maxSizeMiB * 1024; } },
  thinkMs: { label: 'Think time', unit: 'ms', default: 300, min: 0, get max() { return serverCaps.maxDelayMs; } },
  repeats: { label: 'Repeats', default: 10, min: limits.repeats.min, max: limits.repeats.max, integer: true },
});

/** "must be an integer from 1 to 50" when `value` breaks the field's rule, else null. */
export const pageLoadFieldError = (name, value) => boundsError(pageLoadFields[name], value);

const statsOf = async (serverId) => (await getStats()).servers.find((s) => s.id === serverId);

function waitForReport(url, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no report from ${url} within ${reportTimeoutMs / 1000} s`)), reportTimeoutMs);
    const onMessage = (event) => {
      if (event.data?.h2labPageLoad?.url === url) finish(null, event.data.h2labPageLoad);
    };
    const onAbort = () => finish(new DOMException('stopped', 'AbortError'));
    function finish(err, value) {
      clearTimeout(timer);
      removeEventListener('message', onMessage);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(value);
    }
    addEventListener('message', onMessage);
    signal?.addEventListener('abort', onAbort);
  });
}

/**
 * @param {{ server: object, assets: number, assetKiB: number, thinkMs: number, repeats: number, modes: string[],
 *   preset: string, network: 'devtools'|'link' }} settings network: who applies the preset (the
 *   person in the window's DevTools, or the lab link, which this sets for the loads and puts back)
 * @param {{ win: Window, signal?: AbortSignal, onProgress?: Function }} o win: the window the lab opened
 */
export async function runPageLoads(settings, { win, signal, onProgress = () => {} }) {
  const { server, assets, assetKiB, thinkMs, repeats, modes } = settings;
  const viaLink = settings.network === 'link';
  const origin = fetchOrigin(server, settings.network);
  const startedAt = new Date().toISOString();
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
  // The preset is what the person set in the window's DevTools (the page cannot check it), or
  // what the lab link was set to.
  const environment = { preset: presetById(settings.preset) ?? null, network: settings.network ?? 'devtools', link: null };
  if (viaLink) {
    await withLinkPreset(settings.preset, (link) => {
      environment.link = link;
      return loadAll();
    });
  } else {
    await loadAll();
  }
  return { startedAt, userAgent: navigator.userAgent, settings: { ...settings, server: server.id }, environment, loads, summary: summarizeLoads(loads, modes) };
}

/** One cold page load in the lab's window, with what the servers saw of it. */
async function loadOnce({ origin, serverId, mode, repeat, assets, assetKiB, thinkMs, win, signal }) {
  await resetConnections(); // every load starts cold, as a first visit does
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
    // Whether the browser acted on the 103 in this load: it asked for an asset before the HTML
    // was sent (null outside Early Hints mode).
    hintActedOn: mode === 'hints' ? assetsRequestedEarly > 0 : null,
    protocol: nav.nextHopProtocol,
    pushesSent: after.pushesSent - before.pushesSent,
    pushesRefused: after.pushesRefused - before.pushesRefused,
  };
}

/** Per mode: load time statistics, and each mode against Requested with its interval. */
export function summarizeLoads(loads, modes) {
  const times = (mode) => loads.filter((l) => l.mode === mode).map((l) => l.loadMs);
  return modes.map((mode) => {
    const of = loads.filter((l) => l.mode === mode);
    const leads = of.filter((l) => l.assetsRequestedEarly > 0).map((l) => l.earlyLeadMs);
    // A Push mode in which nothing was pushed loaded plain pages: its time is no push time.
    const noPushes = mode === 'push' && of.length > 0 && of.every((l) => l.pushesSent === 0);
    const refusedAll = noPushes && of.every((l) => l.pushesRefused > 0);
    const row = {
      mode,
      ...summarize(times(mode)),
      pushesSent: of.reduce((n, l) => n + l.pushesSent, 0),
      pushesRefused: of.reduce((n, l) => n + l.pushesRefused, 0),
      earlyHintAssets: of.reduce((n, l) => n + l.earlyHintAssets, 0),
      assetsRequestedEarly: of.reduce((n, l) => n + (l.assetsRequestedEarly ?? 0), 0),
      earlyLeadMs: leads.length ? median(leads) : null,
      hint103Seen: of.filter((l) => l.hint103Ms).length,
      hintActedOn: of.filter((l) => l.hintActedOn).length,
      refusedAll,
      noPushes,
    };
    if (mode !== 'requested' && times('requested').length && times(mode).length && !noPushes) {
      row.vsRequested = compare(times(mode), times('requested'));
    }
    return row;
  });
}
