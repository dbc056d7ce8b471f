// When a run counts: the one place that decides it, for the page (its own records) and the
// runner (what DevTools saw of the same requests). An invalid run is left out of the statistics,
// since its total would time something other than the experiment; it stays in the result with
// its reasons, and its failures stay counted.
import { serverById } from '../setup/servers.js';

/**
 * @typedef {object} InvalidReason
 * @property {'failed'|'wrong-protocol'|'unknown-protocol'|'devtools-disagrees'|'network-mismatch'} code  failed: a
 *   request failed or its body had the wrong length; wrong-protocol: a request negotiated another
 *   protocol than its server promises; unknown-protocol: a request has no Resource Timing entry;
 *   devtools-disagrees: the runner's cross-check saw another protocol, connection or no request;
 *   network-mismatch: the runner's calibration did not measure the point's preset (runner/commands/experiments.js)
 * @property {string} text  one sentence for people
 */

/**
 * The page's verdict on a run's requests: its protocol (the one most requests negotiated),
 * failures, distinct connections and the reasons it is invalid.
 * @param {string} serverId
 * @param {import('../report/result.js').RequestRecord[]} records
 */
export function judgeRun(serverId, records) {
  const promised = /** @type {import('../setup/servers.js').ServerEntry} */ (serverById(serverId)).protocol; // runs are of the registry's servers
  const succeeded = records.filter((r) => !r.error);
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const r of succeeded) counts.set(r.protocol, (counts.get(r.protocol) ?? 0) + 1);
  const protocol = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
  const wrong = succeeded.filter((r) => r.protocol !== promised);
  const unknown = wrong.filter((r) => r.protocol === '').length;
  const failed = records.length - succeeded.length;
  const of = `of ${records.length} requests`;
  /** @type {InvalidReason[]} */
  const reasons = [];
  if (failed) reasons.push({ code: 'failed', text: `${failed} ${of} failed` });
  if (wrong.length > unknown) {
    const seen = [...new Set(wrong.map((r) => r.protocol).filter(Boolean))].join(', ');
    reasons.push({ code: 'wrong-protocol', text: `${wrong.length - unknown} ${of} negotiated ${seen}, not ${promised}` });
  }
  if (unknown) reasons.push({ code: 'unknown-protocol', text: `${unknown} ${of} have no Resource Timing entry, so their protocol is unknown` });
  return {
    protocol,
    valid: reasons.length === 0,
    invalidReasons: reasons,
    failures: failed,
    connections: new Set(succeeded.map((r) => r.connectionId).filter((c) => c !== null)).size,
  };
}

/**
 * Marks a run invalid for one more reason (the cross-check's); returns true if it was valid until now.
 * @param {import('../report/result.js').RunRecord} run
 * @param {InvalidReason['code']} code
 * @param {string} text
 */
export function invalidate(run, code, text) {
  const wasValid = run.valid;
  run.invalidReasons = [...run.invalidReasons, { code, text }];
  run.valid = false;
  return wasValid;
}

/**
 * The reasons as one line for tables, captions and messages ('' for a valid run).
 * @param {{ invalidReasons: InvalidReason[] }} run
 */
export const invalidText = (run) => run.invalidReasons.map((r) => r.text).join('; ');
