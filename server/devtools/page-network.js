// Presets applied through a Chrome's own DevTools port, for the page a person is using (a Chrome
// opened by `npm run chrome` has one): the lab's tab, or the window it opened for page loads, gets
// the same Network.emulateNetworkConditions DevTools would send. The emulation lives as long as
// the lab's session with the tab (Chrome clears it when the session detaches), so the lab keeps
// that session until the preset is cleared, the tab closes or the lab stops.
//
// The lab connects only to a DevTools port that `npm run chrome` announced and still holds
// (POST /api/devtools-port), or one the person confirmed in the lab's page: any web page can send
// a visitor to the lab's address with ?devtools=<port>, and whatever listens there is a stranger.
import { isOffline, isThrottled, presetById } from '../../common/presets.js';
import { applyPreset, clearNetwork, devtoolsPortParam } from '../../common/devtools-network.js';
import { devtoolsLimits } from '../config.js';
import { openCdpConnection } from './cdp-connection.js';
import { browserEndpoint, RefusedAnswer } from './endpoint.js';
import { createHeldPorts } from '../held-ports.js';
import { inRange, rangeRule } from '../../common/units.js';
import { HttpError, apiErrors } from '../http/errors.js';

export class EmulationInputError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}


const windowsChoices = ['tab', 'opened'];

// The lab's tab is the page at the lab's address that carries this port: the rest of its query
// follows the form as the person edits it.
const isLabTab = (url, pageUrl, port) => {
  const a = URL.parse(url);
  const b = URL.parse(pageUrl);
  return a?.origin === b.origin && a.pathname === b.pathname && a.searchParams.get(devtoolsPortParam) === String(port);
};

const portRange = { min: 1, max: 65_535, integer: true };

/** The one check of PUT /api/emulation's body. */
export function parseEmulationRequest(body) {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const { devtoolsPort, pageUrl, windows = 'tab', preset, confirmed = false } = b;
  if (!inRange(portRange, devtoolsPort)) throw new EmulationInputError('devtoolsPort', `devtoolsPort must be ${rangeRule(portRange)}, got ${JSON.stringify(devtoolsPort)}`);
  if (typeof pageUrl !== 'string' || !/^https?:$/.test(URL.parse(pageUrl)?.protocol)) {
    throw new EmulationInputError('pageUrl', `pageUrl must be the http(s) URL of the lab's tab, got ${JSON.stringify(pageUrl)}`);
  }
  if (!windowsChoices.includes(windows)) {
    throw new EmulationInputError('windows', `windows must be one of ${windowsChoices.join(', ')}, got ${JSON.stringify(windows)}`);
  }
  if (typeof preset !== 'string' || !presetById(preset)) {
    throw new EmulationInputError('preset', `preset must be a preset id (common/presets.js), got ${JSON.stringify(preset)}`);
  }
  if (typeof confirmed !== 'boolean') {
    throw new EmulationInputError('confirmed', `confirmed must be true (the person confirmed the port in the page) or false, got ${JSON.stringify(confirmed)}`);
  }
  return { devtoolsPort, pageUrl, windows, preset: presetById(preset), confirmed };
}

