// CoDel, the Controlled Delay queue discipline (Nichols and Jacobson, RFC 8289), as one
// direction's verdict at the head of its queue (queue.js). It watches the sojourn time, how long
// each piece waited: a standing queue, whose sojourn stays above `targetMs` for `intervalMs`,
// starts a dropping state that drops one piece, then the next due at intervalMs / sqrt(count)
// after the one before, dropping ever faster until the sojourn falls under target; a burst that
// drains within an interval is never dropped. Entering the dropping state again soon after leaving
// it resumes near the last drop rate (RFC 8289 §5.6). Its dequeue(), which loops over the pieces
// due at one instant, is written here a piece at a time.

/** RFC 8289's parameters. */
export const codelDefaults = Object.freeze({
  // §4.4: 5 ms, 5–10 % of the interval, what keeps a link busy with one TCP flow while delay stays low.
  targetMs: 5,
  // §4.5: 100 ms, a worst-case round trip of the paths a link serves (Internet-scale ones).
  intervalMs: 100,
  // §5.3 (maxpacket): a queue of at most one full packet is no standing queue, whatever the
  // sojourn (on a slow link one packet alone takes longer than target): Ethernet's 1,500 bytes.
  maxPacketBytes: 1_500,
});

/**
 * @param {{ targetMs: number, intervalMs: number, maxPacketBytes: number }} [parameters]
 * @returns {import('./queue.js').QueueDiscipline}
 */
export function createCodel({ targetMs, intervalMs, maxPacketBytes } = codelDefaults) {
  let firstAboveAt = 0; // when the sojourn will have been above target for an interval; 0: it is not above
  let dropping = false;
  let dropNext = 0; // when the next drop is due while dropping
  let count = 0; // drops since the dropping state began
  let lastCount = 0; // count when it last began
  /** @param {number} t @param {number} n */
  const controlLaw = (t, n) => t + intervalMs / Math.sqrt(n);
  /** RFC 8289's dodequeue: whether the sojourn has stayed above target for an interval. @param {import('./queue.js').Head} head */
  function okToDrop({ at, sojournMs, aheadBytes }) {
    if (sojournMs < targetMs || aheadBytes <= maxPacketBytes) {
      firstAboveAt = 0;
      return false;
    }
    if (firstAboveAt === 0) {
      firstAboveAt = at + intervalMs;
      return false;
    }
    return at >= firstAboveAt;
  }
  return {
    drops(head) {
      const ok = okToDrop(head);
      if (dropping) {
        if (!ok) dropping = false;
        if (!ok || head.at < dropNext) return false;
        count += 1;
        dropNext = controlLaw(dropNext, count);
        return true;
      }
      if (!ok) return false;
      dropping = true;
      // Back within 16 intervals of the last drop: resume near the rate that was needed then.
      const delta = count - lastCount;
      count = delta > 1 && head.at - dropNext < 16 * intervalMs ? delta : 1;
      dropNext = controlLaw(head.at, count);
      lastCount = count;
      return true;
    },
  };
}
