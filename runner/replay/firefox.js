// Firefox as a replay's browser (browser.js's interface). Firefox has no per-host resolver map:
// every name resolves to the lab's address (network.dns.forceResolve, as in every Firefox run),
// or on the packet network each recorded host to its own, answered by the replay's DNS (doh.js);
// each recorded port becomes the replaying server's at the socket (network.socket.forcePort), and
// HTTP/3 is told per recorded host (firefox-prefs.js). Its profile trusts the replay's own CA
// through NSS, so certificates are really verified, a name the recording does not hold failing
// its handshake. A cold load is a user context of its own (WebDriver BiDi's), which Firefox keeps
// apart down to its connections; the servers count them (tellsConnections: false), since BiDi
// names no connection.
import { startFirefox } from '../browsers/browsers.js';
import { lcpObserver, summarize } from './load.js';
import { servedTls } from '../../server/replay/certs.js';
import { startDoh } from './doh.js';

/**
 * @param {import('./browser.js').ReplayReach} o
 * @returns {Promise<import('./browser.js').ReplayBrowser>}
 */
export async function startFirefoxReplay({ trust, origins, server, packet }) {
  const doh = packet && server.hostOf ? await startDoh({ tls: servedTls(trust.certs), addressOf: addressesOf(origins, server.hostOf) }) : null;
  try {
    const firefox = await startFirefox({ caCertPath: trust.caCertPath, servers: [] }, { headless: true, packet, replay: { origins, port: server.port, protocol: server.protocol, doh: doh?.uri ?? null } });
    const version = await firefox.browser.version();
    // Where the replay's DNS answered a host, Firefox reached it there (forcePort changes ports alone).
    const addressOf = (/** @type {string} */ hostname) => doh?.answered.get(hostname) ?? null;
    return {
      version: `${version.replace(/^firefox\//i, 'Firefox ')} (headless)`,
      tellsConnections: false,
      async open({ warm }) {
        const context = await firefox.browser.createBrowserContext();
        return { load: (url, { timeoutMs }) => loadInFirefox(context, url, { timeoutMs, cacheOff: warm, addressOf }), close: () => context.close() };
      },
      close: () => firefox.close().finally(() => doh?.close()),
    };
  } catch (err) {
    await doh?.close();
    throw err;
  }
}

/**
 * Each recorded origin's host with its address on the packet network.
 * @param {string[]} origins @param {(hostname: string) => string} hostOf
 */
const addressesOf = (origins, hostOf) => new Map(origins.map((o) => new URL(o).hostname).map((h) => [h, hostOf(h)]));

/**
 * One load in a new tab of `context`, measured from inside the page (Navigation, Paint and
 * Resource Timing, Largest Contentful Paint) and from BiDi's network events (what failed, and
 * when nothing is in flight). After the load event it waits until no request has been in flight
 * for `quietMs`, as load.js does.
 * @param {import('puppeteer-core').BrowserContext} context @param {string} url
 * @param {{ timeoutMs: number, quietMs?: number, cacheOff?: boolean, addressOf: (hostname: string) => string|null }} o
 *   addressOf: the address a host was reached at, where the replay's DNS says
 * @returns {Promise<import('./load.js').ReplayLoad>}
 */
async function loadInFirefox(context, url, { timeoutMs, quietMs = 1_000, cacheOff = false, addressOf }) {
  const page = await context.newPage();
  try {
    if (cacheOff) await page.setCacheEnabled(false);
    let inFlight = 0;
    /** @type {Map<string, string>} */
    const failed = new Map();
    page.on('request', () => (inFlight += 1));
    page.on('requestfinished', () => (inFlight -= 1));
    page.on('requestfailed', (r) => {
      inFlight -= 1;
      failed.set(r.url(), r.failure()?.errorText || 'failed');
    });
    await page.evaluateOnNewDocument(lcpObserver);
    const deadline = Date.now() + timeoutMs;
    await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if (inFlight > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= quietMs) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seen = await page.evaluate(timingsInPage);
    /** @type {import('./load.js').RequestSeen[]} */
    const records = seen.entries.map((e) => ({ ...e, origin: new URL(e.url).origin, connection: null, address: addressOf(new URL(e.url).hostname), error: failed.get(e.url) ?? null }));
    // A request that failed before it had a response may have no entry: kept, with no times.
    for (const [u, error] of failed) if (!records.some((r) => r.url === u) && /^https?:/.test(u)) records.push({ url: u, origin: new URL(u).origin, status: null, protocol: null, connection: null, address: null, bytes: 0, startMs: null, endMs: null, error });
    return { loadMs: seen.loadMs, fcpMs: seen.fcpMs, lcpMs: seen.lcpMs, ...summarize(records) };
  } finally {
    await page.close().catch(() => {});
  }
}

/** In the page: its metrics, and every request's entry (the document's first). */
function timingsInPage() {
  const nav = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType('navigation')[0]);
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const entries = [nav, ...performance.getEntriesByType('resource')].map((e) => {
    const r = /** @type {PerformanceResourceTiming} */ (e);
    return { url: r.name, status: r.responseStatus || null, protocol: r.nextHopProtocol || null, bytes: r.transferSize, startMs: Math.round(r.startTime * 10) / 10, endMs: r.responseEnd ? Math.round(r.responseEnd * 10) / 10 : null };
  });
  return { loadMs: nav.loadEventEnd, fcpMs: fcp ? fcp.startTime : null, lcpMs: /** @type {any} */ (window).__h2labLcp ?? null, entries };
}
