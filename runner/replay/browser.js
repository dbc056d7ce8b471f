// The Chromium a replay loads its page in: one browser per lab server (its host resolver rules
// send every recorded origin to that server), and a fresh browser context per cold load. A
// context of playwright's launch() is an incognito profile with a network context of its own
// (its own socket pools, HTTP cache and TLS session cache): a cold load opens every connection
// anew and resumes no TLS session (checked on this machine: three contexts, three full
// handshakes in the NetLog, none resumed), at a fraction of a browser start's cost.
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from '../browsers/chrome.js';
import { browserSide } from '../../server/packet/browser.js';
import { insideOwnLoopback } from '../../server/packet/inside.js';

/**
 * @param {{ spkiSha256: string, reach: string[], packet?: boolean, netLogFile?: string|null, keyLogFile?: string|null }} o
 *   spkiSha256: the key the replay's certificate holds; reach: runner/replay/flags.js replayFlags
 *   (they replace the lab's names: on the packet network too, whose side maps only the lab's);
 *   packet: start it on the packet network's browser side
 * @returns {Promise<{ browser: import('playwright-core').Browser, close(): Promise<void> }>}
 */
export async function launchReplayBrowser({ spkiSha256, reach, packet = false, netLogFile = null, keyLogFile = null }) {
  const side = packet || insideOwnLoopback() ? browserSide(findChrome()) : { executablePath: findChrome(), env: undefined };
  // Playwright gives launch() a profile folder of its own and removes it on close.
  const args = chromeFlags({ spkiSha256, userDataDir: '', headless: false }).filter((f) => !f.startsWith('--user-data-dir'));
  const evidence = [...(keyLogFile ? [`--ssl-key-log-file=${keyLogFile}`] : []), ...(netLogFile ? [`--log-net-log=${netLogFile}`] : [])];
  const browser = await chromium.launch({ headless: true, executablePath: side.executablePath, env: side.env, args: [...args, ...evidence, ...reach] });
  return { browser, close: () => browser.close() };
}
