// One load of a replayed page in a Chromium tab, measured from inside the page (Navigation and
// Paint Timing, Largest Contentful Paint) and from DevTools' network events (every request's
// origin, connection, protocol and bytes: a cross-origin Resource Timing entry hides the protocol
// without Timing-Allow-Origin, which a recorded page rarely sends).

/**
 * @typedef {object} ReplayLoad
 * @property {number} loadMs         the load event's end, from the navigation's start
 * @property {number|null} fcpMs     first contentful paint
 * @property {number|null} lcpMs     largest contentful paint, as of the load's end
 * @property {number} doneMs         the last request's end (loaded or failed), from the navigation's start
 * @property {number} requests
 * @property {number} failed         requests that got no response (blocked names, resets)
 * @property {number} bytes          encoded bytes received, headers included
 * @property {Record<string, { connections: number, requests: number, protocols: string[] }>} origins
 */

// Records the page's largest contentful paint as it happens; read once the load is over.
const lcpObserver = `(() => {
  window.__h2labLcp = null;
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__h2labLcp = e.startTime; })
      .observe({ type: 'largest-contentful-paint', buffered: true });
  } catch {}
})();`;

/**
 * Loads `url` in a new tab of `context` and measures it. After the load event it waits until no
 * request has been in flight for `quietMs` (or `timeoutMs` in all), so that requests a script
 * issues late count too.
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} url
 * @param {{ timeoutMs?: number, quietMs?: number, tap?: (cdp: import('playwright-core').CDPSession) => void }} [o]
 *   tap: listens to the tab's DevTools network events too (a recording keeps what the HAR leaves out)
 * @returns {Promise<ReplayLoad>}
 */
export async function loadReplayedPage(context, url, { timeoutMs = 60_000, quietMs = 1_000, tap } = {}) {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    tap?.(cdp);
    await cdp.send('Network.enable');
    /** @type {Map<string, { origin: string, connection: string|null, protocol: string|null, bytes: number, end: number|null, failed: boolean }>} */
    const requests = new Map();
    let start = 0;
    cdp.on('Network.requestWillBeSent', ({ requestId, request, timestamp, type }) => {
      if (!/^https?:/.test(request.url)) return;
      if (type === 'Document' && !start) start = timestamp;
      requests.set(requestId, { origin: new URL(request.url).origin, connection: null, protocol: null, bytes: 0, end: null, failed: false });
    });
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      const r = requests.get(requestId);
      if (r) Object.assign(r, { connection: String(response.connectionId), protocol: response.protocol ?? null });
    });
    cdp.on('Network.loadingFinished', ({ requestId, timestamp, encodedDataLength }) => {
      const r = requests.get(requestId);
      if (r) Object.assign(r, { end: timestamp, bytes: encodedDataLength });
    });
    cdp.on('Network.loadingFailed', ({ requestId, timestamp }) => {
      const r = requests.get(requestId);
      if (r) Object.assign(r, { end: timestamp, failed: true });
    });
    await page.addInitScript(lcpObserver);
    const deadline = Date.now() + timeoutMs;
    await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if ([...requests.values()].some((r) => r.end === null)) quietSince = Date.now();
      else if (Date.now() - quietSince >= quietMs) break;
      await page.waitForTimeout(50);
    }
    const timing = await page.evaluate(() => {
      const nav = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType('navigation')[0]);
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return { loadMs: nav.loadEventEnd, fcpMs: fcp ? fcp.startTime : null, lcpMs: /** @type {any} */ (window).__h2labLcp ?? null };
    });
    await cdp.detach();
    return { ...timing, ...summarize([...requests.values()], start) };
  } finally {
    await page.close();
  }
}

/**
 * @param {{ origin: string, connection: string|null, protocol: string|null, bytes: number, end: number|null, failed: boolean }[]} requests
 * @param {number} start  the document request's CDP timestamp (s)
 */
function summarize(requests, start) {
  /** @type {ReplayLoad['origins']} */
  const origins = {};
  /** @type {Map<string, Set<string>>} */
  const connections = new Map();
  for (const r of requests) {
    const o = (origins[r.origin] ??= { connections: 0, requests: 0, protocols: [] });
    o.requests += 1;
    if (r.protocol && !o.protocols.includes(r.protocol)) o.protocols.push(r.protocol);
    // Chromium's connection id 0 means no connection of its own (a cache hit, a failure).
    if (r.connection && r.connection !== '0') connections.set(r.origin, (connections.get(r.origin) ?? new Set()).add(r.connection));
  }
  for (const [origin, ids] of connections) origins[origin].connections = ids.size;
  const ends = requests.map((r) => r.end).filter((t) => t !== null);
  return {
    doneMs: ends.length && start ? (Math.max(...ends) - start) * 1000 : 0,
    requests: requests.length,
    failed: requests.filter((r) => r.failed).length,
    bytes: requests.reduce((n, r) => n + r.bytes, 0),
    origins,
  };
}
