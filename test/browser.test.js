// End to end in a real Chromium against the servers' push and 103 (the lab page itself is
// tested in lab.test.js): Chromium refuses push, and receives the 103 during the think time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { h2Ids, serverOf, startTestLab, stats } from './helpers/lab.js';

let lab;
let browser;
let context;

before(async () => {
  lab = await startTestLab();
  browser = await launchBrowser(lab);
  ({ context } = browser);
});

after(async () => {
  await browser?.close();
  await lab?.close();
});

test('Chromium refuses push: the server counts every asset refused and sends none', async () => {
  const statsBefore = (await stats(lab))['h2-node'];
  const page = await context.newPage();
  await page.goto(`${serverOf(lab, 'h2-node').origin}/page?assets=3&size=0.01&push=1`, { waitUntil: 'load' });
  await page.waitForFunction(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/asset/')).length === 3);
  await page.close();
  const statsAfter = (await stats(lab))['h2-node'];
  assert.equal(statsAfter.pushesRefused - statsBefore.pushesRefused, 3);
  assert.equal(statsAfter.pushesSent - statsBefore.pushesSent, 0);
});

for (const id of h2Ids) {
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
