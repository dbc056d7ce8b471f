// What the lab link is set to, and the one check of what a client asks for (PUT /api/link).
// A preset means the same numbers as in DevTools (common/presets.js): its latency is the round
// trip, half of it each way, and its rates are bytes per second.
import { isOffline, presetById, presets } from '../../common/presets.js';
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

const thousands = new Intl.NumberFormat('en-US');
// Presets the link can carry: Offline lets no byte through, which is DevTools' business.
const linkPresetIds = presets.filter((p) => !isOffline(p)).map((p) => p.id);

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

function number(body, field) {
  const { min, max, unit, integer } = bounds[field];
  const value = body[field];
  const ok = typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new LinkInputError(field, `${field} must be ${integer ? 'an integer' : 'a number'} from ${thousands.format(min)} to ${thousands.format(max)} ${unit}, got ${JSON.stringify(value) ?? 'nothing'}`);
  }
  return value;
}

/**
 * Reads a PUT /api/link body: { preset } or { rttMs, downloadBps, uploadBps }, either with an
 * optional queueBytes. Throws LinkInputError naming the field; never clamps.
 * @returns {LinkConditions}
 */
export function parseLinkConditions(body) {
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
    if (!linkPresetIds.includes(body.preset)) {
      const why = presetById(body.preset) ? ' (Offline lets nothing through: use DevTools for it)' : '';
      throw new LinkInputError('preset', `preset must be one of ${linkPresetIds.join(', ')}${why}, got ${JSON.stringify(body.preset)}`);
    }
    return presetConditions(body.preset, queueBytes);
  }
  return conditionsOf(null, number(body, 'rttMs'), number(body, 'downloadBps'), number(body, 'uploadBps'), queueBytes);
}

/** What GET /api/link answers. */
export const publicConditions = ({ preset, rttMs, downloadBps, uploadBps, queueBytes }) => ({ preset, rttMs, downloadBps, uploadBps, queueBytes });
