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

/** A number as a plain decimal for a URL: `${5e-7}` prints an exponent, which the servers refuse. */
export const plainNumber = (n) => plain.format(n);
