// Who applies a DevTools preset in this browser. A Chrome opened by `npm run chrome` carries its
// channel to the lab in the page's address (the command holds it open: runner/browsers/devtools-relay.js),
// and the lab applies the preset through it; a Chrome the person started with a DevTools port may
// carry that port instead, which the lab uses only once the person confirms it (any page can link
// here with a port). In any other browser the page cannot, so the preset is a label the person
// must match in DevTools.
import { applyEmulation } from './api.js';
import { devtoolsParam } from '../../common/setup/devtools-network.js';

/**
 * What ?devtools= names: npm run chrome's channel, a DevTools port, or nothing usable.
 * @param {string} pageUrl
 * @returns {{ devtoolsChannel: string, devtoolsPort?: undefined } | { devtoolsPort: number, devtoolsChannel?: undefined } | null}
 */
export function devtoolsFromAddress(pageUrl) {
  const value = new URL(pageUrl).searchParams.get(devtoolsParam) ?? '';
  if (/^[0-9a-f]{32}$/.test(value)) return { devtoolsChannel: value };
  const port = /^\d{1,5}$/.test(value) ? Number(value) : 0;
  return port >= 1 && port <= 65_535 ? { devtoolsPort: port } : null;
}

/** @param {string} pageUrl location.href when the page loaded */
export function createPresetApplier(pageUrl) {
  const via = devtoolsFromAddress(pageUrl);
  let refusal = via ? null : 'this browser was not opened by npm run chrome';
  let confirmed = false;
  let needsConfirmation = false;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const changed = () => listeners.forEach((fn) => fn());
  return {
    /** The ?devtools= value, to keep in the address as the form rewrites the query. */
    param: via ? String(via.devtoolsChannel ?? via.devtoolsPort) : null,
    /** The DevTools port in the page's address, when it names one (not npm run chrome's channel). */
    port: via?.devtoolsPort ?? null,
    /** True while the lab can apply presets here (a way to DevTools, and no refusal yet). */
    get active() {
      return refusal === null;
    },
    /** Why the preset is only a label (null while the lab applies it). */
    get refusal() {
      return refusal;
    },
    /** True when the lab asks the person to confirm the port before it uses it. */
    get needsConfirmation() {
      return needsConfirmation;
    },
    /** The person confirmed the port: the next apply asks the lab to use it. */
    confirm() {
      confirmed = true;
      needsConfirmation = false;
      changed();
    },
    /** @param {() => void} fn called whenever active, refusal or needsConfirmation change */
    onChange(fn) {
      listeners.add(fn);
    },
    /**
     * Applies `presetId` (No throttling clears) to this tab or to the windows it opened. Resolves
     * true when the lab applied it; false when the preset stays a label, the reason in `refusal`.
     * @param {string} presetId
     * @param {'tab'|'opened'} [windows]
     * @returns {Promise<boolean>}
     */
    async apply(presetId, windows = 'tab') {
      if (!via) return false;
      try {
        await applyEmulation({ ...via, pageUrl: location.href, windows, preset: presetId, ...(via.devtoolsPort && { confirmed }) });
        if (refusal) {
          refusal = null;
          changed();
        }
        return true;
      } catch (caught) {
        const err = /** @type {import('./api.js').ApiError} */ (caught);
        needsConfirmation = err.body?.code === 'devtools-port-unconfirmed'; // server/http/errors.js
        refusal = needsConfirmation
          ? `DevTools port ${via.devtoolsPort} in this page's address is not confirmed`
          : `${via.devtoolsPort ? "this Chrome's DevTools port" : "npm run chrome's channel"} did not take the preset (${err.message.replace(/^\/api\/emulation: /, '')})`;
        changed();
        return false;
      }
    },
  };
}
