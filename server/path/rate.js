// The path's rate, one per direction: when the path has sent a piece it starts to send. Either a
// constant rate (bytes per second; ≤ 0 is not limited) or a trace in mahimahi's format (Winstein
// et al., NSDI 2013): each entry is a millisecond at which one slot of `slotBytes` may leave, a
// piece may span slots and a slot may carry several pieces, room no piece uses is lost, and the
// trace repeats with a period of its last entry. Times are performance.now() milliseconds; a
// trace starts at the `epochMs` it is given (when its conditions were set).

/**
 * @typedef {object} Rate
 * @property {(startAt: number, bytes: number) => number} finishAt  when a piece of `bytes` that
 *   starts at `startAt` (never before the last piece's finish) has been sent
 * @property {(from: number, to: number) => number} bytesBetween  what the rate can send in (from, to]
 * @property {(at: number, bytes: number) => number} timeBefore  the time from which the rate
 *   sends `bytes` by `at` (the latest t with bytesBetween(t, at) ≥ bytes)
 * @property {() => void} restart  forget the slot in use: the pieces are about to be sent again (retime)
 * @property {number} meanBps  bytes per second on average (−1: not limited)
 */

/**
 * @param {number} bps bytes per second; ≤ 0: not limited (every piece is sent at once)
 * @returns {Rate}
 */
export function constantRate(bps) {
  /** @param {number} bytes */
  const ms = (bytes) => (bps > 0 ? (bytes / bps) * 1000 : 0);
  return {
    finishAt: (startAt, bytes) => startAt + ms(bytes),
    bytesBetween: (from, to) => (bps > 0 ? (Math.max(0, to - from) * bps) / 1000 : 0),
    timeBefore: (at, bytes) => at - ms(bytes),
    restart() {},
    meanBps: bps > 0 ? bps : -1,
  };
}

/**
 * @typedef {object} Trace  a parsed trace (server/path/trace.js)
 * @property {Float64Array} offsetsMs  the slots' times within one period, not decreasing
 * @property {number} periodMs  the last entry: the trace repeats after it
 * @property {number} slotBytes  what one slot carries (mahimahi: 1,504, an Ethernet frame's IP packet and its header)
 */

/**
 * @param {Trace} trace
 * @param {number} epochMs when the trace's time 0 is
 * @returns {Rate}
 */
export function traceRate({ offsetsMs, periodMs, slotBytes }, epochMs) {
  const n = offsetsMs.length;
  // Slots are numbered from the epoch on: slot g is in period ⌊g / n⌋ at offset g mod n.
  /** @param {number} g */
  const timeOf = (g) => epochMs + Math.floor(g / n) * periodMs + offsetsMs[g % n];
  /**
   * How many slots are at or before `t` (upper: true) or strictly before it.
   * @param {number} t @param {boolean} upper
   */
  const slotsUpTo = (t, upper) => {
    const since = t - epochMs;
    if (since < 0) return 0;
    const period = Math.floor(since / periodMs);
    const within = since - period * periodMs;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (upper ? offsetsMs[mid] <= within : offsetsMs[mid] < within) lo = mid + 1;
      else hi = mid;
    }
    return period * n + lo;
  };
  let slot = -1; // the last slot a piece used, and what is left of it
  let leftBytes = 0;
  return {
    finishAt(startAt, bytes) {
      if (bytes <= 0) return startAt;
      // The slot in use still has room when the piece starts at its time (the last piece ended in it).
      const inSlot = slot >= 0 && timeOf(slot) >= startAt ? leftBytes : 0;
      if (bytes <= inSlot) {
        leftBytes -= bytes;
        return timeOf(slot);
      }
      if (!inSlot) slot = slotsUpTo(startAt, false) - 1; // the next slot is the first at or after startAt
      const more = Math.ceil((bytes - inSlot) / slotBytes);
      slot += more;
      leftBytes = more * slotBytes - (bytes - inSlot);
      return timeOf(slot);
    },
    bytesBetween: (from, to) => (to > from ? (slotsUpTo(to, true) - slotsUpTo(from, true)) * slotBytes : 0),
    timeBefore(at, bytes) {
      const slots = Math.ceil(bytes / slotBytes);
      const g = slotsUpTo(at, true) - slots; // the first of the `slots` slots ending at `at`
      return g <= 0 ? epochMs : timeOf(g - 1);
    },
    restart() {
      slot = -1;
      leftBytes = 0;
    },
    meanBps: (n * slotBytes * 1000) / periodMs,
  };
}
