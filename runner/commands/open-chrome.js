// `npm run chrome`: open the user's Chrome on the lab UI, in a throwaway profile
// that trusts the lab's leaf key, with DevTools open. Chrome opens no DevTools port: this command
// drives it over a pipe (runner/browsers/chrome-pipe.js), grants the lab's page what it needs, and relays
// to the lab only the commands of network emulation (runner/browsers/devtools-relay.js).
import { UsageError } from '../../common/setup/errors.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { ensureCerts } from '../../server/certs.js';
import { readArgs, usageError } from '../../cli/options.js';
import { certsDir, configFromEnv, devtoolsLimits } from '../../server/config.js';
import { chromeFlags, findChrome, labHostsOnlyFlags } from '../browsers/chrome.js';
import { openChromePipe, pipeStdio } from '../browsers/chrome-pipe.js';
import { relayToLab } from '../browsers/devtools-relay.js';
import { forceQuicFlag } from '../../common/setup/quic.js';
import { runCli } from '../../cli/run.js';
import { devtoolsParam, noSandboxParam } from '../../common/setup/devtools-network.js';
import { makeOwnedDir } from '../../server/owned-dirs.js';
import { insidePacketNetwork, packetNetworkMissing, rerunInside } from '../../server/packet/launcher.js';
import { browserSide, labNames, personOutside } from '../../server/packet/browser.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { networks } from '../../common/setup/networks.js';

// --network: the networks that run a lab of their own, which this command then starts.
/** @type {string[]} */
const ownLabNetworks = networks.filter((n) => n.ownLab).map((n) => n.id);

const USAGE = `Usage: npm run chrome -- [--url URL | --network packet]

Opens Chrome/Chromium on the lab UI with a throwaway profile that trusts the
lab's certificate and DevTools open. The profile reaches only the lab's names
(localhost, 127.0.0.1, ::1, H2LAB_HOST, H2LAB_SAN and the URL's host): it trusts
the lab's key for any name, so it is for the lab alone. It is deleted when
Chrome exits.
The lab applies the page's network preset in this Chrome through this command,
which holds Chrome's DevTools pipe: Chrome opens no DevTools port.

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
/** @param {number|undefined} uid */
const sandboxOff = (uid) => uid === 0;
const noSandboxNotice = 'Chrome runs without its sandbox: it refuses it as root. Run npm run chrome as yourself to keep it (docs/throttling.md).';

// Chrome 156 asks before a page reaches addresses it counts as more private than the page's own
// (Local Network Access: "… wants to access other apps and services on this device"). The lab's
// page reaches only the lab's servers, and on the packet network they resolve to 198.18.0.1, not
// loopback: the permission is the lab profile's from the start, for the lab's page alone.
const localNetworkPermissions = ['local-network-access', 'local-network', 'loopback-network'];

/** @typedef {import('../browsers/session.js').StartedLab} StartedLab */
/** @typedef {import('../browsers/chrome-pipe.js').CdpMessage} CdpMessage */

/** @type {string|undefined} */
let userDataDir;
/** @type {ReturnType<typeof relayToLab>|undefined} */
let relay;
/** @type {StartedLab|undefined} */
let packetLab;
process.exitCode = await runCli({
  name: 'chrome',
  usage: USAGE,
  parse: parseOptions,
  run: open,
  cleanup: () => {
    relay?.stop();
    packetLab?.close();
    if (userDataDir) removeProfile(userDataDir);
  },
});

/** @param {ReturnType<typeof parseOptions>} options */
async function open(options) {
  if (options.network) return openOnPacketNetwork();
  // Same SANs as the servers, so this does not replace the leaf they serve.
  const { spkiSha256 } = await ensureCerts({ dir: certsDir, sans: configFromEnv('sans') });
  const chromePath = findChrome();
  userDataDir = makeOwnedDir(profilePrefix);
  // The page names this Chrome's channel to the lab from its address, and the lab applies the
  // chosen preset through it (server/devtools/), so the label is what the network does.
  const channel = randomBytes(16).toString('hex');
  const startingUrl = new URL(options.url);
  startingUrl.searchParams.set(devtoolsParam, channel);
  const noSandbox = sandboxOff(process.getuid?.());
  if (noSandbox) startingUrl.searchParams.set(noSandboxParam, '1');
  const flags = labFlags({ spkiSha256, profileDir: userDataDir, forceQuic: await quicOrigins(options.url), hosts: labHosts(options.url), noSandbox });
  const chrome = startChrome(chromePath, flags, process.env);
  relay = await relayChannel(chrome, options.url, channel);
  await openLabPage(chrome.cdp, startingUrl);
  console.log(`Opened ${chromePath} on ${options.url} with a throwaway profile for the lab alone (it reaches only the lab's names; deleted when Chrome exits); no DevTools port: the lab applies the page's preset through this command.`);
  if (noSandbox) console.log(noSandboxNotice);
  return untilClosed(chrome, chromePath, () => /** @type {ReturnType<typeof relayToLab>} */ (relay).stop());
}

/**
 * --network packet: runs this command again under launch.py (server/packet/), where it starts a
 * lab on the server side and Chrome on the browser side, on the lab's page with the packet
 * network chosen; resolves the exit code once Chrome exits (closed, or ended by Ctrl-C).
 */
async function openOnPacketNetwork() {
  if (!insidePacketNetwork()) {
    const missing = packetNetworkMissing();
    if (missing) throw new UsageError(`--network packet: ${missing}`);
    return rerunInside();
  }
  const { startLab } = await import('../../server/lab.js');
  // The browser comes from the other namespace: the lab listens on every address of its own.
  packetLab = /** @type {StartedLab} */ (await startLab({ host: '0.0.0.0', packet: true }, { onNotice: (line) => console.error(`h2lab chrome: ${line}`) }));
  const chromePath = findChrome();
  const noSandbox = sandboxOff(personOutside().uid);
  const url = new URL(`${packetLab.uiOrigin}/?network=packet`);
  if (noSandbox) url.searchParams.set(noSandboxParam, '1');
  userDataDir = makeOwnedDir(profilePrefix);
  const forceQuic = forceQuicFlag(packetLab.describe().servers);
  const flags = labFlags({ spkiSha256: packetLab.certs.spkiSha256, profileDir: userDataDir, forceQuic, hosts: labNames, mapTo: serverSideAddress, noSandbox });
  const side = browserSide(chromePath);
  const chrome = startChrome(side.executablePath, flags, side.env);
  await openLabPage(chrome.cdp, url);
  console.log(`Opened ${chromePath} on the packet network's browser side, on ${url.origin}/ of a lab of its own on the server side (only this Chrome reaches it; closing Chrome or Ctrl-C stops both), with a throwaway profile for the lab alone.`);
  if (noSandbox) console.log(noSandboxNotice);
  return untilClosed(chrome, chromePath, () => /** @type {StartedLab} */ (packetLab).close());
}

