// The browsers the runner drives (runner/browsers/browsers.js), by id, in the order a list of them runs,
// with their names in titles and tables.
export const browserNames = /** @type {const} */ (['chromium', 'firefox']);
/** @typedef {typeof browserNames[number]} BrowserName */

/** @type {Record<BrowserName, string>} */
export const browserTitles = { chromium: 'Chromium', firefox: 'Firefox' };

/** The browsers that speak the DevTools Protocol (Firefox's WebDriver BiDi has no network emulation). */
export const speaksDevToolsProtocol = /** @type {readonly BrowserName[]} */ (['chromium']);
