// The path's delay: a preset's latency is a round trip (as in DevTools), paid half each way, so a
// piece arrives one one-way delay after the rate has sent it.

/** @param {{ rttMs: number }} conditions */
export const oneWayDelayMs = (conditions) => conditions.rttMs / 2;
