// The path's conditions, and the one check of what a client asks for (PUT /api/networks/<id>),
// for the lab link and the packet network alike. A preset means the same numbers as in DevTools
// (common/setup/presets.js): its latency is the round trip, half of it each way, and its rates are
// bytes per second. A direction's rate may instead come from a trace (trace.js, named from the
// lab's library, traces.js); the preset then still gives the round trip, and with no preset there
// is no added delay unless rttMs says so. Each network carries what its registry entry says
// (common/setup/networks.js): a preset only where carries() allows it, loss only where packets can be lost.
import { InputError } from '../../common/setup/errors.js';
import { networkById } from '../../common/setup/networks.js';
import { burstBounds, pathBounds } from '../../common/setup/path-limits.js';
import { cannotCarry, carries, presetById, presets } from '../../common/setup/presets.js';
import { inRange, rangeRule } from '../../common/setup/units.js';
import { queueNames } from './queue.js';
import { traceSummary } from './trace.js';

/**
 * @typedef {object} PathConditions
 * @property {string|null} preset  the preset id, or null for conditions given as numbers
 * @property {number} rttMs        round trip, half each way
 * @property {number} downloadBps  server → browser, bytes per second; −1 = not limited
 * @property {number} uploadBps    browser → server, bytes per second; −1 = not limited
 * @property {number} queueBytes   the queue's limit per direction
 * @property {boolean} queueDefault  true when queueBytes is the default (one bandwidth-delay product)
 * @property {number} loss         % of packets lost per direction (0 where the network loses none)
 * @property {{ p: number, r: number }|null} burst  Gilbert–Elliott, % per packet (server/path/loss.js)
 * @property {import('./trace.js').LoadedTrace|null} traceDown  the download direction's trace, whose
 *   mean rate is then downloadBps; null for a constant rate
 * @property {import('./trace.js').LoadedTrace|null} traceUp  the same, upload
 * @property {import('./queue.js').QueueName} [queue]  the queue's discipline (queue.js); left out
 *   for droptail, the default, so that conditions and results from before it read the same
 */

/** @typedef {Readonly<import('../../common/setup/presets.js').Preset>} Preset */

/**
 * One bandwidth-delay product of the download direction (where bodies queue), within the bounds.
 * @param {number} rttMs @param {number} downloadBps
 */
function defaultQueueBytes(rttMs, downloadBps) {
  const bdp = downloadBps > 0 ? (downloadBps * rttMs) / 1000 : 0;
  return Math.min(pathBounds.maxQueueBytes, Math.max(pathBounds.minQueueBytes, Math.round(bdp)));
}

/**
 * @param {{ preset?: string|null, rttMs: number, downloadBps: number, uploadBps: number, queueBytes?: number,
 *   loss?: number, burst?: { p: number, r: number }|null, traceDown?: import('./trace.js').LoadedTrace|null,
 *   traceUp?: import('./trace.js').LoadedTrace|null, queue?: import('./queue.js').QueueName }} given
 * @returns {PathConditions}
 */
function conditionsOf({ preset = null, rttMs, downloadBps, uploadBps, queueBytes, loss = 0, burst = null, traceDown = null, traceUp = null, queue }) {
  // A traced direction's rate is its trace's mean: what the queue's default, the floor and results use.
  const down = traceDown ? Math.round(traceDown.meanBps) : downloadBps;
  const up = traceUp ? Math.round(traceUp.meanBps) : uploadBps;
  return {
    preset,
    rttMs,
    downloadBps: down,
    uploadBps: up,
    queueBytes: queueBytes ?? defaultQueueBytes(rttMs, down),
    queueDefault: queueBytes === undefined,
    loss,
    burst,
    traceDown,
    traceUp,
    ...(queue ? { queue } : {}),
  };
}

/**
 * A preset's numbers as conditions' fields: its latency is the round trip.
 * @param {Preset} p
 */
const presetFields = (p) => ({ preset: p.id, rttMs: p.latencyMs, downloadBps: p.downloadBps, uploadBps: p.uploadBps });

/**
 * The conditions of a preset id, clean (no loss): every network starts at no-throttling.
 * @param {string} id  a preset's own id (callers never pass what a person typed)
 * @returns {PathConditions}
 */
