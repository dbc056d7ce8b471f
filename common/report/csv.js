// CSV exports of a result (RFC 4180: CRLF, fields with commas, quotes or line breaks quoted), one
// row per request for a spreadsheet or R/pandas, one row per server for the summary, and one row
// per connection a capture saw.
import Papa from 'papaparse';
import { runConnections } from './connections.js';
import { networkOf } from '../setup/networks.js';
import { baselineOf, baselinesOf, inServerOrder, serverById } from '../setup/servers.js';
import { verdictLevel } from '../stats/stats.js';

// Results from before the lab link were all throttled (if at all) by DevTools.
/** @param {{ network?: string }} settings */
const networkIdOf = (settings) => networkOf(settings.network).id;
// Three decimals are microseconds: finer digits are timer noise, not data.
/** @param {number|null|undefined} x */
const num = (x) => (x === null || x === undefined ? null : Math.round(x * 1000) / 1000);
// Every record ends with CRLF, the last one too (papaparse ends a header-only file so, not others).
/**
 * @param {string[]} fields
 * @param {unknown[][]} data  rows of cells
 * @returns {string}
 */
export function csv(fields, data) {
  const text = Papa.unparse({ fields, data }, { newline: '\r\n' });
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

export const requestFields = [
  'run_id', 'preset', 'network', 'server', 'protocol', 'repeat', 'request', 'start_ms', 'ttfb_ms', 'end_ms', 'bytes', 'connection_id', 'client_port', 'error', 'loss_seed',
];

/** @param {import('./result.js').Result} result */
export const requestRows = (result) =>
  result.runs.flatMap((run) => run.requests.map((r) => [
    result.id, result.settings.preset, networkIdOf(result.settings), run.server, r.protocol, run.repeat, r.i,
    num(r.startMs), num(r.ttfbMs), num(r.endMs), r.bytes, r.connectionId, r.clientPort ?? null, r.error, run.lossSeed ?? null,
  ]));

/** @param {import('./result.js').Result} result */
export const requestsCsv = (result) => csv(requestFields, requestRows(result));

export const connectionFields = [
  'run_id', 'preset', 'network', 'server', 'repeat', 'transport', 'client_port', 'server_port', 'requests',
  'handshake_start_ms', 'handshake_reply_ms', 'handshake_done_ms', 'first_ms', 'last_ms',
  'packets_down', 'packets_up', 'bytes_down', 'bytes_up', 'lost_down', 'lost_up', 'queue_dropped_down', 'queue_dropped_up',
  'resent_down', 'resent_up', 'longest_stall_ms', 'tls_resumed', 'zero_rtt', 'capture_error',
];

/**
 * One row per connection of every run's capture (common/report/connections.js), times on the run's clock.
 * @param {import('./result.js').Result} result
 */
export function connectionRows(result) {
  return result.runs.flatMap((run) => runConnections(run).map((row) => {
    const r = row.record;
    return [
      result.id, result.settings.preset, networkIdOf(result.settings), run.server, run.repeat, r.transport, r.clientPort, r.serverPort, row.requests.length,
      num(row.handshake?.startMs ?? null), num(row.handshake?.replyMs ?? null), num(row.handshake?.doneMs ?? null), num(r.firstMs + row.offsetMs), num(r.lastMs + row.offsetMs),
      r.packets.down, r.packets.up, r.bytes.down, r.bytes.up, r.dropped.loss.down, r.dropped.loss.up, r.dropped.queue.down, r.dropped.queue.up,
      r.retransmissions?.down ?? null, r.retransmissions?.up ?? null, num(r.longestStallMs), r.netlog?.resumed ?? null, r.netlog?.zeroRtt ?? null,
      run.capture?.connections?.error ?? null,
    ];
  }));
}

/** @param {import('./result.js').Result} result */
export const connectionsCsv = (result) => csv(connectionFields, connectionRows(result));

export const summaryFields = [
  'server', 'n', 'median_ms', 'mean_ms', 'p95_ms', 'min_ms', 'max_ms', 'sd_ms', 'ci95_lo_ms', 'ci95_hi_ms', 'ci_level',
  'ratio_to_h1', 'ratio_ci95_lo', 'ratio_ci95_hi', 'ratio_ci_level', 'verdict', 'failures', 'invalid_runs', 'server_cpu_ms', 'connections_per_run',
  'ratio_to_h2', 'ratio_to_h2_ci95_lo', 'ratio_to_h2_ci95_hi', 'ratio_to_h2_ci_level', 'verdict_to_h2',
  'ratio_pairs', 'ratio_to_h2_pairs',
  // The point's: repeats run, and with repeats until decided the cap and why it stopped; the
  // level each verdict needed (0.95 for one comparison alone, more for each of several across the
  // experiment and at a look of several: common/stats/family.js), and the comparisons of the
  // experiment its verdicts keep 5 % false verdicts across (empty in results from before).
  'repeats', 'max_repeats', 'stopped_by', 'verdict_level_required', 'verdict_to_h2_level_required', 'verdict_scope_comparisons',
  // What each comparison's runs could have found with 80 % power at its level required: a ratio
  // below _lo (faster) or above _hi (slower) (common/stats/detectable.js); empty where the runs cannot
  // reach that level at any difference, without an interval, and in results from before.
  'detectable_ratio_lo', 'detectable_ratio_hi', 'detectable_ratio_to_h2_lo', 'detectable_ratio_to_h2_hi',
];

/**
 * One row per server that ran, in the registry's order. ratio_to_h1 compares with the server's family's
 * HTTP/1.1 server (an A/A control's row: with the server it measures again) and ratio_to_h2 (HTTP/3 only) with the family's HTTP/2 server; ratio cells are
 * empty where there is no such comparison, interval cells where there is no interval. ratio_pairs
 * and ratio_to_h2_pairs: the pairs a paired comparison used (common/stats/stats.js comparePaired), empty
 * for an unpaired one. requests.csv's loss_seed: the run's loss seed, empty on a path without loss.
 * @param {import('./result.js').Result} result
 */
export function summaryRows(result) {
  const ran = new Set(result.runs.map((run) => run.server));
  return inServerOrder(new Set([...ran, ...Object.keys(result.summary)])).map((server) => {
    /** @type {Partial<import('./result.js').ServerSummary>} */
    const s = result.summary[server] ?? {};
    /** @param {string|null} baseline @returns {Partial<import('./result.js').Comparison>} */
    const versus = (baseline) => result.comparisons.find((x) => x.server === server && x.baseline === baseline) ?? {};
    const c = versus(baselineOf(server));
    /** @type {Partial<import('./result.js').Comparison>} */
    const h2 = serverById(server)?.protocol === 'h3' ? versus(baselinesOf(server)[1]) : {};
    const runs = result.runs.filter((run) => run.server === server);
    return [
      server, s.n ?? 0, num(s.median), num(s.mean), num(s.p95), num(s.min), num(s.max), num(s.sd), num(s.ci95?.[0]), num(s.ci95?.[1]), num(s.ciLevel),
      num(c.ratio), num(c.ci95?.[0]), num(c.ci95?.[1]), num(c.ciLevel), c.verdict ?? null,
      runs.reduce((sum, run) => sum + run.failures, 0), runs.filter((run) => !run.valid).length, num(s.serverCpuMs), s.connectionsPerRun ?? null,
      num(h2.ratio), num(h2.ci95?.[0]), num(h2.ci95?.[1]), num(h2.ciLevel), h2.verdict ?? null,
      c.pairs ?? null, h2.pairs ?? null,
      result.settings.repeats ?? null, result.untilDecided?.maxRepeats ?? null, result.untilDecided?.stoppedBy ?? null, num(c.requiredLevel ?? result.untilDecided?.requiredLevel ?? verdictLevel),
      h2.verdict ? num(h2.requiredLevel ?? verdictLevel) : null, result.family?.comparisons ?? null,
      num(c.detectable?.[0]), num(c.detectable?.[1]), num(h2.detectable?.[0]), num(h2.detectable?.[1]),
    ];
  });
}

export const networkComparisonFields = ['experiment', 'condition', 'server', 'network', 'versus', 'median_ms', 'versus_median_ms', 'ratio', 'ratio_ci95_lo', 'ratio_ci95_hi', 'ratio_ci_level', 'verdict'];

/**
 * networks.csv (browsers.csv): one row per condition, server and pair of networks (browsers) of
 * common/report/network-comparison.js compareNetworks (compareBrowsers); ratio = the network's median /
 * the versus network's. `side` names the column of what differs.
 * @param {import('./network-comparison.js').NetworkComparison[]} compared
 * @param {'network'|'browser'} [side]
 */
export const networkComparisonCsv = (compared, side = 'network') =>
  csv(networkComparisonFields.map((f) => (f === 'network' ? side : f)), compared.flatMap((c) => c.rows.flatMap((r) => r.ratios.map((x) => [
    c.baseId, r.label, r.server, x.over, x.under, num(r.medians[x.over]), num(r.medians[x.under]), num(x.ratio), num(x.ci95?.[0]), num(x.ci95?.[1]), num(x.ciLevel), x.verdict,
  ]))));

const pageLoadFields = [
  'server', 'preset', 'network', 'mode', 'repeat', 'load_ms', 'document_headers_ms', 'hint_103_ms', 'hint_acted_on', 'assets_end_ms', 'early_hint_assets', 'assets_requested_early', 'early_lead_ms', 'protocol', 'pushes_sent', 'pushes_refused',
];

/**
 * One row per page load of the Page load panel.
 * @param {import('./result.js').PageLoadResult} result
 */
export const pageLoadsCsv = (result) =>
  csv(pageLoadFields, result.loads.map((l) => [
    result.settings.server, result.settings.preset ?? '', networkIdOf(result.settings), l.mode, l.repeat, num(l.loadMs), num(l.documentHeadersMs), num(l.hint103Ms), l.hintActedOn ?? null, num(l.assetsEndMs),
    l.earlyHintAssets, l.assetsRequestedEarly, num(l.earlyLeadMs), l.protocol, l.pushesSent, l.pushesRefused,
  ]));
