// No request can hang a run: a run whose requests all stop making progress (a server that
// accepts and never answers, an HTTP/3 origin tried over TCP, a body cut off mid-way) fails what
// is still open with reason `timeout` once the bound passes, and the experiment goes on.

/**
 * @param {number} boundMs how long the run may go without progress (common/setup/settings.js limits.stall)
 * @param {AbortSignal} [stop] the person's Stop, passed through
 * @returns {{ signal: AbortSignal, progress(): void, stalled(): boolean, end(): void }} signal: for
 *   the run's fetches, aborted by Stop or by a stall; progress(): call on every sign of life;
 *   end(): call when the run is over
 */
export function watchStall(boundMs, stop) {
  const stall = new AbortController();
  let last = performance.now();
  /** @type {ReturnType<typeof setTimeout>} */
  let timer;
  // One timer for the whole run, re-armed only when it fires: progress itself costs an assignment.
  const check = () => {
    const idle = performance.now() - last;
    if (idle >= boundMs) stall.abort(new DOMException(`no progress for ${boundMs} ms`, 'TimeoutError'));
    else timer = setTimeout(check, boundMs - idle);
  };
  timer = setTimeout(check, boundMs);
  return {
    signal: stop ? AbortSignal.any([stop, stall.signal]) : stall.signal,
    progress() {
      last = performance.now();
    },
    stalled: () => stall.signal.aborted,
    end: () => clearTimeout(timer),
  };
}
