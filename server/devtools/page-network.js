// Presets applied through a Chrome's own DevTools port, for the page a person is using (a Chrome
// opened by `npm run chrome` has one): the lab's tab, or the window it opened for page loads, gets
// the same Network.emulateNetworkConditions DevTools would send. The emulation lives as long as
// the lab's session with the tab (Chrome clears it when the session detaches), so the lab keeps
// that session until the preset is cleared, the tab closes or the lab stops.
//
// The lab reaches a Chrome's DevTools in one of two ways. npm run chrome opens none of Chrome's
// ports: it holds a channel to the lab (GET /api/devtools-channel, server/devtools/channel.js)
// and relays emulation commands to Chrome's DevTools pipe; the page names that channel. A Chrome
// the person started with a DevTools port is reached at that port, and only once they confirmed
// it in the lab's page: any web page can send a visitor to the lab's address with
// ?devtools=<port>, and whatever listens there is a stranger.
import { isOffline, isThrottled, presetById } from '../../common/setup/presets.js';
import { applyPreset, clearNetwork, devtoolsParam } from '../../common/setup/devtools-network.js';
import { devtoolsLimits } from '../config.js';
import { cdpOver, openCdpConnection } from './cdp-connection.js';
import { browserEndpoint, RefusedAnswer } from './endpoint.js';
import { inRange, rangeRule } from '../../common/setup/units.js';
import { HttpError, apiErrors } from '../http/errors.js';
import { InputError } from '../../common/setup/errors.js';


const windowsChoices = ['tab', 'opened'];

/**
 * PUT /api/emulation's body, checked (parseEmulationRequest).
 * @typedef {object} EmulationRequest
 * @property {string} [devtoolsChannel]  npm run chrome's channel, or
 * @property {number} [devtoolsPort]  a DevTools port the person confirmed
 * @property {string} pageUrl  the lab's tab
 * @property {'tab'|'opened'} windows
 * @property {Readonly<import('../../common/setup/presets.js').Preset>} preset
 * @property {boolean} confirmed
 */
/**
 * A target as the protocol describes it. The browser's end may be a stranger: its list is checked
 * to hold objects, and every use below tolerates fields of another type.
 * @typedef {{ targetId: string, type: string, url: string, openerId?: string }} TargetInfo
 */
/**
 * The lab's session with one tab, kept while its emulation lasts.
 * @typedef {{ sessionId: string, presetId: string|null, session: import('../../common/setup/devtools-network.js').CdpSession }} TabSession
 */
/**
 * A Chrome the lab reached, by its channel or its port.
 * @typedef {{ product: string, sessions: Map<string, TabSession>, cdp: ReturnType<typeof cdpOver> }} Browser  sessions: by targetId
 */

// The lab's tab is the page at the lab's address that carries this channel or port: the rest of
// its query follows the form as the person edits it.
/** @param {string} url @param {string} pageUrl  checked to parse (parseEmulationRequest) @param {string|number|undefined} via */
const isLabTab = (url, pageUrl, via) => {
  const a = URL.parse(url);
  const b = /** @type {URL} */ (URL.parse(pageUrl));
  return a?.origin === b.origin && a.pathname === b.pathname && a.searchParams.get(devtoolsParam) === String(via);
};

const portRange = { min: 1, max: 65_535, integer: true };
/**
 * npm run chrome's channel: 128 random bits in hex (runner/commands/open-chrome.js).
 * @param {unknown} value
 * @returns {value is string}
 */
export const isDevtoolsChannel = (value) => typeof value === 'string' && /^[0-9a-f]{32}$/.test(value);

/**
 * The one check of PUT /api/emulation's body: `devtoolsChannel`, or `devtoolsPort` (and `confirmed`).
 * @param {any} body  the parsed JSON (any: anything a client sent, checked here field by field)
 * @returns {EmulationRequest}
 */
