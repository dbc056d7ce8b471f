// Defaults, limits and URL state of the lab's controls: the one place that says what a valid
// set-up is. Bad values are reported, never clamped, so a run is always what the user asked for.
import { defaultNetworkId, networkById, networkIds } from './networks.js';
import { pathBounds } from './path-limits.js';
import { drawSeed } from './seeds.js';
import { cannotCarry, carries, defaultPresetId, presets } from './presets.js';
import { defaultServerCaps } from './server-caps.js';
import { serverIds, servers } from './servers.js';
import { oneOfText } from './text.js';
import { plainDecimalPattern, rangeError } from './units.js';

// Repeats until decided (common/stats/until-decided.js): its rounds, and the bounds of its fields.
export const untilDecided = Object.freeze({
  // 4 runs a side are the fewest whose ratio interval reaches 97 % (1 − 2/70); 3 reach 90 %, so a
  // first look at 3 could never decide.
  firstRoundRepeats: 4,
  // Later rounds add 4 too: fewer looks share the error rate than with rounds of 2, so each look
  // needs less and finds more (simulated, cap 20, one server 20 % faster with a 20 % skewed
  // spread: found 61 % against 55 %), at about the same repeats on average (15.2 against 15.6;
  // docs/statistics.md); an even round keeps the alternating server order balanced (A B, B A).
  roundRepeats: 4,
  // The cap's bounds: a whole first round at least; at most the lab's most repeats (settings.js).
  maxRepeats: Object.freeze({ min: 4, max: 100, integer: true }),
  // The whole command's wall time: under a second no round finishes; past a week a run should be
  // sharded rather than wait (runner/plan.js).
  budgetSeconds: Object.freeze({ min: 1, max: 7 * 24 * 3600, integer: true }),
  // The difference a person may aim at, in % of the baseline's time: below 1 % is inside the
  // lab's ±2 % margin and no run could find it (the detectable ratio starts at the margin), and
  // beyond 50 % (twice or half the time) the first round settles it anyway.
  aimPercent: Object.freeze({ min: 1, max: 50, integer: true }),
});

/**
 * The servers' caps on size, delay and a page's assets: their defaults until adoptServerLimits()
 * puts in those of the running lab, so the forms refuse what the servers would refuse and allow
 * what they allow.
 * @type {import('./server-caps.js').ServerCaps}
 */
export const serverCaps = { ...defaultServerCaps };

/** @param {Partial<import('./server-caps.js').ServerCaps>} labLimits `limits` of /api/servers */
export function adoptServerLimits(labLimits = {}) {
  for (const key of /** @type {(keyof import('./server-caps.js').ServerCaps)[]} */ (Object.keys(serverCaps))) {
    if (Number.isFinite(labLimits[key])) serverCaps[key] = /** @type {number} */ (labLimits[key]);
  }
}

/**
 * Every setting of a run, declared once: its option of `npm run experiments` (flag), its key in
 * the page's URL (query), its label on the page and in messages, its unit, its bounds (min, max,
 * integer: common/setup/units.js rangeRule) or choices (oneOf), and its default. The usage text, the
 * form, the URL and flag parsers and the checks below all read it.
 */
