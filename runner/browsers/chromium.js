// A headless Chromium driven by playwright-core for the tests, the benchmarks and the runner:
// found as the app finds it, trusting the lab's certificate key; when there is none, findChrome
// throws one line naming what to install.
import { UsageError } from '../../common/setup/errors.js';
import { rmSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from './chrome.js';
import { forceQuicFlag } from '../../common/setup/quic.js';
import { fileChartScale, reportChartScale } from '../../common/report/report-html.js';
import { browserSide } from '../../server/packet/browser.js';
import { insideOwnLoopback } from '../../server/packet/inside.js';
import { makeOwnedDir } from '../../server/owned-dirs.js';
import { defaultNetworkId } from '../../common/setup/networks.js';
import { allLabHostNames } from '../../common/setup/host-names.js';

/**
 * A playwright page as the runner's LabPage (a type of browsers.js's: no import at run time).
 * @param {import('playwright-core').BrowserContext} context @param {import('playwright-core').Page} page
 * @returns {import('./browsers.js').LabPage}
 */
export const chromiumPage = (context, page) => ({ evaluate: (fn, arg) => page.evaluate(fn, arg), devtools: () => context.newCDPSession(page) });

/** @typedef {Parameters<typeof forceQuicFlag>[0]} LabServers  /api/servers' list, as much as the browser needs */

/**
 * @param {{ certs: { spkiSha256: string }, describe?: () => { servers: LabServers }, servers?: LabServers }} lab a started
 *   lab (server/lab.js), or what /api/servers says of a running one ({ certs, servers })
 * @param {{ packet?: boolean, keyLogFile?: string|null, netLogFile?: string|null, reach?: string[]|null } & Parameters<import('playwright-core').BrowserType['launchPersistentContext']>[1]} [options]
 *   more options for playwright's launchPersistentContext, and `packet`: start the browser on the
 *   browser side of the packet network (server/packet/browser.js); keyLogFile: where Chromium
 *   writes its TLS keys (SSLKEYLOGFILE format, TCP and QUIC alike); netLogFile: its NetLog;
 *   reach: the flags that say which names it reaches and how (a replay's, runner/replay/flags.js)
 *   instead of the lab's names and HTTP/3 origins
 * @returns {Promise<{ context: import('playwright-core').BrowserContext, close(): Promise<void> }>}
 */
export async function launchBrowser(lab, { packet = false, keyLogFile = null, netLogFile = null, reach = null, ...options } = {}) {
  // On a loopback of its own (beside Firefox, runner/browsers/session.js) Chromium runs as the person there too.
  const side = packet || insideOwnLoopback() ? browserSide(findChrome()) : { executablePath: findChrome(), args: [] };
  const userDataDir = makeOwnedDir('h2lab-chromium-'); // a killed runner's is removed by the next
  // Playwright passes the profile folder itself.
  const forceQuic = reach ? null : forceQuicFlag(lab.describe?.().servers ?? lab.servers ?? []);
  const args = chromeFlags({ spkiSha256: lab.certs.spkiSha256, userDataDir, headless: false, forceQuic }).filter((f) => !f.startsWith('--user-data-dir'));
  const evidence = [...(keyLogFile ? [`--ssl-key-log-file=${keyLogFile}`] : []), ...(netLogFile ? [`--log-net-log=${netLogFile}`] : [])];
  // A lab whose origins have names (beside Firefox: common/setup/host-names.js) is on loopback; on the
  // packet network side.args maps them to the server side.
  const names = reach ?? (packet ? [] : [`--host-resolver-rules=${allLabHostNames.map((n) => `MAP ${n} 127.0.0.1`).join(', ')}`]);
  const context = await chromium.launchPersistentContext(userDataDir, { headless: true, ...side, args: [...args, ...evidence, ...names, ...side.args], ...options });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A Chrome someone else started, driven through its DevTools endpoint: another machine's, or a
 * phone's (`adb forward tcp:9222 localabstract:chrome_devtools_remote`). It is not ours, so
 * nothing about it outlives the run: close() closes the tabs the run opened, stops ignoring
 * certificate errors if acceptCertificate() had to, and disconnects, leaving the browser running.
 * @param {string} browserUrl e.g. http://127.0.0.1:9222
 * @param {{ timeoutMs?: number }} [o] how long to wait for it: 8 s, so a wrong endpoint fails within 10
 * @returns {Promise<{ context: import('playwright-core').BrowserContext,
 *   acceptCertificate(servers: { protocol: string, origin: string, available?: boolean }[]): Promise<'trusted'|'ignored'>, close(): Promise<void> }>}
 */
export async function connectBrowser(browserUrl, { timeoutMs = 8_000 } = {}) {
  /** @type {import('playwright-core').Browser} */
  let browser;
  try {
    browser = await chromium.connectOverCDP(browserUrl, { timeout: timeoutMs });
  } catch (err) {
    // A usage error: the person named an endpoint that is not there.
    throw new UsageError(`--browser-url: ${browserUrl} does not answer as a DevTools endpoint (${/** @type {Error} */ (err).message.split('\n')[0]})`);
  }
  const context = browser.contexts()[0] ?? (await browser.newContext());
  const before = new Set(context.pages());
  /** @type {import('playwright-core').CDPSession|null} */
  let cdp = null;
  return {
    context,
    /**
     * Makes the browser accept the lab's certificate for the run. One that already trusts it
     * (started with --ignore-certificate-errors-spki-list, or with the lab's CA installed) is
     * left as it is: told to ignore certificate errors, Chrome opened 2–4 HTTP/2 connections
     * per origin for 20 parallel requests where a trusting one opened 1, which changes what is
     * measured. The certificate is one for every server, tried on one reached over TCP: a
     * Chrome not told to use QUIC tries an HTTP/3 origin over TCP and waits for an answer that
     * never comes. Resolves 'trusted' or 'ignored'.
     * @param {{ protocol: string, origin: string, available?: boolean }[]} servers /api/servers' list
     */
    async acceptCertificate(servers) {
      // The lab's own Node servers (HTTP/1.1, HTTP/2) are always there.
      const { origin } = /** @type {{ origin: string }} */ (servers.find((s) => s.protocol !== 'h3' && s.available !== false));
      const page = await context.newPage();
      try {
        const failed = await page.goto(`${origin}/`).then(() => null, (err) => err);
        if (!failed) return 'trusted';
        if (!/ERR_CERT_/.test(failed.message)) throw new Error(`--browser-url: the browser cannot load ${origin}/ (${failed.message.split('\n')[0]}); is the lab reachable from it?`);
        cdp = await browser.newBrowserCDPSession();
        await cdp.send('Security.setIgnoreCertificateErrors', { ignore: true });
        return 'ignored';
      } finally {
        await page.close().catch(() => {});
      }
    },
    async close() {
      for (const page of context.pages()) if (!before.has(page)) await page.close().catch(() => {});
      await cdp?.send('Security.setIgnoreCertificateErrors', { ignore: false }).catch(() => {});
      await browser.close(); // for a connected browser: disconnects, the browser keeps running
    },
  };
}

/** The line a run prints, and its environment keeps, when a --browser-url browser had to ignore certificate errors. */
/** @param {string} spkiSha256 */
export const certificateIgnoredNote = (spkiSha256) =>
  'this browser does not trust the lab\'s certificate, so it ignores certificate errors for the run; Chrome then opens several HTTP/2 connections per origin, ' +
  `unlike a browser that trusts it: start it with --ignore-certificate-errors-spki-list=${spkiSha256} (or install certs/ca.crt) for HTTP/2 as a person's browser speaks it`;

/**
 * Opens the lab's page in a new tab and waits for its preflight (client/ui/preflight.js), which
 * finds what this browser cannot use (an untrusted certificate, HTTP/3 without QUIC forced).
 * @param {import('./browsers.js').LabBrowser} browser
 * @param {string} uiOrigin
 * @param {{ networks?: readonly string[] }} [options] the networks the runs will go through (common/setup/networks.js), whose problems count too
 * @returns {Promise<{ page: import('./browsers.js').LabPage, unusable: (id: string) => string|null }>}
 *   unusable: why the browser cannot use a server for these runs, or null
 */
export async function loadLabPage(browser, uiOrigin, { networks = [defaultNetworkId] } = {}) {
  const page = await browser.openPage(`${uiOrigin}/`);
  return { page, unusable: unusableOn(await labReady(page), networks) };
}

/**
 * @param {Record<string, Record<string, string>>} found  the page's window.h2lab.unusable
 * @param {readonly string[]} networks
 * @returns {(id: string) => string|null}
 */
const unusableOn = (found, networks) => (id) => networks.map((n) => found[n]?.[id]).find(Boolean) ?? null;

/**
 * Waits for the lab page's preflight (in the page: BiDi has no waitForFunction of playwright's
 * form); resolves what it found unusable, per network and server.
 * @param {import('./browsers.js').LabPage} page
 * @returns {Promise<Record<string, Record<string, string>>>}
 */
async function labReady(page) {
  return page.evaluate(
    (timeoutMs) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
          const lab = window.h2lab;
          if (lab?.ready !== undefined) resolve(lab.unusable);
          else if (Date.now() - started > timeoutMs) reject(new Error(`the lab page was not ready within ${timeoutMs} ms`));
          else setTimeout(poll, 50);
        };
        poll();
      }),
    labReadyTimeoutMs,
  );
}

