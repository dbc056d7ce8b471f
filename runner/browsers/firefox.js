// Firefox for the runner: found as Chromium is (FIREFOX_PATH, else the usual install locations),
// driven headless by puppeteer-core over WebDriver BiDi, with a throwaway profile whose NSS
// database trusts the lab's CA (certificates really verified, the CA's name constraints
// included) and the prefs of firefox-prefs.js. On the packet network it starts on the browser
// side (server/packet/browser.js), its BiDi port reached through a relay (server/packet/relay.js).
import { UsageError } from '../../common/setup/errors.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';
import { makeOwnedDir } from '../../server/owned-dirs.js';
import { firefoxPrefs } from './firefox-prefs.js';
import { settlesWithin } from './watchdog.js';

/** Where Debian, Fedora and the Mozilla tarball put it, in that order. */
const installLocations = ['/usr/bin/firefox-esr', '/usr/bin/firefox', '/usr/lib/firefox/firefox', '/opt/firefox/firefox'];

/** The fix, in the words of every "not found". */
export const firefoxInstallHint = "install Debian's firefox-esr (apt-get install -y firefox-esr), or set FIREFOX_PATH";

/**
 * Absolute path of the Firefox to use: $FIREFOX_PATH, else an installed one. Throws one line
 * naming what to install (exit 2).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function findFirefox(env = process.env) {
  const fromEnv = env.FIREFOX_PATH;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new UsageError(`FIREFOX_PATH points to a missing file: ${fromEnv}`);
    return fromEnv;
  }
  const found = installLocations.find((p) => fs.existsSync(p));
  if (!found) throw new UsageError(`No Firefox found: ${firefoxInstallHint}.`);
  return found;
}

/**
 * A profile folder whose NSS database trusts `caCertPath` to issue server certificates, and
 * nothing else of the machine's. Throws one line when certutil is missing or fails.
 * @param {string} caCertPath
 * @returns {string} the folder, the caller's to remove
 */
export function makeFirefoxProfile(caCertPath) {
  const dir = makeOwnedDir('h2lab-firefox-'); // a killed runner's is removed by the next
  try {
    execFileSync('certutil', ['-N', '-d', `sql:${dir}`, '--empty-password'], { stdio: 'pipe' });
    execFileSync('certutil', ['-A', '-d', `sql:${dir}`, '-n', 'h2lab-ca', '-t', 'C,,', '-i', caCertPath], { stdio: 'pipe' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const e = /** @type {NodeJS.ErrnoException & { stderr?: Buffer }} */ (err);
    const why = e.code === 'ENOENT' ? "certutil is missing (Debian's libnss3-tools: apt-get install -y libnss3-tools)" : String(e.stderr ?? e.message).trim().split('\n')[0];
    throw new UsageError(`cannot make Firefox's profile trusting ${caCertPath}: ${why}`);
  }
  return dir;
}

/**
 * The HTTP/3 server's ports, direct and through the lab link, from /api/servers' list.
 * @param {{ protocol: string, origin: string, linkOrigin?: string }[]} servers
 */
export function h3PortsOf(servers) {
  const h3 = servers.find((s) => s.protocol === 'h3');
  /** @param {string|undefined} origin */
  const port = (origin) => (origin ? Number(new URL(origin).port) : null);
  return { h3: port(h3?.origin), h3Link: port(h3?.linkOrigin) };
}

/**
 * Starts Firefox headless (or not) on a throwaway profile. close() ends it and removes the
 * profile, keeping the qlog files first when asked (`qlogDir`).
 * @param {{ caCertPath: string, servers: { protocol: string, origin: string, linkOrigin?: string }[] }} lab
 * @param {{ headless?: boolean, resolveTo: string, qlogDir?: string|null, keyLogFile?: string|null,
 *   side?: { executablePath: string, env: NodeJS.ProcessEnv, args: string[] }|null, debuggingPort?: number,
 *   replay?: import('./firefox-prefs.js').ReplayReach|null }} o
 *   resolveTo: where the lab is; keyLogFile: where NSS writes the TLS keys (SSLKEYLOGFILE); side: the packet network's browser side (server/packet/browser.js);
 *   debuggingPort: BiDi's port there, which a relay reaches from this side (0: any); replay: a
 *   replay's origins, all sent to one lab server
 */
export async function launchFirefox(lab, { headless = true, resolveTo, qlogDir = null, keyLogFile = null, side = null, debuggingPort = 0, replay = null }) {
  const executablePath = findFirefox();
  const profile = makeFirefoxProfile(lab.caCertPath);
  // Firefox writes its qlog under $TMPDIR: the profile's own, so it goes with the profile.
  const tmp = path.join(profile, 'tmp');
  fs.mkdirSync(tmp);
  const env = { TMPDIR: tmp, ...(keyLogFile && { SSLKEYLOGFILE: keyLogFile }) };
  /** @type {import('puppeteer-core').Browser} */
  let browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      headless,
      userDataDir: profile,
      extraPrefsFirefox: firefoxPrefs({ h3Ports: h3PortsOf(lab.servers), resolveTo, qlog: qlogDir !== null, replay }),
      ...(side ? { executablePath: side.executablePath, env: { ...side.env, ...env } } : { executablePath, env: { ...process.env, ...env } }),
      args: debuggingPort ? [`--remote-debugging-port=${debuggingPort}`] : [],
      // The session ends the browser on a signal, in its order (runner/browsers/session.js).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: launchTimeoutMs,
      // None per call (0), as playwright's evaluate has none: a whole experiment is one call of
      // window.h2lab.run, minutes long (puppeteer's default 180 s stopped a 5-repeat HTTP/3 run).
      protocolTimeout: 0,
    });
  } catch (err) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw new Error(`Firefox did not start: ${/** @type {Error} */ (err).message.split("\n")[0]}`, { cause: err });
  }
  let closed = false;
  return {
    browser,
    async close() {
      if (closed) return;
      closed = true;
      // A Firefox that stopped answering never finishes closing: killed then.
      const closing = browser.close().then(() => true, () => false);
      if (!(await settlesWithin(closing, closeDeadlineMs)) || !(await closing)) browser.process()?.kill('SIGKILL');
      if (qlogDir) keepQlogs(tmp, qlogDir);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Firefox ESR started headless in 1.6–4.7 s on a 2-CPU Linux machine (measured 2026-11); a loaded machine takes longer.
const launchTimeoutMs = 60_000;
// Firefox closed in 0.44 s here after a 262 s run; one that has not within 10 s is not answering.
const closeDeadlineMs = 10_000;

/**
 * Moves every qlog file Firefox wrote ($TMPDIR/qlog_<pid>/*.sqlog) into `dir`.
 * @param {string} tmp @param {string} dir
 */
function keepQlogs(tmp, dir) {
  const files = fs.readdirSync(tmp).filter((d) => d.startsWith('qlog_')).flatMap((d) => fs.readdirSync(path.join(tmp, d)).map((f) => path.join(tmp, d, f)));
  if (!files.length) return;
  fs.mkdirSync(dir, { recursive: true });
  for (const file of files) fs.copyFileSync(file, path.join(dir, path.basename(file)));
}
