// The browsers the runner drives, behind one interface: Chromium (playwright-core over the
// DevTools Protocol, runner/browsers/chromium.js) and Firefox (puppeteer-core over WebDriver BiDi,
// runner/browsers/firefox.js). Both open the same lab page and call the same window.h2lab API; only
// Chromium has DevTools, for DevTools throttling and the per-request cross-check.
import { connectBrowser, launchBrowser, browserVersion, chromiumPage } from './chromium.js';
import { findFirefox, launchFirefox } from './firefox.js';
import { browserSide } from '../../server/packet/browser.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { relayToBrowserSide } from '../../server/packet/relay.js';
import { insideOwnLoopback } from '../../server/packet/inside.js';
import { whileAnswering } from './watchdog.js';
import { browserTitles, speaksDevToolsProtocol } from '../../common/setup/browser-names.js';
import { networkOf, networks } from '../../common/setup/networks.js';
import { oneOfText } from '../../common/setup/text.js';

export { browserNames, browserTitles } from '../../common/setup/browser-names.js';
/** @typedef {import('../../common/setup/browser-names.js').BrowserName} BrowserName */

/**
 * Why a browser cannot take part in a network (common/setup/networks.js), or null: it can.
 * @param {BrowserName} browser @param {string} networkId
 */
export function browserCannot(browser, networkId) {
  const network = networkOf(networkId);
  if (!network.devtoolsProtocol || speaksDevToolsProtocol.includes(browser)) return null;
  const others = networks.filter((n) => !n.devtoolsProtocol).map((n) => n.id);
  return `${network.title} throttling needs the DevTools Protocol, which ${browserTitles[browser]} does not speak (WebDriver BiDi has no network emulation): give --network ${oneOfText(others)}`;
}

/**
 * The lab's page in a tab, whichever the browser. evaluate: window.h2lab's calls (one argument,
 * cloned both ways); devtools: a DevTools session on the tab (Chromium), or null.
 * @typedef {object} LabPage
 * @property {(fn: (arg: any) => any, arg?: any) => Promise<any>} evaluate  any: each call of the page's API has its own types
 * @property {(() => Promise<import('playwright-core').CDPSession>)|null} devtools
 */

/**
 * @typedef {object} LabBrowser
 * @property {BrowserName} name
 * @property {(url: string) => Promise<LabPage>} openPage  a new tab at url
 * @property {(page: LabPage) => Promise<{ browser: string, userAgent: string }>} version  its name and full version, and user agent
 * @property {import('playwright-core').BrowserContext|null} context  Chromium's, for what only Chromium does (page loads' popup window)
 * @property {() => Promise<void>} close  ends it (a browser of --browser-url: disconnects) and removes what it left
 * @property {Promise<void>} closed  settles once the browser has gone: closed by a person, or crashed
 */

/**
 * @param {{ context: import('playwright-core').BrowserContext, close(): Promise<void> }} chromium
 * @returns {LabBrowser}
 */
function chromiumBrowser({ context, close }) {
  return {
    name: 'chromium',
    context,
    async openPage(url) {
      const page = await context.newPage();
      await page.goto(url);
      return chromiumPage(context, page);
    },
    version: async (page) => browserVersion(await /** @type {NonNullable<LabPage['devtools']>} */ (page.devtools)()),
    close,
    closed: new Promise((resolve) => context.once('close', () => resolve())),
  };
}

/**
 * What starting a browser needs of the lab: its certificate (Chromium trusts the leaf's key,
 * Firefox the CA), and its servers (where HTTP/3 is).
 * @typedef {{ certificate: { spkiSha256: string }, caCertPath: string|null, servers: import('./session.js').DescribedServer[] }} LabTrust
 */

/**
 * A Chromium someone else started (--browser-url, runner/browsers/chromium.js connectBrowser), with its
 * acceptCertificate().
 * @param {string} browserUrl
 */
export async function connectChromium(browserUrl) {
  const remote = await connectBrowser(browserUrl);
  return { ...chromiumBrowser(remote), acceptCertificate: remote.acceptCertificate };
}

/**
 * Starts `name` for a lab.
 * @param {BrowserName} name
 * @param {LabTrust} lab
 * @param {{ headless: boolean, packet: boolean, keyLogFile?: string|null, netLogFile?: string|null, qlogDir?: string|null }} o
 *   keyLogFile: where the browser writes its TLS keys; netLogFile: Chromium's NetLog; qlogDir: where Firefox's qlog files are kept
 * @returns {Promise<LabBrowser>}
 */