export const fields = Object.freeze({
  requests: declare({ flag: 'requests', query: 'requests', label: 'Requests', default: 100, min: 1, max: 10_000, integer: true }),
  sizeMiB: declare({ flag: 'size', query: 'size', label: 'Size', unit: 'MiB', default: 0.1, min: 0, get max() { return serverCaps.maxSizeMiB; } }),
  delayMs: declare({ flag: 'delay', query: 'delay', label: 'Delay', unit: 'ms', default: 10, min: 0, get max() { return serverCaps.maxDelayMs; } }),
  repeats: declare({ flag: 'repeats', query: 'repeats', label: 'Repeats', default: 10, min: 1, max: 100, integer: true }),
  maxInFlight: declare({
    flag: 'max-in-flight',
    query: 'maxInFlight',
    label: 'Max in flight',
    default: 600,
    min: 1,
    max: 10_000,
    integer: true,
    why:
      'Chromium fails outstanding requests beyond roughly 1,000–2,000 per page with ' +
      'net::ERR_INSUFFICIENT_RESOURCES (1,000 × 0.1 MiB all succeeded, 2,000 lost about 650). ' +
      '600 leaves a margin and still keeps every HTTP/2 stream slot (100) and all six HTTP/1.1 connections busy.',
  }),
  servers: declare({ flag: 'servers', query: 'servers', label: 'Servers', default: Object.freeze(servers.filter((s) => s.byDefault !== false).map((s) => s.id)), oneOf: serverIds, minCount: 1 }),
  // The A/A control (common/setup/servers.js controlIdOf): one of the chosen servers, measured a second
  // time in every repeat; '' for none.
  control: declare({ flag: 'control', query: 'control', label: 'A/A control', default: '', oneOf: ['', ...serverIds] }),
  connections: declare({ flag: 'connections', query: 'connections', label: 'Connections', default: 'cold', oneOf: ['cold', 'warm'] }),
  preset: declare({ flag: 'preset', query: 'preset', label: 'Network preset', default: defaultPresetId, oneOf: presets.map((p) => p.id) }),
  // Who applies the preset (common/setup/networks.js): DevTools in the browser (request-level), the lab
  // link (connection-level, below TLS) or the packet network (real TCP and QUIC on an emulated path).
  network: declare({ flag: 'network', query: 'network', label: 'Throttled by', default: defaultNetworkId, oneOf: networkIds }),
  // Packets lost per direction, in %: only a network that carries loss loses packets.
  loss: declare({ flag: 'loss', query: 'loss', label: 'Loss', unit: '%', default: 0, min: 0, max: pathBounds.maxLossPercent }),
  // Where a lossy path's losses start: repeat i of every server draws from a seed made of this, i
  // and the loss model (common/setup/seeds.js). No default: an experiment nobody gave one draws a fresh
  // one (withLossSeed; the runner's args.js) and records it, so experiments lose independent
  // packets and any one of them can be drawn again.
  lossSeed: declare({
    flag: 'loss-seed',
    query: 'lossSeed',
    label: 'Loss seed',
    default: undefined,
    min: 0,
    max: pathBounds.maxLossSeed,
    integer: true,
    why:
      'On a lossy path, repeat i of every server loses packets from the same seed, made of this base seed, i and the ' +
      'loss rate, so the servers are compared run against run under the same losses (paired). Left empty, each run ' +
      'draws a fresh base seed and shows it with the results; give that one to draw the same losses again.',
  }),
});

/**
 * One setting's declaration (see `fields`).
 * @typedef {object} Field
 * @property {string} flag
 * @property {string} query
 * @property {string} label
 * @property {string} [unit]
 * @property {number|string|readonly string[]|undefined} default  undefined: none (lossSeed: drawn per experiment)
 * @property {number} [min]
 * @property {number} [max]
 * @property {boolean} [integer]
 * @property {readonly string[]} [oneOf]
 * @property {number} [minCount]
 * @property {string} [why]
 */

/** @typedef {keyof typeof fields} FieldName */

/** A sweep as settings carry it: the setting it varies and its values as the person typed them. @typedef {{ param: string, values: string }} SweepSetting */

/**
 * Repeats until decided (common/stats/until-decided.js): given, the run goes in rounds up to this cap
 * instead of running `repeats`; absent, it runs `repeats`. Not one of `fields`, which every run
 * has: like the sweep, a way of running. Its bounds are the procedure's; the form offers 20, the
 * cap at which docs/statistics.md simulates it.
 */
export const maxRepeatsField = Object.freeze({ query: 'maxRepeats', label: 'Until decided, at most', unit: 'repeats', default: 20, ...untilDecided.maxRepeats });

/**
 * With repeats until decided, the difference worth finding: a point also stops once its open
 * verdicts could have found it (common/stats/until-decided.js stopReason). Optional, so no default: the
 * form leaves it empty, a run without it runs until decided or the cap.
 */
