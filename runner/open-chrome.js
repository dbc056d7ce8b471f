// `npm run chrome`: open the user's Chrome on the lab UI, in a throwaway profile
// that trusts the lab's leaf key, with DevTools open.
import fs from 'node:fs';
import os from 'node:os';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { launch } from 'chrome-launcher';
import { ensureCerts } from '../server/certs.js';
import { readArgs, usageError } from '../cli/options.js';
import { certsDir, configFromEnv } from '../server/config.js';
import { chromeFlags, findChrome, labHostsOnlyFlags } from './chrome.js';
import { forceQuicFlag } from '../common/quic.js';
import { runCli } from '../cli/run.js';
import { freePort } from '../server/fronts/ports.js';
import { devtoolsPortParam, noSandboxParam } from '../common/devtools-network.js';
import { holdAnnouncement } from '../server/announce.js';
import { makeOwnedDir } from '../server/owned-dirs.js';
import { insidePacketNetwork, packetNetworkMissing, rerunInside } from '../server/packet/launcher.js';
import { browserSide, labNames, personOutside } from '../server/packet/browser.js';
import { serverSideAddress } from '../server/packet/sides.js';

const USAGE = `Usage: npm run chrome -- [--url URL | --network packet]

Opens Chrome/Chromium on the lab UI with a throwaway profile that trusts the
lab's certificate and DevTools open. The profile reaches only the lab's names
(localhost, 127.0.0.1, ::1, H2LAB_HOST, H2LAB_SAN and the URL's host): it trusts
the lab's key for any name, so it is for the lab alone. It is deleted when
Chrome exits.
The lab applies the page's network preset through this Chrome's DevTools port,
which this command announces to the lab while Chrome runs.

  --url URL         page to open (default: H2LAB_UI_URL, else http://localhost:<H2LAB_UI_PORT or 8080>/)
  --network packet  start a lab of its own on the packet network's server side (no npm start
                    needed) and open Chrome on its browser side, where "Throttled by" offers
                    "Lab network (packets)": real TCP and QUIC on an emulated path, loss included
                    (Linux: user namespaces, /dev/net/tun, python3). Only that Chrome reaches
                    this lab; closing it, or Ctrl-C, stops both.
  --help            show this help
Set CHROME_PATH to choose the browser.`;

// The throwaway profiles' folders: one a killed command left is removed by the next (server/owned-dirs.js).
const profilePrefix = 'h2lab-chrome-';

// The lab on this machine answers in milliseconds; past this, Chrome opens without waiting.
const labAnswerMs = 2_000;

// Chrome refuses its sandbox as root; as anyone else it keeps it, on the packet network too.
const sandboxOff = (uid) => uid === 0;
const noSandboxNotice = 'Chrome runs without its sandbox: it refuses it as root. Run npm run chrome as yourself to keep it (docs/throttling.md).';

let userDataDir;
let announcement;
let packetLab;
process.exitCode = await runCli({
  name: 'chrome',
  usage: USAGE,
  parse: parseOptions,
  run: open,
  cleanup: () => {
    announcement?.stop();
    packetLab?.close();
    if (userDataDir) removeProfile(userDataDir);
  },
});