export function parseEmulationRequest(body) {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const { devtoolsChannel, devtoolsPort, pageUrl, windows = 'tab', preset, confirmed = false } = b;
  if (devtoolsChannel !== undefined) {
    if (!isDevtoolsChannel(devtoolsChannel)) throw new InputError('devtoolsChannel', `devtoolsChannel must be npm run chrome's channel (32 hex digits), got ${JSON.stringify(devtoolsChannel)?.slice(0, 60)}`);
    if (devtoolsPort !== undefined) throw new InputError('devtoolsPort', 'send devtoolsChannel or devtoolsPort, not both');
  } else if (!inRange(portRange, devtoolsPort)) {
    throw new InputError('devtoolsPort', `devtoolsPort must be ${rangeRule(portRange)} (or send devtoolsChannel), got ${JSON.stringify(devtoolsPort)}`);
  }
  if (typeof pageUrl !== 'string' || !/^https?:$/.test(URL.parse(pageUrl)?.protocol ?? '')) {
    throw new InputError('pageUrl', `pageUrl must be the http(s) URL of the lab's tab, got ${JSON.stringify(pageUrl)}`);
  }
  if (!windowsChoices.includes(windows)) {
    throw new InputError('windows', `windows must be one of ${windowsChoices.join(', ')}, got ${JSON.stringify(windows)}`);
  }
  if (typeof preset !== 'string' || !presetById(preset)) {
    throw new InputError('preset', `preset must be a preset id (common/setup/presets.js), got ${JSON.stringify(preset)}`);
  }
  if (typeof confirmed !== 'boolean') {
    throw new InputError('confirmed', `confirmed must be true (the person confirmed the port in the page) or false, got ${JSON.stringify(confirmed)}`);
  }
  return { devtoolsChannel, devtoolsPort, pageUrl, windows, preset: /** @type {Readonly<import('../../common/setup/presets.js').Preset>} checked above */ (presetById(preset)), confirmed };
}

/**
 * Reaches the Chrome at a DevTools port: its endpoint, then a connection to it.
 * @param {number} port @param {import('./cdp-connection.js').CdpOptions} options
 * @returns {Promise<Browser>}
 */
async function connectAt(port, options) {
  const endpoint = `http://127.0.0.1:${port}`;
  let found;
  try {
    found = await browserEndpoint(port);
  } catch (err) {
    if (err instanceof RefusedAnswer) throw apiErrors.devtoolsRefused(`the lab refuses the DevTools endpoint at ${endpoint}: ${err.message}`);
    const failed = /** @type {Error & { cause?: { code?: string } }} fetch's */ (err);
    throw apiErrors.devtoolsUnreachable(`no DevTools endpoint answered at ${endpoint} (${failed.cause?.code ?? failed.message})`);
  }
  try {
    return { product: found.product, sessions: new Map(), cdp: await openCdpConnection(found.wsUrl, options) };
  } catch (err) {
    throw apiErrors.devtoolsUnreachable(`the DevTools endpoint at ${endpoint} refused a connection (${/** @type {Error} */ (err).message})`);
  }
}

/** @param {Browser} browser @param {string} targetId @returns {Promise<TabSession>} */
async function sessionFor(browser, targetId) {
  const known = browser.sessions.get(targetId);
  if (known) return known;
  const { sessionId } = /** @type {{ sessionId?: unknown }} */ ((await browser.cdp.send('Target.attachToTarget', { targetId, flatten: true })) ?? {});
  if (typeof sessionId !== 'string') throw apiErrors.devtoolsFailed('the browser answered Target.attachToTarget with no session');
  /** @type {TabSession} */
  const entry = { sessionId, presetId: null, session: { send: (method, params) => browser.cdp.send(method, params, sessionId) } };
  browser.sessions.set(targetId, entry);
  return entry;
}

/** @param {Browser} browser @param {string} targetId */
async function release(browser, targetId) {
  const entry = browser.sessions.get(targetId);
  if (!entry) return;
  browser.sessions.delete(targetId);
  await clearNetwork(entry.session).catch(() => {}); // a tab already gone has nothing to clear
  await browser.cdp.send('Target.detachFromTarget', { sessionId: entry.sessionId }).catch(() => {});
}

/** @param {Browser} browser @returns {Promise<TargetInfo[]>} the browser's pages */
async function pagesOf(browser) {
  const { targetInfos } = /** @type {{ targetInfos?: unknown }} */ ((await browser.cdp.send('Target.getTargets')) ?? {});
  if (!Array.isArray(targetInfos) || !targetInfos.every((t) => t && typeof t === 'object')) {
    throw apiErrors.devtoolsFailed('the browser answered Target.getTargets with no target list');
  }
  return /** @type {TargetInfo[]} */ (targetInfos).filter((t) => t.type === 'page');
}

// A window the lab's tab opened a moment ago (the Page load panel opens it and asks at once) may
// not be among the browser's targets yet: under load it was not, and the preset stayed a label
// (a CI run, 2026-11-28). Asked again every 50 ms for up to 2 s before "no window".
const openedWindowWait = { everyMs: 50, forMs: 2_000 };

