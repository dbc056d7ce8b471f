// What the lab link is set to, and the one check of what a client asks for (PUT /api/link).
// A preset means the same numbers as in DevTools (common/presets.js): its latency is the round
// trip, half of it each way, and its rates are bytes per second.
import { cannotCarry, carries, presetById, presets } from '../../common/presets.js';
import { inRange, rangeRule } from '../../common/units.js';
import { linkLimits } from '../config.js';

/**
 * @typedef {object} LinkConditions
 * @property {string|null} preset  the preset id, or null for conditions given as numbers
 * @property {number} rttMs        round trip, half each way
 * @property {number} downloadBps  server → browser, bytes per second; −1 = not limited
 * @property {number} uploadBps    browser → server, bytes per second; −1 = not limited
 * @property {number} queueBytes   the bottleneck's queue limit per direction
 * @property {boolean} queueDefault  true when queueBytes is the default (one bandwidth-delay product)
 */

export class LinkInputError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

// Presets the link can carry (common/presets.js carries).
const linkPresetIds = presets.filter((p) => carries('link', p.id)).map((p) => p.id);

/** One bandwidth-delay product of the download direction (where bodies queue), within the bounds. */
function defaultQueueBytes(rttMs, downloadBps) {
  const bdp = downloadBps > 0 ? (downloadBps * rttMs) / 1000 : 0;
  return Math.min(linkLimits.maxQueueBytes, Math.max(linkLimits.minQueueBytes, Math.round(bdp)));
}

function conditionsOf(preset, rttMs, downloadBps, uploadBps, queueBytes) {
  return {
    preset,
    rttMs,
    downloadBps,
    uploadBps,
    queueBytes: queueBytes ?? defaultQueueBytes(rttMs, downloadBps),
    queueDefault: queueBytes === undefined,
  };
}

/** The conditions of a preset id (the link starts at no-throttling). */
export function presetConditions(id, queueBytes) {
  const p = presetById(id);
  return conditionsOf(p.id, p.latencyMs, p.downloadBps, p.uploadBps, queueBytes);
}

const bounds = {
  rttMs: { min: 0, max: linkLimits.maxRttMs, unit: 'ms' },
  downloadBps: { min: linkLimits.minBps, max: linkLimits.maxBps, unit: 'bytes per second' },
  uploadBps: { min: linkLimits.minBps, max: linkLimits.maxBps, unit: 'bytes per second' },
  queueBytes: { min: linkLimits.minQueueBytes, max: linkLimits.maxQueueBytes, unit: 'bytes', integer: true },
};

/**
 * `value` when it is a JSON number within `range`; else a LinkInputError naming `field`.
 * @param {unknown} value
 * @param {string} field
 * @param {import('../../common/units.js').Range} range
 */
export function checkedNumber(value, field, range) {
  if (!inRange(range, value)) throw new LinkInputError(field, `${field} must be ${rangeRule(range)}, got ${JSON.stringify(value) ?? 'nothing'}`);
  return /** @type {number} */ (value);
}

const number = (body, field) => checkedNumber(body[field], field, bounds[field]);

/**
 * Reads a PUT /api/link body: { preset } or { rttMs, downloadBps, uploadBps }, either with an
 * optional queueBytes. Throws LinkInputError naming the field; never clamps.
 * @param {any} body  the parsed JSON
 * @param {'link'|'packet'} [network]  who will carry the conditions, for the preset check
 * @returns {LinkConditions}
 */
export function parseLinkConditions(body, network = 'link') {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new LinkInputError('body', 'send a JSON object: { "preset": "<id>" } or { "rttMs", "downloadBps", "uploadBps" }');
  }
  const known = ['preset', 'queueBytes', 'rttMs', 'downloadBps', 'uploadBps'];
  const unknown = Object.keys(body).find((k) => !known.includes(k));
  if (unknown) throw new LinkInputError(unknown, `unknown field ${JSON.stringify(unknown)}; the fields are ${known.join(', ')}`);
  const queueBytes = body.queueBytes === undefined ? undefined : number(body, 'queueBytes');
  if (body.preset !== undefined) {
    const explicit = ['rttMs', 'downloadBps', 'uploadBps'].find((k) => body[k] !== undefined);
    if (explicit) throw new LinkInputError(explicit, `give either preset or rttMs, downloadBps and uploadBps, not both (${explicit} was given with preset)`);
    if (!presetById(body.preset)) throw new LinkInputError('preset', `preset must be one of ${linkPresetIds.join(', ')}, got ${JSON.stringify(body.preset)}`);
    if (!carries(network, body.preset)) throw new LinkInputError('preset', `preset ${JSON.stringify(body.preset)}: ${cannotCarry(network)}`);
    return presetConditions(body.preset, queueBytes);
  }
  return conditionsOf(null, number(body, 'rttMs'), number(body, 'downloadBps'), number(body, 'uploadBps'), queueBytes);
}

/** What GET /api/link answers. */
export const publicConditions = ({ preset, rttMs, downloadBps, uploadBps, queueBytes }) => ({ preset, rttMs, downloadBps, uploadBps, queueBytes });
