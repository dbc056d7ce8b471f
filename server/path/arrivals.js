// One direction's arrivals: a timer set for the first piece held (fifo.js), which delivers every
// piece due by then, in order, and is set again for the next.

/**
 * @param {ReturnType<typeof import('./fifo.js').createFifo>} fifo
 * @param {(piece: import('./fifo.js').Piece) => void} delivered  after each piece's deliver()
 * @param {() => void} settled  after a batch (the queue is shorter: held senders may resume)
 */
export function createArrivals(fifo, delivered, settled) {
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  function arm() {
    const first = fifo.first();
    if (timer !== null || !first) return;
    timer = setTimeout(deliverDue, Math.max(0, first.at - performance.now()));
  }
  function deliverDue() {
    timer = null;
    // Half a millisecond early is on time: timers fire on whole milliseconds at best.
    const now = performance.now() + 0.5;
    for (let first = fifo.first(); first && first.at <= now; first = fifo.first()) {
      const piece = fifo.shift();
      delivered(piece);
      piece.deliver();
    }
    fifo.compact();
    arm();
    settled();
  }
  const stop = () => {
    clearTimeout(timer ?? undefined);
    timer = null;
  };
  return {
    /** A piece was queued: the timer is set if it was not. */
    arm,
    /** The pieces were re-timed or removed: the timer is set again for the first. */
    rearm() {
      stop();
      arm();
    },
    stop,
  };
}
