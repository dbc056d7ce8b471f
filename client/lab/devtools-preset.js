// Who applies a DevTools preset in this browser. A Chrome opened by `npm run chrome` has a
// DevTools port (its address says which, and npm run chrome announced it to the lab), and the lab
// applies the preset through it; in any other browser the page cannot, so the preset is a label
// the person must match in DevTools. A port in the address that npm run chrome did not announce
// (any page can link here with one) is used only once the person confirms it.
import { applyEmulation } from './api.js';
import { devtoolsPortParam } from '../../common/devtools-network.js';

/** @param {string} pageUrl location.href when the page loaded */
export function createPresetApplier(pageUrl) {
  const port = Number(new URL(pageUrl).searchParams.get(devtoolsPortParam)) || null;
  let refusal = port ? null : 'this browser was not opened by npm run chrome';
  let confirmed = false;
  let needsConfirmation = false;
  const listeners = new Set();
  const changed = () => listeners.forEach((fn) => fn());
  return {
    /** The DevTools port from the page's address, to keep in it as the form rewrites the query. */
    port,
    /** True while the lab can apply presets here (a port, and no refusal yet). */
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
    onChange(fn) {
      listeners.add(fn);
    },
    /**
     * Applies `presetId` (No throttling clears) to this tab or to the windows it opened. Resolves
     * true when the lab applied it; false when the preset stays a label, the reason in `refusal`.
     */
    async apply(presetId, windows = 'tab') {
      if (!port) return false;
      try {
        await applyEmulation({ devtoolsPort: port, pageUrl: location.href, windows, preset: presetId, confirmed });
        if (refusal) {
          refusal = null;
          changed();
        }
        return true;
      } catch (err) {
        needsConfirmation = err.body?.code === 'devtools-port-unconfirmed'; // server/http/errors.js
        refusal = needsConfirmation
          ? `npm run chrome did not announce the DevTools port ${port} in this page's address, and it is not confirmed`
          : `this Chrome's DevTools port did not take the preset (${err.message.replace(/^\/api\/emulation: /, '')})`;
        changed();
        return false;
      }
    },
  };
}
