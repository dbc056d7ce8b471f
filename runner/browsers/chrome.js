// One way to find and configure Chrome for the app, the tests and the runner.
import fs from 'node:fs';
import { Launcher } from 'chrome-launcher';

const DEBIAN_CHROMIUM_PATH = '/usr/bin/chromium';

/** Absolute path of the Chrome/Chromium to use: $CHROME_PATH, else an installed one, else Debian's chromium. */
export function findChrome() {
  const fromEnv = process.env.CHROME_PATH;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`CHROME_PATH points to a missing file: ${fromEnv}`);
    return fromEnv;
  }
  const installed = firstInstallation();
  if (installed) return installed;
  if (fs.existsSync(DEBIAN_CHROMIUM_PATH)) return DEBIAN_CHROMIUM_PATH;
  throw new Error('No Chrome or Chromium found: install Google Chrome, or Debian\'s chromium (apt-get install -y chromium), or set CHROME_PATH.');
}

function firstInstallation() {
  try {
    // Same list as getInstallations()[0], but on macOS it checks /Applications before the slow lsregister scan.
    return Launcher.getFirstInstallation();
  } catch {
    // chrome-launcher throws when it finds nothing on Linux and on unsupported platforms.
    return undefined;
  }
}

/**
 * Flags for a lab browser that trusts the lab's leaf key, stays quiet on the network and speaks
 * HTTP/3 to the lab's HTTP/3 origins (forceQuic: common/setup/quic.js forceQuicFlag(), or null).
 * @param {{ spkiSha256: string|null, userDataDir: string, headless?: boolean, forceQuic?: string|null }} o  spkiSha256: null trusts no key beyond the system's (a recording)
 * @returns {string[]}
 */
export function chromeFlags({ spkiSha256, userDataDir, headless = true, forceQuic = null }) {
  const flags = [
    // Trusts the lab's self-issued leaf by key; Chrome ignores this flag without --user-data-dir.
    ...(spkiSha256 ? [`--ignore-certificate-errors-spki-list=${spkiSha256}`] : []),
    `--user-data-dir=${userDataDir}`,
    '--no-first-run',
    '--no-default-browser-check',
    // Keep Chrome's own background traffic out of the measured connections.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    // QUIC stays on (--disable-quic would win over forceQuic): Chrome uses it only where forced,
    // since no lab server advertises HTTP/3 with Alt-Svc.
    ...(forceQuic ? [forceQuic] : []),
  ];
  if (headless) {
    flags.push(
      '--headless',
      // Chrome's sandbox refuses to start as root, which is how CI runs.
      '--no-sandbox',
      '--disable-gpu',
    );
  }
  return flags;
}

/** The host resolver rules' target that resolves to nothing, without a lookup. */
export const noSuchHost = '^NOTFOUND';

/**
 * Flags that leave a Chrome able to reach only `hosts` (names or IP literals), for a profile that
 * trusts the lab's key: --ignore-certificate-errors-spki-list trusts it for any name, so a
 * profile that could reach other sites would accept the lab's key for them too. Every other name
 * and address resolves to nothing (Chrome's host resolver rules apply to IP literals as well), and
 * no proxy is used, since a proxy would resolve names itself. With `mapTo` (an address), the
 * lab's names resolve to it: the packet network's server side (server/packet/browser.js).
 * @param {string[]} hosts
 * @param {string|null} [mapTo]
 * @returns {string[]}
 */
export function labHostsOnlyFlags(hosts, mapTo = null) {
  const names = [...new Set(hosts.map((h) => h.replace(/^\[(.*)\]$/, '$1').toLowerCase()))].filter((h) => /^[\w.:-]+$/.test(h));
  // Chrome applies the first MAP rule that matches a name, after every EXCLUDE rule. ^NOTFOUND
  // fails the name before any lookup; ~NOTFOUND (the older spelling) is a name to Chromium 156,
  // which it sent to the system resolver (NetLog: HOST_RESOLVER_MANAGER_REQUEST for https://~notfound).
  const rules = mapTo ? [...names.map((h) => `MAP ${h} ${mapTo}`), `MAP * ${noSuchHost}`] : [`MAP * ${noSuchHost}`, ...names.map((h) => `EXCLUDE ${h}`)];
  return [`--host-resolver-rules=${rules.join(', ')}`, '--no-proxy-server'];
}