export function createPageNetwork() {
  /** port → { cdp, product, sessions: Map<targetId, { sessionId, session, presetId }> } */
  const browsers = new Map();

  const announced = createHeldPorts();

  async function browserAt(port) {
    const known = browsers.get(port);
    if (known?.cdp.open) return known;
    const endpoint = `http://127.0.0.1:${port}`;
    let found;
    try {
      found = await browserEndpoint(port);
    } catch (err) {
      if (err instanceof RefusedAnswer) throw apiErrors.devtoolsRefused(`the lab refuses the DevTools endpoint at ${endpoint}: ${err.message}`);
      throw apiErrors.devtoolsUnreachable(`no DevTools endpoint answered at ${endpoint} (${err.cause?.code ?? err.message})`);
    }
    const browser = { product: found.product, sessions: new Map() };
    try {
      browser.cdp = await openCdpConnection(found.wsUrl, {
        timeoutMs: devtoolsLimits.answerTimeoutMs,
        maxMessageBytes: devtoolsLimits.messageMaxBytes,
        onEvent(method, params) {
          // The tab closed (or navigated away from us): its emulation went with the session.
          if (method === 'Target.detachedFromTarget') browser.sessions.delete(params.targetId);
        },
        onClose: () => browsers.delete(port),
      });
    } catch (err) {
      throw apiErrors.devtoolsUnreachable(`the DevTools endpoint at ${endpoint} refused a connection (${err.message})`);
    }
    browsers.set(port, browser);
    return browser;
  }

  async function sessionFor(browser, targetId) {
    const known = browser.sessions.get(targetId);
    if (known) return known;
    const { sessionId } = (await browser.cdp.send('Target.attachToTarget', { targetId, flatten: true })) ?? {};
    if (typeof sessionId !== 'string') throw apiErrors.devtoolsFailed('the browser answered Target.attachToTarget with no session');
    const entry = { sessionId, presetId: null, session: { send: (method, params) => browser.cdp.send(method, params, sessionId) } };
    browser.sessions.set(targetId, entry);
    return entry;
  }

  async function release(browser, targetId) {
    const entry = browser.sessions.get(targetId);
    if (!entry) return;
    browser.sessions.delete(targetId);
    await clearNetwork(entry.session).catch(() => {}); // a tab already gone has nothing to clear
    await browser.cdp.send('Target.detachFromTarget', { sessionId: entry.sessionId }).catch(() => {});
  }

  async function applyTo(browser, { devtoolsPort, pageUrl, windows, preset }) {
    const { targetInfos } = (await browser.cdp.send('Target.getTargets')) ?? {};
    if (!Array.isArray(targetInfos) || !targetInfos.every((t) => t && typeof t === 'object')) {
      throw apiErrors.devtoolsFailed('the browser answered Target.getTargets with no target list');
    }
    const pages = targetInfos.filter((t) => t.type === 'page');
    const tabs = pages.filter((t) => isLabTab(t.url, pageUrl, devtoolsPort));
    if (!tabs.length) throw apiErrors.noLabTab(`the browser at DevTools port ${devtoolsPort} has no lab tab at ${pageUrl}`);
    const targets = windows === 'tab' ? tabs : pages.filter((t) => tabs.some((tab) => tab.targetId === t.openerId));
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
        throw apiErrors.devtoolsFailed(`the browser refused the emulation (${err.message})`);
      }
      entry.presetId = preset.id;
    }
    return targets.length;
  }

  return {
    /** npm run chrome's DevTools port, usable until the returned withdraw() is called. */
    announce: (port) => announced.hold(port),
    /**
     * Applies a preset (or clears, for No throttling) to the lab's tab or the windows it opened.
     * @returns {Promise<{ preset: string, windows: string, targets: number, browser: string }>}
     */
    async apply(request) {
      const { devtoolsPort, confirmed } = request;
      if (!announced.has(devtoolsPort) && !confirmed) {
        throw apiErrors.devtoolsUnconfirmed(devtoolsPort);
      }
      const browser = await browserAt(devtoolsPort);
      try {
        const targets = await applyTo(browser, request);
        return { preset: request.preset.id, windows: request.windows, targets, browser: browser.product };
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw apiErrors.devtoolsFailed(`the browser at DevTools port ${devtoolsPort} failed (${err.message})`); // its connection, mostly
      }
    },
    /** Clears every emulation the lab applied and lets go of the browsers. */
    async close() {
      for (const browser of browsers.values()) {
        for (const targetId of [...browser.sessions.keys()]) await release(browser, targetId);
        browser.cdp.close();
      }
      browsers.clear();
    },
  };
}
