// A sweep varies one setting over a list of values and runs the whole comparison at each point.
// Values are checked with the same limits as the settings form.
import { presetByName } from './presets.js';
import { labelWithUnit, limits, validateField } from './settings.js';

// The sweepable settings, by the labels the page shows: "Size (MiB)".
export const sweepParams = Object.freeze(Object.fromEntries(limits.sweep.params.map((name) => [name, labelWithUnit(name)])));

const noThrottling = { preset: 'no-throttling', repeats: 10 }; // the classic experiment ran 10 repeats per point

// The classic experiment's grids (docs/classic-experiment.md). `values` is text for planSweep;
// `base` holds every setting the experiment fixed (servers, connections, maxInFlight are the user's).
export const classicSweeps = Object.freeze([
  {
    id: '1', title: 'Classic 1: delay 0–40 ms, 100 requests × 0.1 MiB',
    param: 'delayMs', values: '0, 10, 20, 30, 40', base: { ...noThrottling, requests: 100, sizeMiB: 0.1 },
  },
  {
    id: '2a', title: 'Classic 2a: 6–3,750 requests, 0.1 MiB, delay 10 ms',
    param: 'requests', values: '6, 30, 150, 750, 3750', base: { ...noThrottling, sizeMiB: 0.1, delayMs: 10 },
  },
  {
    id: '2b', title: 'Classic 2b: 6–3,750 requests, 0.1 MiB, delay 30 ms',
    param: 'requests', values: '6, 30, 150, 750, 3750', base: { ...noThrottling, sizeMiB: 0.1, delayMs: 30 },
  },
  {
    id: '3', title: 'Classic 3: 0.2–2 MiB, 30 requests, delay 10 ms',
    param: 'sizeMiB', values: '0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2', base: { ...noThrottling, requests: 30, delayMs: 10 },
  },
  {
    id: '4', title: 'Classic 4: legacy DevTools presets, 30 requests × 0.1 MiB, delay 10 ms',
    param: 'preset', values: 'Regular 2G, Good 2G, Regular 3G, Good 3G, Regular 4G, WiFi',
    base: { repeats: 10, requests: 30, sizeMiB: 0.1, delayMs: 10 },
  },
].map(Object.freeze));

// Labels contain spaces, so presets are split on commas; a piece that is no preset may still be
// several space-separated ids ("wifi dsl").
/** @param {string} text */
function presetTokens(text) {
  return text.split(/[,;]+/).map((s) => s.trim()).filter(Boolean).flatMap((piece) => {
    if (presetByName(piece)) return [piece];
    const words = piece.split(/\s+/);
    return words.every((w) => presetByName(w)) ? words : [piece];
  });
}

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

/**
 * @param {string} param
 * @param {string} token
 * @returns {{ value: number|string, label: string, message?: undefined } | { message: string, value?: undefined, label?: undefined }}
 */
function parseValue(param, token) {
  if (param === 'preset') {
    const preset = presetByName(token);
    return preset
      ? { value: preset.id, label: preset.label }
      : { message: `${JSON.stringify(token)} is not a network preset: give an id (regular-2g) or a label (Regular 2G)` };
  }
  const checked = validateField(param, token);
  return checked.error ? { message: `${JSON.stringify(token)}: ${checked.error.message}` } : { value: checked.value, label: number.format(checked.value) };
}

/**
 * A sweep's points (value: a preset id, or a number for the other settings) and what was wrong.
 * @template {number|string} V
 * @typedef {{ points: { value: V, label: string, settings: import('../report/result.js').Settings }[],
 *   errors: { field: 'sweep', value: string|null, message: string }[] }} SweepPlan
 */

/** @typedef {import('../report/result.js').Settings & { sweep?: import('./settings.js').SweepSetting }} SweepBase */

/**
 * @overload
 * @param {'preset'} param
 * @param {string} valuesText
 * @param {SweepBase} baseSettings
 * @returns {SweepPlan<string>}
 */
/**
 * @overload
 * @param {'requests'|'sizeMiB'|'delayMs'|'loss'} param
 * @param {string} valuesText
 * @param {SweepBase} baseSettings
 * @returns {SweepPlan<number>}
 */
/**
 * @overload
 * @param {string} param  one of sweepParams, else the plan has only an error
 * @param {string} valuesText
 * @param {SweepBase} baseSettings
 * @returns {SweepPlan<number|string>}
 */
/**
 * @param {string} param  'requests', 'sizeMiB', 'delayMs', 'preset' or 'loss' (sweepParams)
 * @param {string} valuesText  comma- or space-separated values ("6, 30, 150"; presets by id or label)
 * @param {SweepBase} baseSettings  valid settings; each point replaces `param` in a copy
 * @returns {SweepPlan<number|string>}
 */
export function planSweep(param, valuesText, baseSettings) {
  /** @type {SweepPlan<number|string>['errors']} */
  const errors = [];
  /** @param {string|null} value @param {string} message */
  const fail = (value, message) => errors.push({ field: 'sweep', value, message });
  if (!(param in sweepParams)) {
    fail(null, `A sweep varies one of ${Object.keys(sweepParams).join(', ')}, not ${JSON.stringify(param)}`);
    return { points: [], errors };
  }
  const tokens = param === 'preset' ? presetTokens(valuesText) : valuesText.split(/[\s,;]+/).filter(Boolean);
  if (tokens.length === 0) fail(null, `Give at least one value for ${sweepParams[param]}`);
  const base = { ...baseSettings };
  delete base.sweep; // a point is one comparison, never a sweep of its own
  /** @type {SweepPlan<number|string>['points']} */
  const points = [];
  for (const token of tokens) {
    const parsed = parseValue(param, token);
    if (parsed.message !== undefined) fail(token, parsed.message);
    else if (!points.some((p) => p.value === parsed.value)) {
      points.push({ value: parsed.value, label: parsed.label, settings: { ...base, servers: [...base.servers], [param]: parsed.value } });
    }
  }
  const { maxPoints } = limits.sweep;
  if (points.length > maxPoints) fail(null, `A sweep has at most ${maxPoints} points; this one has ${points.length}`);
  return { points: points.slice(0, maxPoints), errors };
}