export const aimPercentField = Object.freeze({ query: 'aim', label: 'Aim (difference to find)', unit: '%', ...untilDecided.aimPercent });

/** @typedef {{ field: string, message: string }} SettingError */

/**
 * Keeps each declaration's own shape (its default's type, its bounds or choices).
 * @template {Field} T
 * @param {T} declared
 * @returns {Readonly<T>}
 */
function declare(declared) {
  // The lists too: callers read them (networkOrder, the flags' texts) and must not reorder them;
  // but the networks', which the registry grows (networks.js registerNetwork) and alone writes.
  if (declared.oneOf && declared.oneOf !== networkIds) Object.freeze(declared.oneOf);
  return Object.freeze(declared);
}

/**
 * Whether the lab sets the network itself (the lab link, the packet network), not DevTools.
 * @param {string} network
 */
export const labSetsNetwork = (network) => Boolean(networkById(network)?.labSets);

// `fields` by a name from outside (a URL, a flag, a file), which may be none of them.
const fieldByName = /** @type {Readonly<Record<string, Readonly<Field>|undefined>>} */ (fields);

/**
 * The fields that are numbers within bounds (the others are choices).
 * @param {string} name
 */
const isNumberField = (name) => fieldByName[name] !== undefined && 'min' in fieldByName[name];

/**
 * A field's label with its unit, as the page's form and charts show it: "Size (MiB)".
 * @param {string} name  one of `fields`
 */
export const labelWithUnit = (name) => {
  const { label, unit } = /** @type {Readonly<Field>} */ (fieldByName[name]);
  return `${label}${unit ? ` (${unit})` : ''}`;
};

/** Each setting's default. */
export const defaults = /** @type {Readonly<import('../report/result.js').Settings & { loss: number }>} */ (
  Object.freeze(Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.default])))
);

/**
 * The settings with the base seed of their losses, on a network that carries loss: the one given,
 * or a fresh one (common/setup/seeds.js drawSeed) that the result records. Once per experiment, so the
 * points of a sweep and the rounds of a point share it.
 * @template {{ network: string, lossSeed?: number }} S
 * @param {S} settings
 * @returns {S}
 */
export const withLossSeed = (settings) =>
  settings.lossSeed !== undefined || !networkById(settings.network)?.carries.loss ? settings : { ...settings, lossSeed: drawSeed(fields.lossSeed) };

export const limits = Object.freeze({
  ...fields,
  sweep: { params: ['requests', 'sizeMiB', 'delayMs', 'preset', 'loss'], maxPoints: 20 },
  // Bodies in flight are held by the browser until collected; past about a GiB a run measures
  // the browser's memory, and failures would be the page's doing, not the servers'.
  inFlightMiB: { max: 1024 },
  // No request can hang a run (client/lab/stall-watch.js): once none of a run's requests has
  // made progress (headers, a piece of a body, a body's end) for `ms` beyond the server delay the
  // run asks for, those still open fail with reason `timeout`. Progress is the run's, not each
  // request's: a request queued behind others (six HTTP/1.1 connections, 600 streams sharing
  // GPRS) legitimately waits minutes for its turn. The slowest legitimate gap is at GPRS (6,400
  // B/s, 500 ms), the slowest preset. Measured there: under DevTools, 0.7 s to the first headers,
  // then 1,500-byte packets at most 1.4 s apart; through the lab link 3.5 s to the first piece
  // (handshakes), then TLS records of up to 16 KiB (2.6 s each) interleaved across connections:
  // 2.7 s apart on one HTTP/2 connection, 5.2 s with two HTTP/1.1 connections, so about 15 s
  // with all six. 45 s is three times that, and under the servers' idle timeout (60 s), so a
  // response cut off mid-way fails as a timeout rather than at its connection's close.
  // Bodies are read whole (as Blobs: no JavaScript turn per piece, see engine.js, so only their
  // end is seen) while the bytes in flight take under `wholeBodiesMs` at the measured rate, a
  // tenth of `ms`; piece by piece otherwise.
  stall: { ms: 45_000, wholeBodiesMs: 4_500 },
});