export const presetConditions = (id) => conditionsOf(presetFields(/** @type {Preset} */ (presetById(id))));

/** @type {Record<string, import('../../common/setup/units.js').Range>} */
const bounds = {
  rttMs: { min: 0, max: pathBounds.maxRttMs, unit: 'ms' },
  downloadBps: { min: pathBounds.minBps, max: pathBounds.maxBps, unit: 'bytes per second' },
  uploadBps: { min: pathBounds.minBps, max: pathBounds.maxBps, unit: 'bytes per second' },
  queueBytes: { min: pathBounds.minQueueBytes, max: pathBounds.maxQueueBytes, unit: 'bytes', integer: true },
  loss: { min: 0, max: pathBounds.maxLossPercent, unit: '%' },
  'burst.p': burstBounds.p,
  'burst.r': burstBounds.r,
  seed: { min: 0, max: pathBounds.maxLossSeed, integer: true },
};

/**
 * `value` when it is a JSON number within the field's bounds; else an InputError naming the field.
 * @param {unknown} value @param {string} field
 * @returns {number}
 */
function number(value, field) {
  const range = bounds[field];
  if (!inRange(range, value)) throw new InputError(field, `${field} must be ${rangeRule(range)}, got ${JSON.stringify(value) ?? 'nothing'}`);
  return /** @type {number} */ (value);
}

/** @param {any} burst  any: a field of the parsed JSON, checked here */
function parseBurst(burst) {
  if (burst === null || burst === undefined) return null;
  if (typeof burst !== 'object' || Array.isArray(burst) || Object.keys(burst).some((k) => k !== 'p' && k !== 'r')) {
    throw new InputError('burst', 'burst must be null or { "p": % good → bad, "r": % bad → good } per packet');
  }
  return { p: number(burst.p, 'burst.p'), r: number(burst.r, 'burst.r') };
}

/**
 * The queue discipline asked for, or undefined for droptail, the default (left out of conditions).
 * Only a network that loses packets takes CoDel, which drops them: the link's streams lose no byte.
 * @param {unknown} queue @param {Readonly<import('../../common/setup/networks.js').Network>} network
 */
function parseQueue(queue, network) {
  if (queue === undefined || queue === 'droptail') return undefined;
  const name = queueNames.find((n) => n === queue);
  if (!name) throw new InputError('queue', `queue must be one of ${queueNames.join(', ')}, got ${JSON.stringify(queue)}`);
  if (!network.carries.loss) throw new InputError('queue', `the ${network.title} loses no packets: queue must be droptail or left out (${name} drops packets)`);
  return name;
}

const rateFields = ['rttMs', 'downloadBps', 'uploadBps'];
const traceFields = /** @type {const} */ ({ traceDown: 'downloadBps', traceUp: 'uploadBps' });
/** @typedef {[keyof typeof traceFields, (typeof traceFields)[keyof typeof traceFields]]} TraceField  a traced field and the rate it replaces */

/**
 * Reads a PUT body for `networkId`: { preset } or { rttMs, downloadBps, uploadBps }, either with
 * an optional queueBytes, traceDown and traceUp (a trace's name in `traces`, replacing its
 * direction's rate), and where the network loses packets optional loss, burst and queue. Throws
 * InputError naming the field; never clamps.
 * @param {any} body  the parsed JSON (any: anything a client sent, checked here field by field)
 * @param {import('../../common/setup/networks.js').NetworkId} networkId who will carry the conditions
 * @param {{ traces?: { get(name: string, field: string): import('./trace.js').LoadedTrace } }} [o] the lab's traces (traces.js)
 * @returns {PathConditions}
 */