// The page loads in about a second; its preflight checks every server, each within 5 s.
const labReadyTimeoutMs = 30_000;

/**
 * loadLabPage in a playwright context, refusing in one line (exit 2) the servers the runs need
 * (default: every server of the lab) that the browser cannot use, each with the reason.
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} uiOrigin
 * @param {{ networks?: readonly string[], servers?: string[] }} [options] servers: the ids the runs use
 * @returns {Promise<import('playwright-core').Page>}
 */
export async function openLabPage(context, uiOrigin, { networks, servers } = {}) {
  const page = await context.newPage();
  await page.goto(`${uiOrigin}/`);
  const unusable = unusableOn(await labReady(chromiumPage(context, page)), networks ?? [defaultNetworkId]);
  /** @type {string[]} */
  const needed = servers ?? (await page.evaluate(() => window.h2lab.lab.servers.map((/** @type {{ id: string }} */ s) => s.id)));
  const blocked = needed.filter(unusable).map((id) => `${id} cannot run in this browser: ${unusable(id)}`);
  if (blocked.length) throw new UsageError(blocked.join('; '));
  return page;
}

/**
 * The browser's name and full version (the user agent hides the full version), and its user agent.
 * @param {import('playwright-core').CDPSession} session
 */
export async function browserVersion(session) {
  const { product, userAgent } = await session.send('Browser.getVersion');
  return { browser: product.replace('HeadlessChrome', 'Chromium (headless)'), userAgent };
}

/**
 * A chart drawn once by the lab page and rendered at a PNG file's scale and at a report's
 * (common/report/report-html.js). Resolves { title, pngBase64, reportPngBase64 }.
 * @param {import('./browsers.js').LabPage} page
 * @param {'total'|'distribution'|'waterfall'|'connections'|'sweep'|'pageLoads'} kind  a chart of client/ui/chart-export.js
 * @param {unknown} data  what that chart draws (a Result, a sweep, page loads)
 * @returns {Promise<{ title: string, pngBase64: string, reportPngBase64: string }>}
 */
export async function chartPngs(page, kind, data) {
  /** @type {{ title: string, pngsBase64: string[] }} */
  const { title, pngsBase64 } = await page.evaluate(([k, d, scales]) => window.h2lab.chartImage(k, d, { scales }), [kind, data, [fileChartScale, reportChartScale]]);
  return { title, pngBase64: pngsBase64[0], reportPngBase64: pngsBase64[1] };
}
