// An AbortSignal made only when someone asks for it: an AbortController per request costs
// measurable throughput, and only requests that wait (delay > 0) need one.
export function lazyAbort() {
  /** @type {AbortController|undefined} */
  let controller;
  let gone = false;
  return {
    now() {
      gone = true;
      controller?.abort();
    },
    signal() {
      controller ??= new AbortController();
      if (gone) controller.abort();
      return controller.signal;
    },
  };
}
