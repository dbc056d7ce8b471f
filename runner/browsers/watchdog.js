// Deadlines for a browser that stops answering while its process lives on: puppeteer's calls to
// Firefox have no timeout of their own (protocolTimeout 0: one call of window.h2lab.run lasts
// minutes), so a call whose reply never comes would hold the runner for ever. A probe beside the
// call finds that out; a close that never finishes gives way to a kill.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * `call`, unless `probe` (a call that answers at once) goes unanswered for `deadlineMs` while it
 * runs: then rejects with `silence()`'s error. Probes start `everyMs` apart, one at a time.
 * @template T
 * @param {Promise<T>} call
 * @param {() => Promise<unknown>} probe
 * @param {{ everyMs: number, deadlineMs: number, silence: () => Error }} o
 * @returns {Promise<T>}
 */
export async function whileAnswering(call, probe, { everyMs, deadlineMs, silence }) {
  const ended = new AbortController();
  // Resolves never while the browser answers; rejects once a probe goes unanswered.
  const silent = (async () => {
    for (;;) {
      await sleep(everyMs, undefined, { signal: ended.signal });
      const answered = await Promise.race([probe().then(() => true, () => true), sleep(deadlineMs, false, { signal: ended.signal })]);
      if (!answered) throw silence();
    }
  })();
  silent.catch(() => {}); // the call settling first aborts it: nobody waits for it then
  try {
    return await Promise.race([call, /** @type {Promise<never>} */ (silent)]);
  } finally {
    ended.abort();
  }
}

/**
 * Resolves true once `work` has settled (either way), false after `deadlineMs` without it.
 * @param {Promise<unknown>} work
 * @param {number} deadlineMs
 */
export async function settlesWithin(work, deadlineMs) {
  const ended = new AbortController();
  try {
    return await Promise.race([work.then(() => true, () => true), sleep(deadlineMs, false, { signal: ended.signal })]);
  } finally {
    ended.abort();
  }
}
