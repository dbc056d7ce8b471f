// The browsers a replay loads its page in, behind one interface: one browser per lab server (every
// recorded origin reaches that server), and a session per cold load, a browser context with its
// own connections and TLS session cache, so that a cold load opens every connection anew. Here
// Chromium: a context of playwright's launch() is an incognito profile with a network context of
// its own (checked on this machine: three contexts, three full handshakes in the NetLog, none
// resumed), at a fraction of a browser start's cost. Firefox: firefox.js.
import { chromium } from 'playwright-core';
import { applyPreset } from '../../common/setup/devtools-network.js';
import { chromeFlags, findChrome } from '../browsers/chrome.js';
import { browserSide } from '../../server/packet/browser.js';
import { insideOwnLoopback } from '../../server/packet/inside.js';
import { replayFlags } from './flags.js';
import { startFirefoxReplay } from './firefox.js';
import { loadReplayedPage } from './load.js';

/**
 * A browser that loads a replayed page.
 * @typedef {object} ReplayBrowser
 * @property {string} version  its name and version, as a result names it
 * @property {boolean} tellsConnections  whether its loads name each request's connection, protocol
 *   and size (else they are taken from what the servers saw: as-served.js)
 * @property {(o: { warm: boolean }) => Promise<ReplaySession>} open  a session: a cold load's, or a
 *   warm one's (its HTTP cache off, so only its connections carry over)
 * @property {() => Promise<void>} close
 */

/**
 * @typedef {object} ReplaySession
 * @property {(url: string, o: { timeoutMs: number }) => Promise<import('./load.js').ReplayLoad>} load
 * @property {() => Promise<void>} close
 */

/**
 * What every replay browser starts from.
 * @typedef {object} ReplayReach
 * @property {{ spkiSha256: string, caCertPath: string, certs: import('../../server/replay/certs.js').ReplayCerts }} trust  the replay's certificates: their key, their CA, and themselves (the replay's DNS serves one)
 * @property {string[]} origins  the recorded origins
 * @property {{ protocol: string, host: string, port: number, hostOf?: (hostname: string) => string }} server  the lab
 *   server that serves them: its address and port, and each recorded host's own address where it has one (flags.js)
 * @property {boolean} packet  start it on the packet network's browser side
 * @property {import('../../common/setup/presets.js').Preset|null} throttle  DevTools throttling of each tab (null: none)
 * @property {string|null} [netLogFile]  Chromium's NetLog
 */

/**
 * Chromium, its host resolver rules sending every recorded origin to the server (flags.js).
 * @param {ReplayReach} o
 * @returns {Promise<ReplayBrowser>}
 */
export async function startChromium({ trust, origins, server, packet, throttle, netLogFile = null }) {
  const side = packet || insideOwnLoopback() ? browserSide(findChrome()) : { executablePath: findChrome(), env: undefined };
  // Playwright gives launch() a profile folder of its own and removes it on close.
  const args = chromeFlags({ spkiSha256: trust.spkiSha256, userDataDir: '', headless: false }).filter((f) => !f.startsWith('--user-data-dir'));
  const evidence = netLogFile ? [`--log-net-log=${netLogFile}`] : [];
  const browser = await chromium.launch({ headless: true, executablePath: side.executablePath, env: side.env, args: [...args, ...evidence, ...replayFlags(origins, server)] });
  return {
    version: `Chromium ${browser.version()} (headless)`,
    tellsConnections: true,
    async open({ warm }) {
      const context = await browser.newContext();
      /** @param {import('playwright-core').CDPSession} cdp */
      const setUp = async (cdp) => {
        if (throttle) await applyPreset(cdp, throttle);
        if (warm) await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      };
      return { load: (url, { timeoutMs }) => loadReplayedPage(context, url, { timeoutMs, setUp }), close: () => context.close() };
    },
    close: () => browser.close(),
  };
}

/** The browsers a replay can load its pages in, by the name --browser takes. */
export const replayBrowsers = Object.freeze({ chromium: startChromium, firefox: startFirefoxReplay });

/** @typedef {keyof typeof replayBrowsers} ReplayBrowserName */