/** @param {Browser} browser @param {EmulationRequest} request */
async function applyTo(browser, { devtoolsChannel, devtoolsPort, pageUrl, windows, preset }) {
  const deadline = Date.now() + openedWindowWait.forMs;
  /** @type {TargetInfo[]} */
  let targets;
  for (;;) {
    const pages = await pagesOf(browser);
    const tabs = pages.filter((t) => isLabTab(t.url, pageUrl, devtoolsChannel ?? devtoolsPort));
    if (!tabs.length) throw apiErrors.noLabTab(`the browser ${devtoolsChannel ? 'npm run chrome opened' : `at DevTools port ${devtoolsPort}`} has no lab tab at ${pageUrl}`);
    targets = windows === 'tab' ? tabs : pages.filter((t) => tabs.some((tab) => tab.targetId === t.openerId));
    if (targets.length || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, openedWindowWait.everyMs));
  }
  if (!targets.length) throw apiErrors.noLabWindow(`the lab's tab at ${pageUrl} has no window of its own open`);
  for (const { targetId } of targets) {
    if (!isThrottled(preset) && !isOffline(preset)) {
      await release(browser, targetId);
      continue;
    }
    const entry = await sessionFor(browser, targetId);
    try {
      await applyPreset(entry.session, preset);
    } catch (err) {
      await release(browser, targetId);
      throw apiErrors.devtoolsFailed(`the browser refused the emulation (${/** @type {Error} */ (err).message})`);
    }
    entry.presetId = preset.id;
  }
  return targets.length;
}

export function createPageNetwork() {
  /** @type {Map<string|number, Browser>} channel or port → { cdp, product, sessions: Map<targetId, { sessionId, session, presetId }> } */
  const browsers = new Map();
  /** @type {Map<string, import('ws').WebSocket>} channel → the WebSocket npm run chrome holds it by */
  const channels = new Map();

  /**
   * @param {string|number} key  the browser's channel or port
   * @returns {import('./cdp-connection.js').CdpOptions}
   */
  const cdpOptions = (key) => ({
    timeoutMs: devtoolsLimits.answerTimeoutMs,
    maxMessageBytes: devtoolsLimits.messageMaxBytes,
    onEvent(method, params) {
      // The tab closed (or navigated away from us): its emulation went with the session.
      if (method === 'Target.detachedFromTarget') browsers.get(key)?.sessions.delete(/** @type {string} */ (params.targetId));
    },
    onClose: () => browsers.delete(key),
  });

  /**
   * The Chrome behind npm run chrome's channel: its commands go through that command (runner/browsers/devtools-relay.js).
   * @param {string} channel
   * @returns {Browser}
   */
  function browserOn(channel) {
    const known = browsers.get(channel);
    if (known?.cdp.open) return known;
    const ws = channels.get(channel);
    if (!ws) throw apiErrors.devtoolsChannelUnknown(channel);
    const browser = { product: 'Chrome opened by npm run chrome', sessions: new Map(), cdp: cdpOver(ws, cdpOptions(channel)) };
    browsers.set(channel, browser);
    return browser;
  }

  /** @param {number} port @returns {Promise<Browser>} */
  async function browserAt(port) {
    const known = browsers.get(port);
    if (known?.cdp.open) return known;
    const browser = await connectAt(port, cdpOptions(port));
    browsers.set(port, browser);
    return browser;
  }

  return {
    /**
     * npm run chrome's channel (an open WebSocket), usable until the returned withdraw() is called
     * or it closes; false when that channel is held already.
     * @param {string} channel
     */
    channelHeld: (channel) => channels.has(channel),
    /** @param {string} channel @param {import('ws').WebSocket} ws */
    holdChannel(channel, ws) {
      if (channels.has(channel)) return false;
      channels.set(channel, ws);
      return () => {
        if (channels.get(channel) === ws) channels.delete(channel);
      };
    },
    /**
     * Applies a preset (or clears, for No throttling) to the lab's tab or the windows it opened.
     * @param {EmulationRequest} request
     * @returns {Promise<{ preset: string, windows: string, targets: number, browser: string }>}
     */
    async apply(request) {
      const { devtoolsChannel, devtoolsPort, confirmed } = request;
      const port = /** @type {number} used only without a channel, which then has a port */ (devtoolsPort);
      if (!devtoolsChannel && !confirmed) throw apiErrors.devtoolsUnconfirmed(port);
      const browser = devtoolsChannel ? browserOn(devtoolsChannel) : await browserAt(port);
      try {
        const targets = await applyTo(browser, request);
        return { preset: request.preset.id, windows: request.windows, targets, browser: browser.product };
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw apiErrors.devtoolsFailed(`the browser ${devtoolsChannel ? 'npm run chrome opened' : `at DevTools port ${devtoolsPort}`} failed (${/** @type {Error} */ (err).message})`); // its connection, mostly
      }
    },
    /** Clears every emulation the lab applied and lets go of the browsers and of the channels. */
    async close() {
      for (const browser of browsers.values()) {
        for (const targetId of [...browser.sessions.keys()]) await release(browser, targetId);
        browser.cdp.close();
      }
      browsers.clear();
      // An upgraded connection is no longer the UI server's to close, and its close waits for it.
      for (const ws of channels.values()) ws.terminate();
      channels.clear();
    },
  };
}
