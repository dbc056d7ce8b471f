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
 *   (Chromium: from the document's request, which DevTools times, a few ms after the navigation's start)
 * @property {number} requests
 * @property {number} failed         requests that got no response (blocked names, resets)
 * @property {number} bytes          encoded bytes received, headers included
 * @property {number} connections    distinct connections the page's responses came over (origins pooled
 *   onto one connection count it once)
 * @property {Record<string, OriginLoad>} origins
 * @property {RequestSeen[]} records  every request, in the order it was sent
 */

/**
 * A request of the load as DevTools told it (times in ms from the navigation's start).
 * @typedef {object} RequestSeen
 * @property {string} url
 * @property {string} origin
 * @property {number|null} status    null: no response
 * @property {string|null} protocol  'http/1.1', 'h2', 'h3' as Chromium names it; null: no response
 * @property {string|null} connection  Chromium's connection id; null: none ('0', a cache hit or a failure)
 * @property {string|null} address  the server address it reached, as the browser tells it (null: not told)
 * @property {number} bytes   encoded bytes received, headers included
 * @property {number|null} startMs  null: a request the browser told nothing of, which its server saw (as-served.js)
 * @property {number|null} endMs
 * @property {string|null} error  Chromium's net error of a request that failed
 */

/**
 * One origin in a load: its requests, connections and protocols, and when its first request
 * started and its last ended (ms from the navigation's start): a waterfall by origin.
 * @typedef {object} OriginLoad
 * @property {number} connections
 * @property {number} requests
 * @property {number} failed
 * @property {string[]} protocols
 * @property {string[]} addresses  the server addresses its requests reached, where the browser tells them
 * @property {number|null} startMs  null: no request of it has a time
 * @property {number|null} endMs  null: none of its requests ended
 */

// Records the page's largest contentful paint as it happens; read once the load is over (a
// browser without it leaves null).
export const lcpObserver = `(() => {
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
 * @param {{ timeoutMs?: number, quietMs?: number, tap?: (cdp: import('playwright-core').CDPSession) => void,
 *   setUp?: (cdp: import('playwright-core').CDPSession) => Promise<unknown> }} [o]
 *   tap: listens to the tab's DevTools network events too (a recording keeps what the HAR leaves out);
 *   setUp: before the navigation (DevTools throttling, the cache off for a warm load)
 * @returns {Promise<ReplayLoad>}
 */
export async function loadReplayedPage(context, url, { timeoutMs = 60_000, quietMs = 1_000, tap, setUp } = {}) {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    tap?.(cdp);
    await cdp.send('Network.enable');
    await setUp?.(cdp);
    /** @type {Map<string, Seen>} */
    const requests = new Map();
    let start = 0;
    cdp.on('Network.requestWillBeSent', ({ requestId, request, timestamp, type }) => {
      if (!/^https?:/.test(request.url)) return;
      if (type === 'Document' && !start) start = timestamp;
      requests.set(requestId, { url: request.url, origin: new URL(request.url).origin, status: null, connection: null, address: null, protocol: null, bytes: 0, start: timestamp, end: null, error: null });
    });
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      const r = requests.get(requestId);
      // Chromium's connection id 0 means no connection of its own (a cache hit, a failure).
      if (r) Object.assign(r, { status: response.status, connection: response.connectionId ? String(response.connectionId) : null, protocol: response.protocol ?? null, address: response.remoteIPAddress ?? null });
    });
    cdp.on('Network.loadingFinished', ({ requestId, timestamp, encodedDataLength }) => {
      const r = requests.get(requestId);
      if (r) Object.assign(r, { end: timestamp, bytes: encodedDataLength });
    });
    cdp.on('Network.loadingFailed', ({ requestId, timestamp, errorText }) => {
      const r = requests.get(requestId);
      if (r) Object.assign(r, { end: timestamp, error: errorText || 'failed' });
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
    /** @param {number} t a CDP timestamp (s) */
    const ms = (t) => Math.round((t - start) * 1e4) / 10;
    const records = [...requests.values()].map(({ start: s, end, ...r }) => ({ ...r, startMs: ms(s), endMs: end === null ? null : ms(end) }));
    return { ...timing, ...summarize(records) };
  } finally {
    await page.close();
  }
}

/** @typedef {Omit<RequestSeen, 'startMs'|'endMs'> & { start: number, end: number|null }} Seen  a request as DevTools tells it (CDP timestamps, s) */

/**
 * A load's requests, whichever browser told them, summed up by origin and in all.
 * @param {RequestSeen[]} records  in the order they were sent
 * @returns {Omit<ReplayLoad, 'loadMs'|'fcpMs'|'lcpMs'>}
 */
export function summarize(records) {
  /** @type {ReplayLoad['origins']} */
  const origins = {};
  /** @type {Map<string, Set<string>>} */
  const connections = new Map();
  for (const r of records) {
    const o = (origins[r.origin] ??= { connections: 0, requests: 0, failed: 0, protocols: [], addresses: [], startMs: null, endMs: null });
    o.requests += 1;
    if (r.error) o.failed += 1;
    if (r.startMs !== null) o.startMs = Math.min(o.startMs ?? r.startMs, r.startMs);
    if (r.endMs !== null) o.endMs = Math.max(o.endMs ?? 0, r.endMs);
    if (r.protocol && !o.protocols.includes(r.protocol)) o.protocols.push(r.protocol);
    if (r.address && !o.addresses.includes(r.address)) o.addresses.push(r.address);
    if (r.connection) connections.set(r.origin, (connections.get(r.origin) ?? new Set()).add(r.connection));
  }
  for (const [origin, ids] of connections) origins[origin].connections = ids.size;
  const ends = records.flatMap((r) => (r.endMs === null ? [] : [r.endMs]));
  return {
    doneMs: ends.length ? Math.max(...ends) : 0,
    requests: records.length,
    failed: records.filter((r) => r.error).length,
    connections: new Set(records.map((r) => r.connection).filter(Boolean)).size,
    bytes: records.reduce((n, r) => n + r.bytes, 0),
    origins,
    records,
  };
}