async function open(options) {
  if (options.network === 'packet') return openOnPacketNetwork();
  // Same SANs as the servers, so this does not replace the leaf they serve.
  const { spkiSha256 } = await ensureCerts({ dir: certsDir, sans: configFromEnv('sans') });
  const chromePath = findChrome();
  userDataDir = makeOwnedDir(profilePrefix);
  // The page learns this Chrome's DevTools port from its address and asks the lab to apply the
  // chosen preset through it (server/devtools/), so the label is what the network does.
  const port = await freePort(0, '127.0.0.1');
  announcement = await announcePort(options.url, port);
  const startingUrl = new URL(options.url);
  startingUrl.searchParams.set(devtoolsPortParam, String(port));
  const noSandbox = sandboxOff(process.getuid?.());
  if (noSandbox) startingUrl.searchParams.set(noSandboxParam, '1');
  const chrome = await launch({
    chromePath,
    port,
    startingUrl: startingUrl.href,
    // chrome-launcher adds --user-data-dir itself, but deletes only profiles it created.
    userDataDir,
    // Its defaults tune Chrome for automation (no throttling, forced field trials, features off);
    // the lab should see a stock Chrome.
    ignoreDefaultFlags: true,
    // We kill Chrome ourselves so the exit handler below can delete the profile.
    handleSIGINT: false,
    chromeFlags: labFlags({ spkiSha256, profileDir: userDataDir, forceQuic: await quicOrigins(options.url), hosts: labHosts(options.url), noSandbox }),
  }).catch((err) => {
    // chrome-launcher only reports the last failed connection to the DevTools port.
    throw new Error(`${chromePath} did not start: ${err.message}`);
  });
  chrome.process.once('exit', () => {
    announcement.stop(); // the port is no longer this Chrome's
    removeProfile(userDataDir);
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      process.exitCode = 128 + os.constants.signals[signal];
      chrome.kill();
    });
  }
  console.log(`Opened ${chromePath} on ${options.url} with a throwaway profile for the lab alone (it reaches only the lab's names; deleted when Chrome exits); DevTools port ${port}, through which the lab applies the page's preset.`);
  if (noSandbox) console.log(noSandboxNotice);
}

/**
 * --network packet: runs this command again under launch.py (server/packet/), where it starts a
 * lab on the server side and Chrome on the browser side, on the lab's page with the packet
 * network chosen; resolves the exit code once Chrome exits (closed, or ended by Ctrl-C).
 */
async function openOnPacketNetwork() {
  if (!insidePacketNetwork()) {
    const missing = packetNetworkMissing();
    if (missing) throw Object.assign(new Error(`--network packet: ${missing}`), { exitCode: 2 });
    return rerunInside();
  }
  const { startLab } = await import('../server/lab.js');
  // The browser comes from the other namespace: the lab listens on every address of its own.
  packetLab = await startLab({ host: '0.0.0.0', packet: true }, { onNotice: (line) => console.error(`h2lab chrome: ${line}`) });
  const chromePath = findChrome();
  const noSandbox = sandboxOff(personOutside().uid);
  const url = new URL(`${packetLab.uiOrigin}/?network=packet`);
  if (noSandbox) url.searchParams.set(noSandboxParam, '1');
  userDataDir = makeOwnedDir(profilePrefix);
  const forceQuic = forceQuicFlag(packetLab.describe().servers);
  const flags = labFlags({ spkiSha256: packetLab.certs.spkiSha256, profileDir: userDataDir, forceQuic, hosts: labNames, mapTo: serverSideAddress, noSandbox });
  // No DevTools port: it would listen on the browser side, out of the lab's reach.
  const side = browserSide(chromePath);
  const chrome = spawn(side.executablePath, [...flags, `--user-data-dir=${userDataDir}`, url.href], { env: side.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let lastLine = '';
  chrome.stderr.setEncoding('utf8').on('data', (text) => (lastLine = text.trim().split('\n').at(-1) || lastLine));
  let signalled = null;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      signalled = signal;
      chrome.kill();
    });
  }
  console.log(`Opened ${chromePath} on the packet network's browser side, on ${url.origin}/ of a lab of its own on the server side (only this Chrome reaches it; closing Chrome or Ctrl-C stops both), with a throwaway profile for the lab alone.`);
  if (noSandbox) console.log(noSandboxNotice);
  const [code] = await once(chrome, 'exit');
  // A process Chrome started may hold its stderr after it (crashpad's handler): not this command.
  chrome.stderr.destroy();
  await packetLab.close();
  removeProfile(userDataDir);
  if (signalled) return 128 + os.constants.signals[signalled];
  if (code) throw new Error(`${chromePath} exited with code ${code}: ${lastLine}`);
  return 0;
}

