// End to end in a real Chromium: the servers' TLS, CORS and Timing-Allow-Origin work for the
// page, each server negotiates its protocol, Chromium refuses push and acts on the 103.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from '../runner/chrome.js';
import { serverOf, startTestLab, stats } from './helpers/lab.js';

let lab;
let context;
let userDataDir;

before(async () => {
  const executablePath = findChrome(); // throws one line naming what to install
  lab = await startTestLab();
  userDataDir = mkdtempSync(path.join(tmpdir(), 'h2lab-test-chrome-'));
  const args = chromeFlags({ spkiSha256: lab.certs.spkiSha256, userDataDir, headless: false }).filter(
    (f) => !f.startsWith('--user-data-dir'), // Playwright passes the profile folder itself
  );
  context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args });
});

after(async () => {
  await context?.close();
  await lab?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test('the UI page reaches every server over the protocol it promises', async () => {
  const page = await context.newPage();
  await page.goto(`${lab.uiOrigin}/`);
  const rows = page.locator('#servers tbody tr');
  await page.waitForFunction(() => [...document.querySelectorAll('#servers tbody td:nth-child(4)')].every((td) => td.textContent !== '…'));
  const cells = await rows.locator('td:nth-child(4)').allTextContents();
  assert.deepEqual(cells, ['http/1.1 via h1', 'h2 via h2-spdy', 'h2 via h2-node']);
  await page.close();
});

test('Chromium refuses push: the server counts every asset refused and sends none', async () => {
  const before = (await stats(lab))['h2-node'];
  const page = await context.newPage();
  await page.goto(`${serverOf(lab, 'h2-node').origin}/page?assets=3&size=0.01&push=1`, { waitUntil: 'load' });
  await page.waitForFunction(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/asset/')).length === 3);
  await page.close();
  const after = (await stats(lab))['h2-node'];
  assert.equal(after.pushesRefused - before.pushesRefused, 3);
  assert.equal(after.pushesSent - before.pushesSent, 0);
});

for (const id of ['h2-spdy', 'h2-node']) {
  // Whether Chromium then uses the hinted preload is the Page load lab's question; here: the
  // 103 reaches the browser during the think time, over a real HTTP/2 navigation.
  test(`${id}: Chromium receives the 103 before the think time ends`, async () => {
    const page = await context.newPage();
    await page.goto(`${serverOf(lab, id).origin}/page?assets=1&size=0.01&delay=300&hints=1`, { waitUntil: 'load' });
    const nav = await page.evaluate(() => performance.getEntriesByType('navigation')[0].toJSON());
    await page.close();
    assert.equal(nav.nextHopProtocol, 'h2');
    assert.ok(nav.firstInterimResponseStart > 0, 'no 103 seen by the browser');
    const early = nav.finalResponseHeadersStart - nav.firstInterimResponseStart;
    assert.ok(early >= 250, `103 only ${early} ms before the final headers of a 300 ms think time`);
  });
}
