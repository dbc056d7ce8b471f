// Who applies a DevTools preset in this browser. A Chrome opened by `npm run chrome` has a
// DevTools port (its address says which), and the lab applies the preset through it; in any other
// browser the page cannot, so the preset is a label the person must match in DevTools.
import { applyEmulation } from './api.js';
import { devtoolsPortParam } from '../../common/devtools-network.js';

/** @param {string} pageUrl location.href when the page loaded */
export function createPresetApplier(pageUrl) {
  const port = Number(new URL(pageUrl).searchParams.get(devtoolsPortParam)) || null;
  let refusal = port ? null : 'this browser was not opened by npm run chrome';
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
        await applyEmulation({ devtoolsPort: port, pageUrl: location.href, windows, preset: presetId });
        if (refusal) {
          refusal = null;
          changed();
        }
        return true;
      } catch (err) {
        refusal = `this Chrome's DevTools port did not take the preset (${err.message.replace(/^\/api\/emulation: /, '')})`;
        changed();
        return false;
      }
    },
  };
}