/**
 * Tells the lab at `url` that `port` is this Chrome's DevTools port, for as long as this command
 * runs (server/announce.js): the lab uses no other port unless the person confirms it in the
 * page. Resolves once the lab answered (or did not), so the page finds the port announced.
 */
async function announcePort(url, port) {
  const { hostname, port: uiPort, origin } = new URL(url);
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let first;
  const answered = new Promise((resolve) => (first = resolve));
  const held = holdAnnouncement({ host, uiPort: Number(uiPort) || 80, path: `/api/devtools-port?port=${port}` }, (state, status) => {
    if (state === 'held') console.log(`The lab at ${origin} applies presets through this Chrome's DevTools port ${port} while it runs.`);
    if (state === 'refused') console.log(`The lab at ${origin} refused this Chrome's DevTools port (HTTP ${status}): presets stay labels.`);
    if (state === 'no-lab') console.log(`No lab answered at ${origin} yet: announcing this Chrome's DevTools port once it does.`);
    first();
  });
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, labAnswerMs).unref())]);
  return held;
}

function parseOptions(args, env) {
  const values = readArgs(args, { url: { type: 'string', accepts: 'a URL' }, network: { type: 'string', accepts: 'packet' } });
  if (values.network !== undefined && values.network !== 'packet') throw usageError('network', `must be packet (any other network is the running lab's: open it with --url), got ${JSON.stringify(values.network)}`);
  if (values.network && values.url !== undefined) throw usageError('network', 'packet opens a lab of its own: not with --url');
  const url = values.url ?? env.H2LAB_UI_URL ?? `http://localhost:${configFromEnv('uiPort', env)}/`;
  if (!URL.canParse(url)) throw usageError('url', `must be a URL, got ${JSON.stringify(url)}`);
  return { help: values.help ?? false, url, network: values.network };
}

/**
 * The lab's HTTP/3 origins, asked of the running lab (npm start) behind the page's origin: Chrome
 * takes them at start only. Without a lab answering, this Chrome will not speak HTTP/3, and says so.
 */
async function quicOrigins(url) {
  try {
    const res = await fetch(new URL('/api/servers', url), { signal: AbortSignal.timeout(2_000) });
    return forceQuicFlag((await res.json()).servers);
  } catch {
    console.log('No lab answered at that URL: this Chrome will not speak HTTP/3 (start the lab first, then npm run chrome).');
    return null;
  }
}

/** The lab's names: loopback's, the address it listens on, its certificate's extra names, the page's. */
function labHosts(url) {
  return ['localhost', '127.0.0.1', '::1', configFromEnv('host'), ...configFromEnv('sans'), new URL(url).hostname];
}

/**
 * @param {{ spkiSha256: string, profileDir: string, forceQuic: string|null, hosts: string[], mapTo?: string,
 *   noSandbox: boolean }} o hosts, mapTo: labHostsOnlyFlags'
 */
function labFlags({ spkiSha256, profileDir, forceQuic, hosts, mapTo, noSandbox }) {
  const flags = chromeFlags({ spkiSha256, userDataDir: profileDir, headless: false, forceQuic })
    .filter((flag) => !flag.startsWith('--user-data-dir='));
  flags.push(
    // The profile trusts the lab's key for any name: it reaches the lab and nothing else.
    ...labHostsOnlyFlags(hosts, mapTo),
    '--auto-open-devtools-for-tabs',
    // A fresh profile would otherwise ask for the OS keyring (Linux) or keychain (macOS).
    '--password-store=basic',
    '--use-mock-keychain',
  );
  if (noSandbox) flags.push('--no-sandbox');
  return flags;
}

function removeProfile(profileDir) {
  try {
    // Retries cover Windows, where Chrome's helpers may hold files for a moment after exit.
    fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5 });
  } catch (err) {
    console.error(`h2lab chrome: could not delete the throwaway profile: ${err.message}`);
  }
}
