// --browser as both runner commands take it (`npm run experiments`, `npm run page-loads`): a name
// or a comma-separated list, each able to run under every network asked for and installed.
import { browserCannot, browserNames } from './browsers.js';
import { findFirefox } from './firefox.js';
import { got, usageError } from '../../cli/options.js';

/** What --browser takes, for its usage line and errors. */
export const browserRule = `${browserNames.join(', ')}, or a comma-separated list of them`;

/**
 * The browsers in the order they run (browserNames' order). A bad name, a browser that cannot
 * apply one of the networks, Firefox outside a lab of the runner's own, or a Firefox that is not
 * installed: one line naming --browser (exit 2).
 * @param {string|undefined} text  the option's value (undefined: Chromium alone)
 * @param {readonly string[]} networks  the networks the command runs under
 * @param {{ remote: boolean }} o  remote: the command drives a browser or lab someone else started
 * @returns {import('./browsers.js').BrowserName[]}
 */
export function readBrowsers(text, networks, { remote }) {
  if (text === undefined) return ['chromium'];
  const names = text.split(',').map((n) => n.trim().toLowerCase());
  if (names.some((n) => !(/** @type {readonly string[]} */ (browserNames)).includes(n)) || new Set(names).size !== names.length) {
    throw usageError('browser', `must be ${browserRule}, ${got(text)}`);
  }
  const browsers = browserNames.filter((n) => names.includes(n));
  if (!browsers.includes('firefox')) return browsers;
  const refused = networks.find((n) => browserCannot('firefox', n));
  if (refused) throw usageError('browser', `firefox cannot run under --network ${refused}: ${browserCannot('firefox', refused)}`);
  // Firefox trusts the lab's CA, and reaches the lab by the names the runner's own lab gives it.
  if (remote) throw usageError('browser', "firefox runs in a lab of the runner's own: not with --browser-url or --no-servers");
  try {
    findFirefox();
  } catch (err) {
    throw usageError('browser', /** @type {Error} */ (err).message);
  }
  return browsers;
}
