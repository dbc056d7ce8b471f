// `npm run firefox`: a person's Firefox on the lab, as `npm run chrome` is Chrome's. Firefox
// reaches the lab by the lab's names (common/setup/host-names.js), which a lab started by `npm start`
// does not give its origins: this command starts a lab of its own (on the packet network with
// --network packet) and opens Firefox on it, with the runner's throwaway profile (its NSS
// database trusting the lab's CA, runner/browsers/firefox-prefs.js). Closing Firefox, or Ctrl-C, stops both
// and removes the profile (runner/browsers/session.js).
import { readArgs, usageError } from '../../cli/options.js';
import { runCli } from '../../cli/run.js';
import { runSession } from '../browsers/session.js';
import { browserCannot } from '../browsers/browsers.js';
import { findFirefox } from '../browsers/firefox.js';
import { networkOf, networks } from '../../common/setup/networks.js';
import { frontsOf } from '../../common/setup/servers.js';

const usage = `Usage: npm run firefox -- [--network link|packet]

Starts a lab of its own and opens Firefox on it, with a throwaway profile whose NSS database
trusts the lab's CA, HTTP/3 mapped to the lab's HTTP/3 server (docs/browsers.md). Closing
Firefox, or Ctrl-C, stops both; the profile is deleted.

  --network link    the lab on loopback, its link as the page's "Lab link" (default)
  --network packet  the lab on the packet network's server side and Firefox on its browser side,
                    the page on "Lab network (packets)" (Linux: user namespaces, /dev/net/tun, python3)
  --help            show this help
Set FIREFOX_PATH to choose the browser. ${networks.flatMap((n) => browserCannot('firefox', n.id)?.split(':')[0] ?? []).join('; ')}: the page's
"DevTools" choice does not apply in Firefox.`;

// The networks Firefox can take (common/setup/networks.js, runner/browsers/browsers.js), the lab link first.
const firefoxNetworks = networks.map((n) => n.id).filter((id) => !browserCannot('firefox', id));
const defaultNetwork = firefoxNetworks[0];

/** @param {string[]} args */
function parse(args) {
  const values = readArgs(args, { network: { type: 'string', accepts: firefoxNetworks.join(' or ') } });
  if (values.help) return { help: /** @type {const} */ (true) };
  const network = /** @type {import('../../common/setup/networks.js').NetworkId} checked below */ (String(values.network ?? defaultNetwork).trim().toLowerCase());
  if (!firefoxNetworks.includes(network)) throw usageError('network', `must be ${firefoxNetworks.join(' or ')}, got "${values.network}"`);
  findFirefox(); // missing: one line naming what to install, exit 2
  return { help: /** @type {const} */ (false), network };
}

/** @param {{ network: import('../../common/setup/networks.js').NetworkId }} o */
async function open({ network }) {
  const packet = networkOf(network).ownLab;
  return runSession({ packet, servers: true, headed: true, fronts: frontsOf(), browsers: ['firefox'] }, async ({ browser, uiOrigin }) => {
    await browser.openPage(`${uiOrigin}/?network=${network}`);
    console.log(`Opened Firefox on ${uiOrigin}/ of a lab of its own${packet ? " on the packet network's server side, Firefox on its browser side" : ''}, with a throwaway profile trusting the lab's CA; closing Firefox or Ctrl-C stops both.`);
    await browser.closed;
    return 0;
  });
}

process.exitCode = await runCli({ name: 'firefox', usage, parse, run: open });