const thousands = new Intl.NumberFormat('en-US');

const messages = {
  servers: `Servers must be one or more of ${serverIds.join(', ')}`,
  control: `A/A control must be one of the chosen servers (${serverIds.join(', ')}), or empty for none`,
  connections: 'Connections must be cold or warm',
  preset: `Preset must be one of ${limits.preset.oneOf.join(', ')}`,
  network: `Network must be ${oneOfText(fields.network.oneOf)}`,
  sweep: `Sweep must name one of ${limits.sweep.params.join(', ')} and give its values as text`,
};

/** @param {unknown} raw */
function toNumber(raw) {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && plainDecimalPattern.test(raw.trim())) return Number(raw.trim());
  return NaN;
}

/**
 * Checks one field of the settings (not sweep).
 * @param {string} field
 * @param {unknown} raw  as given: text, a number, a list of server ids
 * @returns {{ value: any, error?: undefined } | { error: SettingError, value?: undefined }}
 *   value: any, since its type is the field's (a number, a choice, server ids)
 */
export function validateField(field, raw) {
  /** @param {string} message */
  const fail = (message) => ({ error: { field, message } });
  if (isNumberField(field)) {
    const value = toNumber(raw);
    const declared = /** @type {Field & import('./units.js').Range} */ (fieldByName[field]); // isNumberField: it has bounds
    const error = rangeError(declared, value);
    return error ? fail(`${declared.label} ${error}`) : { value };
  }
  if (field === 'servers') {
    const given = Array.isArray(raw) ? raw : [];
    const ok = given.length > 0 && given.every((id) => serverIds.includes(id));
    // Always in the canonical order, so equal sets give equal settings and URLs.
    return ok ? { value: serverIds.filter((id) => given.includes(id)) } : fail(messages.servers);
  }
  if (field === 'control' || field === 'connections' || field === 'preset' || field === 'network') {
    return limits[field].oneOf.includes(/** @type {string} */ (raw)) ? { value: raw } : fail(messages[field]);
  }
  throw new RangeError(`unknown settings field ${field}`);
}

/** @param {any} raw  what a URL, a flag or a file gave: anything, checked here */
function validateSweep(raw) {
  const ok = raw && limits.sweep.params.includes(raw.param) && typeof raw.values === 'string';
  return ok ? { value: { param: raw.param, values: raw.values } } : { error: { field: 'sweep', message: messages.sweep } };
}

/** @param {unknown} raw */
function validateMaxRepeats(raw) {
  const value = toNumber(raw);
  const error = rangeError(maxRepeatsField, value);
  return error ? { error: { field: 'maxRepeats', message: `${maxRepeatsField.label} ${error} (the first round alone runs ${untilDecided.firstRoundRepeats})` } } : { value };
}

/** @param {unknown} raw */
function validateAimPercent(raw) {
  const value = toNumber(raw);
  const error = rangeError(aimPercentField, value);
  return error ? { error: { field: 'aimPercent', message: `${aimPercentField.label} ${error}` } } : { value };
}

/**
 * Fields that are missing take their defaults; fields that are bad are reported and take their
 * defaults too, so `settings` is always complete (use it only when errors is empty).
 * @param {any} obj  what a URL, flags or a file gave: anything, checked here
 * @returns {{ settings: import('../report/result.js').Settings & { sweep?: SweepSetting }, errors: SettingError[] }}
 */
