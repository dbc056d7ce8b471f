// Resource Timing, read reliably: entries are queued after the body ends, sometimes a task or
// more later, and the buffer (250 entries by default) drops entries silently once full (W3C Resource Timing,
// setResourceTimingBufferSize).

const pollMs = 10;
const waitMs = 1000;

/** Empties the buffer and makes room for `entries` more. @param {number} entries */
export function resetResourceTimings(entries) {
  performance.clearResourceTimings();
  performance.setResourceTimingBufferSize(Math.max(250, entries + 50));
}

/**
 * Waits (bounded) until every URL has an entry; returns a Map url → entry of those found.
 * @param {string[]} urls
 * @returns {Promise<Map<string, PerformanceResourceTiming>>}
 */
export async function entriesFor(urls) {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const entries = /** @type {PerformanceResourceTiming[]} type 'resource' lists only these */ (performance.getEntriesByType('resource'));
    const byName = new Map(entries.map((e) => [e.name, e]));
    if (urls.every((u) => byName.has(u)) || performance.now() > deadline) return byName;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Fetches one URL, reads its body and returns its Resource Timing entry (or undefined).
 * @param {string} url
 * @param {{ signal?: AbortSignal }} [o]
 */
export async function fetchEntry(url, { signal } = {}) {
  resetResourceTimings(1);
  const res = await fetch(url, { cache: 'no-store', signal });
  await res.blob();
  return (await entriesFor([url])).get(url);
}