export function parseConditions(body, networkId, { traces } = {}) {
  const network = /** @type {Readonly<import('../../common/setup/networks.js').Network>} */ (networkById(networkId)); // a NetworkId always names one
  const lossy = network.carries.loss;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InputError('body', `send a JSON object: { "preset": "<id>"${lossy ? ', "loss": %, "burst": { "p", "r" }' : ''} } or rttMs, downloadBps and uploadBps instead of preset`);
  }
  const known = ['preset', 'queueBytes', 'queue', ...rateFields, 'loss', 'burst', ...Object.keys(traceFields)];
  const unknown = Object.keys(body).find((k) => !known.includes(k));
  if (unknown) throw new InputError(unknown, `unknown field ${JSON.stringify(unknown)}; the fields are ${known.join(', ')}`);
  // A network that loses no packets takes no loss but a clean path's, so nothing asked is ignored.
  if (!lossy) {
    if (body.loss !== undefined && body.loss !== 0) throw new InputError('loss', `the ${network.title} loses no packets: loss must be 0 or left out (only a network that carries loss takes it), got ${JSON.stringify(body.loss)}`);
    if (body.burst !== undefined && body.burst !== null) throw new InputError('burst', `the ${network.title} loses no packets: burst must be null or left out`);
  }
  const queueBytes = body.queueBytes === undefined ? undefined : number(body.queueBytes, 'queueBytes');
  const loss = body.loss === undefined ? 0 : number(body.loss, 'loss');
  const burst = parseBurst(body.burst);
  const queue = parseQueue(body.queue, network);
  /** @type {{ traceDown?: import('./trace.js').LoadedTrace, traceUp?: import('./trace.js').LoadedTrace }} */
  const traced = {};
  for (const [field, rate] of /** @type {TraceField[]} */ (Object.entries(traceFields))) {
    if (body[field] === undefined || body[field] === null) continue;
    if (body[rate] !== undefined) throw new InputError(field, `give ${field} or ${rate}, not both: a trace is the direction's rate`);
    if (!traces) throw new InputError(field, `${field}: this lab has no traces`);
    traced[field] = traces.get(body[field], field);
  }
  if (body.preset !== undefined) {
    const explicit = rateFields.find((k) => body[k] !== undefined);
    if (explicit) throw new InputError(explicit, `give either preset or rttMs, downloadBps and uploadBps, not both (${explicit} was given with preset)`);
    if (!presetById(body.preset)) throw new InputError('preset', `preset must be one of ${presets.filter((p) => carries(networkId, p.id)).map((p) => p.id).join(', ')}, got ${JSON.stringify(body.preset)}`);
    if (!carries(networkId, body.preset)) throw new InputError('preset', `preset ${JSON.stringify(body.preset)}: ${cannotCarry(networkId)}`);
    return conditionsOf({ ...presetFields(/** @type {Preset} */ (presetById(body.preset))), queueBytes, loss, burst, queue, ...traced }); // found: checked above
  }
  // Without a preset, a traced path adds no delay unless rttMs says so; a traced direction's rate is its trace's.
  const rttMs = Object.keys(traced).length && body.rttMs === undefined ? 0 : number(body.rttMs, 'rttMs');
  /** @type {Record<string, number>} */
  const rates = {};
  for (const [field, rate] of /** @type {TraceField[]} */ (Object.entries(traceFields))) rates[rate] = traced[field] ? 0 : number(body[rate], rate);
  return conditionsOf({ rttMs, downloadBps: rates.downloadBps, uploadBps: rates.uploadBps, queueBytes, loss, burst, queue, ...traced });
}

/**
 * Reads a PUT /api/networks/<id>/loss-seed body: { "seed": a run's loss seed }, checked like the conditions.
 * @param {any} body  the parsed JSON (any: anything a client sent, checked here)
 * @returns {number}
 */
export function parseLossSeed(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InputError('body', 'send a JSON object: { "seed": a whole number }');
  const unknown = Object.keys(body).find((k) => k !== 'seed');
  if (unknown) throw new InputError(unknown, `unknown field ${JSON.stringify(unknown)}; the only field is seed`);
  return number(body.seed, 'seed');
}

/**
 * What GET /api/networks/<id> answers, and results record: a traced direction's rate is its
 * trace's mean, and the trace is named with its hash; `queue` only when it is not droptail.
 * @param {PathConditions} c
 */
export const publicConditions = ({ preset, rttMs, downloadBps, uploadBps, queueBytes, loss, burst, traceDown, traceUp, queue }) => ({
  preset, rttMs, downloadBps, uploadBps, queueBytes, loss, burst, traceDown: traceSummary(traceDown), traceUp: traceSummary(traceUp), ...(queue ? { queue } : {}),
});
