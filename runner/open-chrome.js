// `npm run chrome`: open the user's Chrome on the lab UI, in a throwaway profile
// that trusts the lab's leaf key, with DevTools open.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch } from 'chrome-launcher';
import { ensureCerts } from '../server/certs.js';
import { readArgs, usageError } from '../cli/options.js';
import { certsDir, configFromEnv } from '../server/config.js';
import { chromeFlags, findChrome, labHostsOnlyFlags } from './chrome.js';
import { forceQuicFlag } from '../common/quic.js';
import { runCli } from '../cli/run.js';
import { freePort } from '../server/fronts/ports.js';
import { devtoolsPortParam } from '../common/devtools-network.js';
import { holdAnnouncement } from '../server/announce.js';

const USAGE = `Usage: npm run chrome -- [--url URL]

Opens Chrome/Chromium on the lab UI with a throwaway profile that trusts the
lab's certificate and DevTools open. The profile reaches only the lab's names
(localhost, 127.0.0.1, ::1, H2LAB_HOST, H2LAB_SAN and the URL's host): it trusts
the lab's key for any name, so it is for the lab alone. It is deleted when
Chrome exits.
The lab applies the page's network preset through this Chrome's DevTools port,
which this command announces to the lab while Chrome runs.

  --url URL   page to open (default: H2LAB_UI_URL, else http://localhost:<H2LAB_UI_PORT or 8080>/)
  --help      show this help
Set CHROME_PATH to choose the browser.`;

// The lab on this machine answers in milliseconds; past this, Chrome opens without waiting.
const labAnswerMs = 2_000;

let userDataDir;
let announcement;
process.exitCode = await runCli({
  name: 'chrome',
  usage: USAGE,
  parse: parseOptions,
  run: open,
  cleanup: () => {
    announcement?.stop();
    if (userDataDir) removeProfile(userDataDir);
  },
});

async function open(options) {
  // Same SANs as the servers, so this does not replace the leaf they serve.
  const { spkiSha256 } = await ensureCerts({ dir: certsDir, sans: configFromEnv('sans') });
  const chromePath = findChrome();
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-chrome-'));
  // The page learns this Chrome's DevTools port from its address and asks the lab to apply the
  // chosen preset through it (server/devtools/), so the label is what the network does.
  const port = await freePort(0, '127.0.0.1');
  announcement = await announcePort(options.url, port);
  const startingUrl = new URL(options.url);
  startingUrl.searchParams.set(devtoolsPortParam, String(port));
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
    chromeFlags: labFlags({ spkiSha256, userDataDir, forceQuic: await quicOrigins(options.url), url: options.url }),
  }).catch((err) => {
    // chrome-launcher only reports the last failed connection to the DevTools port.
    throw new Error(`${chromePath} did not start: ${err.message}`);
  });
  chrome.process.once('exit', () => {
    announcement.stop(); // the port is no longer this Chrome's
    removeProfile(userDataDir);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      process.exitCode = 128 + os.constants.signals[signal];
      chrome.kill();
    });
  }
  console.log(`Opened ${chromePath} on ${options.url} with a throwaway profile for the lab alone (it reaches only the lab's names; deleted when Chrome exits); DevTools port ${port}, through which the lab applies the page's preset.`);
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
  const values = readArgs(args, { url: { type: 'string', accepts: 'a URL' } });
  const url = values.url ?? env.H2LAB_UI_URL ?? `http://localhost:${configFromEnv('uiPort', env)}/`;
  if (!URL.canParse(url)) throw usageError('url', `must be a URL, got ${JSON.stringify(url)}`);
  return { help: values.help ?? false, url };
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

function labFlags({ spkiSha256, userDataDir, forceQuic, url }) {
  const flags = chromeFlags({ spkiSha256, userDataDir, headless: false, forceQuic })
    .filter((flag) => !flag.startsWith('--user-data-dir='));
  flags.push(
    // The profile trusts the lab's key for any name: it reaches the lab and nothing else.
    ...labHostsOnlyFlags(labHosts(url)),
    '--auto-open-devtools-for-tabs',
    // A fresh profile would otherwise ask for the OS keyring (Linux) or keychain (macOS).
    '--password-store=basic',
    '--use-mock-keychain',
  );
  // Chrome refuses to start as root with its sandbox on.
  if (process.getuid?.() === 0) flags.push('--no-sandbox');
  return flags;
}

function removeProfile(userDataDir) {
  try {
    // Retries cover Windows, where Chrome's helpers may hold files for a moment after exit.
    fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5 });
  } catch (err) {
    console.error(`h2lab chrome: could not delete the throwaway profile: ${err.message}`);
  }
}
