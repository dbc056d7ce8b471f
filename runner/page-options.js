// The page's set-up as both page commands take it (`npm run page-loads`, `npm run push-lab`):
// the same flags, bounds and defaults as the Page load panel's fields (common/report/page-load.js).
import { readNumber } from '../cli/options.js';
import { pageLoadFields } from '../common/report/page-load.js';
import { rangeRule } from '../common/setup/units.js';

/** @typedef {keyof typeof pageLoadFields} PageField */

/** @type {Record<PageField, string>} */
const flagOf = { assets: 'assets', assetKiB: 'size-kib', thinkMs: 'think-ms', repeats: 'repeats' };
const flags = /** @type {[PageField, string][]} */ (Object.entries(flagOf));

/**
 * readArgs specs of the page flags, with the panel's defaults.
 * @type {Record<string, import('../cli/options.js').OptionSpec>}
 */
export const pageFlagSpec = Object.fromEntries(
  flags.map(([key, flag]) => {
    const f = pageLoadFields[key];
    return [flag, { type: 'string', default: String(f.default), accepts: rangeRule(f) }];
  }),
);

/** Usage lines of the page flags. */
export const pageFlagUsage = flags
  .map(([key, flag]) => {
    const f = pageLoadFields[key];
    return `  --${flag.padEnd(16)} ${f.label}${f.unit ? ` (${f.unit})` : ''}, ${rangeRule({ ...f, unit: undefined })} (default ${f.default})`;
  })
  .join('\n');

/**
 * { assets, assetKiB, thinkMs, repeats } from readArgs values; a bad value throws naming its flag.
 * @param {Record<string, unknown>} values
 * @returns {Record<PageField, number>}
 */
export function readPageFields(values) {
  return /** @type {Record<PageField, number>} */ (Object.fromEntries(flags.map(([key, flag]) => [key, readNumber(flag, values[flag], pageLoadFields[key])])));
}