export function validateSettings(obj) {
  /** @type {import('../report/result.js').Settings & { sweep?: SweepSetting }} */
  const settings = { ...defaults, servers: [...defaults.servers] };
  /** @type {SettingError[]} */
  const errors = [];
  /** @param {string} field @param {{ value?: unknown, error?: SettingError }} result */
  const take = (field, result) => (result.error ? errors.push(result.error) : (/** @type {Record<string, unknown>} */ (settings)[field] = result.value));
  for (const field of Object.keys(defaults)) {
    if (obj?.[field] !== undefined) take(field, validateField(field, obj[field]));
  }
  if (obj?.sweep != null) take('sweep', validateSweep(obj.sweep));
  if (obj?.maxRepeats != null) take('maxRepeats', validateMaxRepeats(obj.maxRepeats));
  if (obj?.aimPercent != null && obj?.maxRepeats == null) errors.push({ field: 'aimPercent', message: `${aimPercentField.label} only with Until decided, which it stops` });
  else if (obj?.aimPercent != null) take('aimPercent', validateAimPercent(obj.aimPercent));
  const inFlightMiB = Math.min(settings.maxInFlight, settings.requests) * settings.sizeMiB;
  if (settings.control && !settings.servers.includes(settings.control)) {
    errors.push({ field: 'control', message: `A/A control must be one of the chosen servers (${settings.servers.join(', ')}), not ${settings.control}` });
  }
  if (!carries(settings.network, settings.preset)) errors.push({ field: 'preset', message: cannotCarry(settings.network) });
  if (!errors.length && inFlightMiB > limits.inFlightMiB.max) {
    errors.push({
      field: 'maxInFlight',
      message: `Max in flight × Size must stay within ${thousands.format(limits.inFlightMiB.max)} MiB in flight (now ${thousands.format(inFlightMiB)} MiB): lower one of them`,
    });
  }
  return { settings, errors };
}

const queryKeys = Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, f.query]));

/** @param {unknown} a @param {unknown} b  a setting's values: numbers, choices or lists of server ids */
const sameValue = (a, b) => (Array.isArray(a) ? a.join(',') === /** @type {string[]} */ (b).join(',') : a === b);

/**
 * URL query (without '?') holding only what differs from the defaults, and the sweep when given.
 * @param {Partial<import('../report/result.js').Settings> & { sweep?: SweepSetting }} settings
 */
export function settingsToQuery(settings) {
  const query = new URLSearchParams();
  for (const [field, key] of Object.entries(queryKeys)) {
    const value = /** @type {Record<string, unknown>} */ (settings)[field];
    if (value !== undefined && !sameValue(value, /** @type {Record<string, unknown>} */ (defaults)[field])) query.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  if (settings.sweep) {
    query.set('sweep', settings.sweep.param);
    query.set('sweepValues', settings.sweep.values);
  }
  if (settings.maxRepeats != null) query.set(maxRepeatsField.query, String(settings.maxRepeats));
  if (settings.aimPercent != null) query.set(aimPercentField.query, String(settings.aimPercent));
  return query.toString();
}

/**
 * Settings from a URL query ('?a=b…', 'a=b…' or URLSearchParams). Unknown keys are ignored; a bad
 * or repeated key is reported and its field keeps the default.
 * @param {string|URLSearchParams} search
 */
export function settingsFromQuery(search) {
  const query = new URLSearchParams(search);
  /** @type {Record<string, unknown>} */
  const raw = {};
  /** @type {SettingError[]} */
  const errors = [];
  /** @param {string} key @param {string} field */
  const single = (key, field) => {
    const all = query.getAll(key);
    if (all.length > 1) errors.push({ field, message: `${key} is given ${all.length} times in the link; give it once` });
    return all.length === 1 ? all[0] : undefined;
  };
  for (const [field, key] of Object.entries(queryKeys)) {
    const value = single(key, field);
    if (value !== undefined) raw[field] = field === 'servers' ? value.split(',').map((s) => s.trim()) : value;
  }
  const sweepParam = single('sweep', 'sweep');
  const sweepValues = single('sweepValues', 'sweep');
  if (sweepParam !== undefined) raw.sweep = { param: sweepParam, values: sweepValues ?? '' };
  else if (sweepValues !== undefined) errors.push({ field: 'sweep', message: 'sweepValues needs sweep' });
  raw.maxRepeats = single(maxRepeatsField.query, 'maxRepeats');
  raw.aimPercent = single(aimPercentField.query, 'aimPercent');
  const validated = validateSettings(raw);
  return { settings: validated.settings, errors: [...errors, ...validated.errors] };
}
