// Units and number rules every part of the lab shares. Sizes in the lab's URLs and settings are
// MiB (2^20 bytes), as in the classic experiment's `size × 1024 × 1024`.
export const MiB = 1024 * 1024;

/**
 * What a number typed by a person (URL query, form field, command-line flag) may look like: plain
 * decimals only. No sign, exponent, hex, spaces or units, so `0x3`, `1e3` and `-0` are refused
 * rather than read as something the person did not mean.
 */
export const plainDecimalPattern = /^(\d+(\.\d*)?|\.\d+)$/;
export const plainIntegerPattern = /^\d+$/;

// One formatter: making one per call (toLocaleString with options) cost ~50 µs each.
const plain = new Intl.NumberFormat('en-US', { useGrouping: false, maximumFractionDigits: 20 });

/**
 * A number as a plain decimal for a URL: `${5e-7}` prints an exponent, which the servers refuse.
 * @param {number} n
 */
export const plainNumber = (n) => plain.format(n);

// Bounds as people read them: "10,000", "0.5"; never an exponent.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

/**
 * A number's bounds, as every check in the lab declares them.
 * @typedef {object} Range
 * @property {number} min
 * @property {number} max
 * @property {boolean} [integer]  whole numbers only
 * @property {string} [unit]      said after the bounds ("ms")
 */

/**
 * The one range rule, as every message and usage line says it: "an integer from 1 to 10,000",
 * "a number from 0 to 64 MiB".
 * @param {Range} range
 */
export const rangeRule = ({ min, max, integer = false, unit }) =>
  `${integer ? 'an integer' : 'a number'} from ${grouped.format(min)} to ${grouped.format(max)}${unit ? ` ${unit}` : ''}`;

/**
 * True when `value` is a finite number within `range` (whole where it must be).
 * @param {Range} range
 * @param {unknown} value
 * @returns {value is number}
 */
export const inRange = ({ min, max, integer = false }, value) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!integer || Number.isInteger(value));

/**
 * null when `value` keeps the range; else what it must be: "must be an integer from 1 to 50".
 * @param {Range} range
 * @param {unknown} value
 */
export const rangeError = (range, value) => (inRange(range, value) ? null : `must be ${rangeRule(range)}`);
