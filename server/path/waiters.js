// Senders held back at a full queue (direction.js whenRoom). They resume together once the queue
// is down to its resume share (queue.js): at once when it is, else when the rate will have sent
// enough of the backlog. What the queued pieces cost falls only on delivery, which wakes them again.

/**
 * @param {(now: number) => boolean} hasRoom  whether the queue is down to the resume share
 * @param {() => number|null} resumeAt  when the backlog will be, or null when the rate does not say (not limited)
 */
export function createWaiters(hasRoom, resumeAt) {
  /** @type {Set<() => void>} */
  const waiting = new Set();
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  const stop = () => {
    clearTimeout(timer ?? undefined);
    timer = null;
  };
  function wake() {
    if (!waiting.size) return;
    const now = performance.now();
    if (hasRoom(now)) {
      stop();
      const callbacks = [...waiting];
      waiting.clear();
      for (const callback of callbacks) callback();
      return;
    }
    if (timer !== null) return;
    const at = resumeAt();
    if (at === null) return;
    timer = setTimeout(() => {
      timer = null;
      wake();
    }, Math.max(1, at - now));
  }
  return {
    /** Calls `callback` once there is room; returns a function that cancels it. @param {() => void} callback */
    add(callback) {
      waiting.add(callback);
      wake();
      return () => waiting.delete(callback);
    },
    wake,
    /** The queue changed under the timer (retime, drop): it is set again from what is queued now. */
    rearm() {
      stop();
      wake();
    },
    clear() {
      stop();
      waiting.clear();
    },
  };
}
