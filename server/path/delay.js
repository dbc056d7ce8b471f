// The path's delay: a preset's latency is a round trip (as in DevTools), paid half each way, so a
// piece arrives one one-way delay after the rate has sent it, and never before a piece sent ahead
// of it (the path keeps order, also when the delay shrinks).

/** @param {{ rttMs: number }} conditions */
export const oneWayDelayMs = (conditions) => conditions.rttMs / 2;

/** The delay stage of one direction: arrivals in order. */
export function createDelayLine() {
  let lastAt = 0;
  return {
    /** When a piece that would arrive at `at` arrives: not before the one ahead of it. @param {number} at */
    inOrder: (at) => (lastAt = Math.max(at, lastAt)),
    /** Everything is about to be timed afresh (retime) or is gone (clear). */
    restart() {
      lastAt = 0;
    },
  };
}
