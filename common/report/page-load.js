// The Page load experiment's modes, fields and statistics: what the panel, its exports and
// `npm run page-loads` share. The loads themselves run in the browser (client/lab/page-load.js).
import { median } from 'simple-statistics';
import { limits, serverCaps } from '../setup/settings.js';
import { compare, summarize } from '../stats/stats.js';
import { rangeError } from '../setup/units.js';

export const pageLoadModes = ['requested', 'preload', 'push', 'hints'];
// Node's own HTTP/2: it sends 103 and can push, and has no spdy quirks.
export const pageLoadDefaultServer = 'h2-node';
/** @type {Record<string, string>} */
export const pageLoadLabels = { requested: 'Requested', preload: 'Preload', push: 'Push', hints: 'Early Hints' };

/**
 * The panel's numeric fields, shared by its form and `npm run page-loads`. The bounds are the
 * servers' caps (settings.js serverCaps): assets a page, body size, think time.
 * @type {Readonly<Record<'assets'|'assetKiB'|'thinkMs'|'repeats', import('../setup/units.js').Range & { label: string, default: number }>>}
 */
export const pageLoadFields = Object.freeze({
  assets: { label: 'Assets', default: 1, min: 1, get max() { return serverCaps.maxAssets; }, integer: true },
  assetKiB: { label: 'Asset size', unit: 'KiB', default: 290, min: 0, get max() { return serverCaps.maxSizeMiB * 1024; } },
  thinkMs: { label: 'Think time', unit: 'ms', default: 300, min: 0, get max() { return serverCaps.maxDelayMs; } },
  repeats: { label: 'Repeats', default: 10, min: limits.repeats.min, max: limits.repeats.max, integer: true },
});

/**
 * "must be an integer from 1 to 50" when `value` breaks the field's rule, else null.
 * @param {keyof typeof pageLoadFields} name
 * @param {unknown} value
 */
export const pageLoadFieldError = (name, value) => rangeError(pageLoadFields[name], value);

/**
 * Per mode: load time statistics, and each mode against Requested with its interval.
 * @param {import('./result.js').PageLoad[]} loads
 * @param {string[]} modes
 * @returns {import('./result.js').PageLoadRow[]}
 */
export function summarizeLoads(loads, modes) {
  /** @param {string} mode */
  const times = (mode) => loads.filter((l) => l.mode === mode).map((l) => l.loadMs);
  return modes.map((mode) => {
    const of = loads.filter((l) => l.mode === mode);
    // A load that requested assets early has the lead of the first (client/lab/page-load.js).
    const leads = of.filter((l) => (l.assetsRequestedEarly ?? 0) > 0).map((l) => /** @type {number} */ (l.earlyLeadMs));
    // A Push mode in which nothing was pushed loaded plain pages: its time is no push time.
    const noPushes = mode === 'push' && of.length > 0 && of.every((l) => l.pushesSent === 0);
    const refusedAll = noPushes && of.every((l) => l.pushesRefused > 0);
    /** @type {import('./result.js').PageLoadRow} */
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
