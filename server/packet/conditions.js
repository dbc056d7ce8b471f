// What the packet network is set to, and the one check of what a client asks for (PUT
// /api/network): the lab link's conditions (server/link/conditions.js: a preset or rttMs and
// rates, and queueBytes, by default one bandwidth-delay product) plus `loss` (% of packets lost,
// each direction) and `burst` (Gilbert–Elliott: { p, r } in % per packet; server/packet/shaper.js).
import { checkedNumber, LinkInputError, parseLinkConditions, presetConditions, publicConditions } from '../link/conditions.js';
import { packetLimits } from '../config.js';

export { LinkInputError as NetworkInputError };

// The fields the lab link has not: checked by the same rule as its own (checkedNumber).
const bounds = {
  loss: { min: 0, max: packetLimits.maxLossPercent, unit: '%' },
  'burst.p': { min: 0, max: packetLimits.maxBurstEnterPercent, unit: '%' },
  'burst.r': { min: packetLimits.minBurstLeavePercent, max: packetLimits.maxBurstLeavePercent, unit: '%' },
};
const percent = (value, field) => checkedNumber(value, field, bounds[field]);

function parseBurst(burst) {
  if (burst === null || burst === undefined) return null;
  if (typeof burst !== 'object' || Array.isArray(burst) || Object.keys(burst).some((k) => k !== 'p' && k !== 'r')) {
    throw new LinkInputError('burst', 'burst must be null or { "p": % good → bad, "r": % bad → good } per packet');
  }
  return {
    p: percent(burst.p, 'burst.p'),
    r: percent(burst.r, 'burst.r'),
  };
}

/**
 * Reads a PUT /api/network body: the link's fields and optional loss and burst. Throws
 * NetworkInputError naming the field; never clamps.
 */
export function parseNetworkConditions(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new LinkInputError('body', 'send a JSON object: { "preset": "<id>", "loss": %, "burst": { "p", "r" } } or rttMs, downloadBps and uploadBps instead of preset');
  }
  const { loss = 0, burst = null, ...link } = body;
  return {
    ...parseLinkConditions(link, 'packet'),
    loss: percent(loss, 'loss'),
    burst: parseBurst(burst),
  };
}

/** Conditions of a preset with no loss (where the packet network starts: no-throttling). */
export const networkPreset = (id) => ({ ...presetConditions(id), loss: 0, burst: null });

/** What GET /api/network answers, and results record. */
export const publicNetworkConditions = (c) => ({ ...publicConditions(c), loss: c.loss, burst: c.burst });