export async function startBrowser(name, lab, { headless, packet, keyLogFile = null, netLogFile = null, qlogDir = null }) {
  if (name === 'chromium') {
    // The session ends the browser on a signal, in its order; playwright's own handlers would race
    // it (its SIGINT handler exits 130 before the lab is closed). Its exit handler still kills it.
    const ownSignals = { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false };
    return chromiumBrowser(await launchBrowser({ certs: lab.certificate, servers: lab.servers }, { headless, viewport: { width: 1280, height: 900 }, packet, keyLogFile, netLogFile, ...ownSignals }));
  }
  const caCertPath = /** @type {string} session.js starts a lab of its own for Firefox */ (lab.caCertPath);
  return firefoxBrowser(await startFirefox({ caCertPath, servers: lab.servers }, { headless, packet, keyLogFile, qlogDir }), headless);
}

/**
 * Firefox where the lab's browser runs: on loopback, or on the packet network's browser side,
 * its BiDi port brought to this side by a relay.
 * @param {{ caCertPath: string, servers: { protocol: string, origin: string, linkOrigin?: string }[] }} trust  the CA it trusts; the lab's servers
 * @param {{ headless: boolean, packet: boolean, keyLogFile?: string|null, qlogDir?: string|null, replay?: import('./firefox-prefs.js').ReplayReach|null }} o
 *   replay: a replay's origins, all sent to one lab server (runner/replay/firefox.js)
 * @returns {ReturnType<typeof launchFirefox>}
 */
export async function startFirefox(trust, { headless, packet, keyLogFile = null, qlogDir = null, replay = null }) {
  // On the lab link its lab runs on a loopback of its own (runner/browsers/session.js), where nobody else reaches BiDi's port.
  const own = insideOwnLoopback() ? browserSide(findFirefox()) : null;
  if (!packet) return launchFirefox(trust, { headless, resolveTo: '127.0.0.1', qlogDir, keyLogFile, side: own, replay });
  // BiDi listens on the browser side's loopback: a relay brings its port to this side's.
  const relay = await relayToBrowserSide();
  try {
    const side = browserSide(findFirefox());
    const firefox = await launchFirefox(trust, { headless, resolveTo: serverSideAddress, qlogDir, keyLogFile, side, debuggingPort: relay.port, replay });
    return { ...firefox, close: () => firefox.close().finally(relay.close) };
  } catch (err) {
    relay.close();
    throw err;
  }
}

// How long after a failed call a Firefox that exited has also dropped its connection: within
// milliseconds here; a second leaves room on a loaded machine.
const exitNoticeMs = 1_000;

// While a call runs, Firefox is asked something trivial this often, and a Firefox that leaves it
// unanswered this long has stopped answering (alive but silent: the call's reply would never
// come). Here 514 probes during a 262 s run of 200 requests each answered within 0.38 s (median
// 3 ms); 20 s leaves room on a loaded machine.
const probe = { everyMs: 5_000, deadlineMs: 20_000 };

/**
 * @param {Awaited<ReturnType<typeof launchFirefox>>} firefox
 * @param {boolean} headless
 * @returns {LabBrowser}
 */
function firefoxBrowser({ browser, close }, headless) {
  /** @type {Promise<void>} */
  const closed = new Promise((resolve) => browser.once('disconnected', () => resolve()));
  return {
    name: 'firefox',
    context: null,
    async openPage(url) {
      const page = await browser.newPage();
      await page.goto(url);
      // A Firefox gone mid-call rejects as "Target closed" before its connection says so: the
      // run's stop line says what went, when the connection ends within a second.
      /** @param {Error} err */
      const gone = async (err) => {
        const exited = await Promise.race([closed.then(() => true), new Promise((resolve) => setTimeout(resolve, exitNoticeMs, false))]);
        throw exited ? new Error(`Firefox exited (${err.message})`, { cause: err }) : err;
      };
      const silence = () => new Error(`Firefox stopped answering: a probe went ${probe.deadlineMs / 1000} s without a reply`);
      const answering = { ...probe, silence };
      return { evaluate: (fn, arg) => whileAnswering(page.evaluate(fn, arg), () => page.evaluate(() => 0), answering).catch(gone), devtools: null };
    },
    async version() {
      // BiDi says "firefox/153.7.0": written as Chromium's is ("Chromium (headless)/156.0.…").
      const [product, userAgent] = await Promise.all([browser.version(), browser.userAgent()]);
      return { browser: `Firefox${headless ? ' (headless)' : ''}/${product.split('/')[1]}`, userAgent };
    },
    close,
    closed,
  };
}
