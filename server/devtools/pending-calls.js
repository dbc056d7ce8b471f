// DevTools Protocol calls waiting for their answers, each failing after a time: the one
// bookkeeping of the lab's connections (cdp-connection.js) and npm run chrome's pipe to its Chrome
// (runner/browsers/chrome-pipe.js).

/** @param {number} timeoutMs how long a call waits for its answer */
export function pendingCalls(timeoutMs) {
  /** @type {Map<unknown, { method: string, resolve: (result: unknown) => void, reject: (err: Error) => void }>} */
  const pending = new Map(); // id → { method, resolve, reject }
  return {
    /**
     * Waits for the answer to call `id` of `method`, which send() then sends; resolves with its result.
     * @param {number} id @param {string} method @param {() => void} send
     * @returns {Promise<unknown>}
     */
    add(id, method, send) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        /** @template T @param {(value: T) => void} fn @returns {(value: T) => void} */
        const settle = (fn) => (value) => {
          clearTimeout(timer);
          fn(value);
        };
        pending.set(id, { method, resolve: settle(resolve), reject: settle(reject) });
        send();
      });
    },
    /**
     * Settles the call `message` answers (its error, bounded, or its result); false when it answers none.
     * @param {{ id?: unknown, error?: unknown, result?: unknown }} message  as the other end sent it
     */
    answer(message) {
      const call = pending.get(message.id);
      if (!call) return false;
      pending.delete(message.id);
      if (message.error) call.reject(new Error(`${call.method}: ${String(/** @type {{ message?: unknown }} */ (message.error).message).slice(0, 200)}`));
      else call.resolve(message.result);
      return true;
    },
    /**
     * Fails every call still waiting with `reason`.
     * @param {string} reason
     */
    failAll(reason) {
      for (const call of pending.values()) call.reject(new Error(`${call.method}: ${reason}`));
      pending.clear();
    },
  };
}
