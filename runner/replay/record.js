// Recording a page as HAR 1.2 with its bodies, in the Chromium the runner uses: playwright writes
// the HAR (recordHar: every body embedded, decoded), and DevTools' network events add what its
// HAR leaves out (docs/notes/har-replay.md, section 1): who initiated each request, its priority and
// its connection, under the names Chrome DevTools' own HAR export uses (_initiator, _priority,
// _connectionId). A recording may hold cookies and whatever the pages showed: its folder is 0700
// and its files 0600.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from '../browsers/chrome.js';
import { makeOwnedDir } from '../../server/owned-dirs.js';
import { loadReplayedPage } from './load.js';

/** What DevTools said of one request, for the HAR entry it matches. @typedef {{ url: string, method: string, initiator: unknown, priority: string|undefined, connectionId?: string }} Seen */

/**
 * A HAR file's name for a URL: host and path, in letters, digits, '.', '-' and '_'.
 * @param {string} url
 */
export const harName = (url) => {
  const u = new URL(url);
  return `${`${u.host}${u.pathname}`.replace(/[^\w.-]+/g, '_').replace(/_+$/, '').slice(0, 120)}.har`;
};

/**
 * Records each of `urls` into `<out>/<harName>` in a fresh profile: a cold cache, no cookies.
 * @param {string[]} urls
 * @param {{ out: string, trust?: string|null, reach?: string[], timeoutMs?: number }} o
 *   trust: an SPKI hash the browser accepts for any name (a lab's, when it records a page the lab
 *   serves); reach: flags that say where names resolve (a lab's test site)
 * @returns {Promise<Array<{ url: string, file: string, entries: number }>>}
 */
export async function recordPages(urls, { out, trust = null, reach = [], timeoutMs = 60_000 }) {
  fs.mkdirSync(out, { recursive: true, mode: 0o700 });
  const recorded = [];
  for (const url of urls) {
    const file = path.join(out, harName(url));
    // Made 0600 before playwright writes it, which keeps the mode of a file that is there.
    fs.writeFileSync(file, '', { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    const userDataDir = makeOwnedDir('h2lab-record-');
    /** @type {Seen[]} */
    const seen = [];
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: findChrome(),
      headless: true,
      args: [...chromeFlags({ spkiSha256: trust, userDataDir, headless: false }).filter((f) => !f.startsWith('--user-data-dir')), ...reach],
      recordHar: { path: file, content: 'embed', mode: 'full' },
      serviceWorkers: 'block',
    });
    try {
      await loadReplayedPage(context, url, { timeoutMs, tap: (cdp) => tapRequests(cdp, seen) });
    } finally {
      await context.close(); // writes the HAR
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
    const entries = enrich(file, seen);
    recorded.push({ url, file, entries });
  }
  return recorded;
}

/**
 * Keeps each request's initiator, priority and connection, in the order they came.
 * @param {import('playwright-core').CDPSession} cdp
 * @param {Seen[]} seen
 */
function tapRequests(cdp, seen) {
  /** @type {Map<string, Seen>} */
  const byId = new Map();
  cdp.on('Network.requestWillBeSent', ({ requestId, request, initiator }) => {
    const one = { url: request.url, method: request.method, initiator, priority: request.initialPriority };
    byId.set(requestId, one);
    seen.push(one);
  });
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const one = byId.get(requestId);
    if (one) one.connectionId = String(response.connectionId);
  });
}

/**
 * Adds what DevTools saw to the HAR's entries, each matched to the first unused request of its
 * method and URL (playwright's entries carry no DevTools request id).
 * @param {string} file
 * @param {Seen[]} seen
 * @returns {number} the HAR's entries
 */
function enrich(file, seen) {
  const har = JSON.parse(fs.readFileSync(file, 'utf8'));
  const unused = [...seen];
  for (const entry of har.log.entries) {
    const at = unused.findIndex((s) => s.url === entry.request.url && s.method === entry.request.method);
    if (at === -1) continue;
    const [s] = unused.splice(at, 1);
    entry._initiator = s.initiator;
    if (s.priority) entry._priority = s.priority;
    if (s.connectionId) entry._connectionId = s.connectionId;
  }
  fs.writeFileSync(file, JSON.stringify(har));
  return har.log.entries.length;
}