/**
 * Starts Chrome with its DevTools pipe and no port, its output kept for the last line.
 * @param {string} executable
 * @param {string[]} flags
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ process: import('node:child_process').ChildProcess, cdp: ReturnType<typeof openChromePipe>,
 *   lastLine: () => string, onMessage: (fn: (message: CdpMessage) => void) => void }}
 */
function startChrome(executable, flags, env) {
  const child = spawn(executable, [...flags, '--remote-debugging-pipe', `--user-data-dir=${userDataDir}`, 'about:blank'], { env, stdio: ['ignore', 'ignore', 'pipe', ...pipeStdio] });
  let lastLine = '';
  child.stderr?.setEncoding('utf8').on('data', (text) => (lastLine = text.trim().split('\n').at(-1) || lastLine));
  /** @type {(message: CdpMessage) => void} */
  let listener = (message) => void message;
  const cdp = openChromePipe(child, { timeoutMs: devtoolsLimits.answerTimeoutMs, onEvent: (message) => listener(message) });
  return { process: child, cdp, lastLine: () => lastLine, onMessage: (fn) => (listener = fn) };
}

/**
 * Grants the lab's page what it needs, then navigates Chrome's first tab to it (DevTools opens
 * with it).
 * @param {ReturnType<typeof openChromePipe>} cdp
 * @param {URL} url
 */
