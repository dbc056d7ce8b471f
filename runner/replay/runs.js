// A replayed load as a run of the lab's result (common/report/result.js RunRecord): the page's
// time in the metric the verdicts are on, judged valid by the rule every run meets
// (common/stats/validity.js judgeRun: every request of a recorded origin answered, over the
// protocol its server promises), so the statistics, verdicts and families treat a page load as
// they treat a batch of fetches. What a page adds is kept beside it in `page`.
import { judgeRun } from '../../common/stats/validity.js';

/** The failed requests a load keeps word for word. */
const keptFailures = 5;

/** The page metrics a verdict can be on: ReplayLoad's fields. @type {Readonly<Record<'load'|'fcp'|'lcp'|'done', { field: 'loadMs'|'fcpMs'|'lcpMs'|'doneMs', title: string }>>} */
export const pageMetrics = Object.freeze({
  load: { field: 'loadMs', title: 'load event' },
  fcp: { field: 'fcpMs', title: 'first contentful paint' },
  lcp: { field: 'lcpMs', title: 'largest contentful paint' },
  done: { field: 'doneMs', title: 'all requests done' },
});

/** @typedef {keyof typeof pageMetrics} PageMetric */

/**
 * What a page adds to its run: every metric, the bytes, the archive's answers and each origin.
 * @typedef {object} PageRecord
 * @property {number|null} loadMs @property {number|null} fcpMs @property {number|null} lcpMs @property {number|null} doneMs
 * @property {number} bytes  encoded bytes the browser received, headers included
 * @property {number} requests  requests the page sent to recorded origins
 * @property {number} misses  of those, the archive held no match for (answered 404 replay-miss)
 * @property {string[]} missed  their first few, 'GET https://…'
 * @property {number} favicons  the browser's own GET /favicon.ico where the recording has none (not a miss)
 * @property {number} reused  connections of the load that had carried an earlier load's requests, as
 *   the servers saw them (a cold load: 0)
 * @property {number} unrecorded  requests to hosts the recording does not hold (resolved to nothing)
 * @property {Array<{ url: string, error: string }>} failed  the first few requests to recorded origins that failed, with Chromium's net error
 * @property {Record<string, import('./load.js').OriginLoad>} origins
 * @property {string|null} error  why the load itself failed (a timeout), null when it loaded
 */

/**
 * @param {object} o
 * @param {import('./load.js').ReplayLoad|null} o.load  null when the load failed (o.error says why)
 * @param {string|null} [o.error]
 * @param {string} o.server @param {number} o.repeat
 * @param {Set<string>} o.recorded  the archive's origins
 * @param {PageMetric} o.metric
 * @param {{ misses: number, missed: string[], favicons: number, reused: number }} o.served  what the replay counted during the load
 * @param {number|null} [o.lossSeed]
 * @param {number} [o.startEpochMs]
 * @returns {import('../../common/report/result.js').RunRecord & { page: PageRecord }}
 */
export function replayRun({ load, error = null, server, repeat, recorded, metric, served, lossSeed = null, startEpochMs }) {
  const seen = load?.records ?? [];
  const ours = seen.filter((r) => recorded.has(r.origin));
  // The records judgeRun reads: a request answered, or failed, over a protocol on a connection (no times).
  const records = ours.map((r, i) => ({ i, startMs: r.startMs ?? 0, ttfbMs: null, endMs: r.endMs, bytes: r.bytes, protocol: r.protocol ?? '', connectionId: null, serverDelayMs: null, error: r.error }));
  const judged = judgeRun(server, records);
  const failed = ours.filter((r) => r.error).slice(0, keptFailures).map((r) => ({ url: r.url, error: /** @type {string} */ (r.error) }));
  // Which request failed, and how, in the reason itself: a load is judged by it.
  for (const reason of judged.invalidReasons) if (reason.code === 'failed' && failed.length) reason.text += ` (${failed.map((f) => `${f.url}: ${f.error}`).join('; ')})`;
  const time = load ? load[pageMetrics[metric].field] : null;
  const reasons = [
    ...(load ? [] : [{ code: /** @type {const} */ ('failed'), text: `the page did not load: ${error ?? 'no reason given'}` }]),
    ...judged.invalidReasons,
    ...(load && time == null ? [{ code: /** @type {const} */ ('failed'), text: `the page had no ${pageMetrics[metric].title}` }] : []),
  ];
  return {
    server,
    protocol: judged.protocol,
    repeat,
    totalMs: time ?? 0,
    ...(startEpochMs === undefined ? {} : { startEpochMs }),
    valid: reasons.length === 0,
    invalidReasons: reasons,
    failures: judged.failures,
    connections: load?.connections ?? 0,
    requests: [],
    lossSeed,
    page: {
      loadMs: load?.loadMs ?? null,
      fcpMs: load?.fcpMs ?? null,
      lcpMs: load?.lcpMs ?? null,
      doneMs: load?.doneMs ?? null,
      bytes: load?.bytes ?? 0,
      requests: ours.length,
      misses: served.misses,
      missed: served.missed,
      favicons: served.favicons,
      reused: served.reused,
      unrecorded: seen.length - ours.length,
      failed,
      origins: Object.fromEntries(Object.entries(load?.origins ?? {}).filter(([origin]) => recorded.has(origin))),
      error: load ? null : error,
    },
  };
}