async function openLabPage(cdp, url) {
  for (const name of localNetworkPermissions) {
    await cdp.send('Browser.setPermission', { permission: { name }, setting: 'granted', origin: url.origin });
  }
  const { targetInfos } = await cdp.send('Target.getTargets');
  const tab = targetInfos.find((/** @type {{ type: string, url: string, targetId: string }} */ t) => t.type === 'page' && t.url === 'about:blank');
  if (!tab) return void (await cdp.send('Target.createTarget', { url: url.href }));
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: tab.targetId, flatten: true });
  await cdp.send('Page.navigate', { url: url.href }, sessionId);
  await cdp.send('Target.detachFromTarget', { sessionId });
}

/**
 * Relays the lab's emulation commands to this Chrome for as long as it runs. Resolves once the
 * lab answered (or did not), so the page finds the channel held.
 * @param {ReturnType<typeof startChrome>} chrome
 * @param {string} url
 * @param {string} channel
 */
async function relayChannel(chrome, url, channel) {
  const { origin } = new URL(url);
  /** @type {(value?: unknown) => void} */
  let first;
  const answered = new Promise((resolve) => (first = resolve));
  const held = relayToLab(chrome.cdp, {
    uiOrigin: origin,
    channel,
    maxMessageBytes: devtoolsLimits.messageMaxBytes,
    onState(state, why) {
      if (state === 'held') console.log(`The lab at ${origin} applies presets in this Chrome through this command while it runs.`);
      if (state === 'refused') console.log(`The lab at ${origin} refused this Chrome's DevTools channel (${why}): presets stay labels.`);
      if (state === 'no-lab') console.log(`No lab answered at ${origin} yet: offering this Chrome's DevTools channel once it does.`);
      first();
    },
  });
  chrome.onMessage(held.fromChrome);
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, labAnswerMs).unref())]);
  return held;
}

/**
 * Resolves the exit code once Chrome exits (the person closed it, or a signal here ended it),
 * after `stop` and the profile's removal.
 * @param {ReturnType<typeof startChrome>} chrome
 * @param {string} chromePath
 * @param {() => unknown} stop
 * @returns {Promise<number>}
 */
async function untilClosed(chrome, chromePath, stop) {
  /** @type {NodeJS.Signals|null} */
  let signalled = null;
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.once(signal, () => {
      signalled = signal;
      chrome.process.kill();
    });
  }
  const [code] = await once(chrome.process, 'exit');
  // A process Chrome started may hold its stderr after it (crashpad's handler): not this command.
  chrome.process.stderr?.destroy();
  for (const fd of [3, 4]) /** @type {import('node:stream').Duplex} */ (chrome.process.stdio[fd]).destroy();
  await stop();
  removeProfile(/** @type {string} */ (userDataDir)); // set before Chrome started
  if (signalled) return 128 + os.constants.signals[signalled];
  if (code) throw new Error(`${chromePath} exited with code ${code}: ${chrome.lastLine()}`);
  return 0;
}

/**
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 */
function parseOptions(args, env) {
  const values = readArgs(args, { url: { type: 'string', accepts: 'a URL' }, network: { type: 'string', accepts: ownLabNetworks.join(' or ') } });
  if (values.network !== undefined && !ownLabNetworks.includes(values.network)) throw usageError('network', `must be ${ownLabNetworks.join(' or ')} (any other network is the running lab's: open it with --url), got ${JSON.stringify(values.network)}`);
  if (values.network && values.url !== undefined) throw usageError('network', `${values.network} opens a lab of its own: not with --url`);
  const url = values.url ?? env.H2LAB_UI_URL ?? `http://localhost:${configFromEnv('uiPort', env)}/`;
  if (!URL.canParse(url)) throw usageError('url', `must be a URL, got ${JSON.stringify(url)}`);
  return { help: values.help ?? false, url, network: values.network };
}

/**
 * The lab's HTTP/3 origins, asked of the running lab (npm start) behind the page's origin: Chrome
 * takes them at start only. Without a lab answering, this Chrome will not speak HTTP/3, and says so.
 * @param {string} url
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

/**
 * The lab's names: loopback's, the address it listens on, its certificate's extra names, the page's.
 * @param {string} url
 * @returns {string[]}
 */
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

/** @param {string} profileDir */
function removeProfile(profileDir) {
  try {
    // Retries cover Windows, where Chrome's helpers may hold files for a moment after exit.
    fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5 });
  } catch (err) {
    console.error(`h2lab chrome: could not delete the throwaway profile: ${/** @type {Error} */ (err).message}`);
  }
}
