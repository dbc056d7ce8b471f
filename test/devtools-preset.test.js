// Presets that match reality: in a Chrome npm run chrome holds a channel for (here a test's relay
// to a Chromium's DevTools port, test/helpers/channel.js) the lab applies the page's preset
// through it, and through a DevTools port the person confirms; anywhere else the preset is a
// label, and the page warns when the calibration disagrees with it. A real Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from '../runner/browsers/chrome.js';
import { presetById } from '../common/setup/presets.js';
import { codeOf, startTestLab } from './helpers/lab.js';
import { holdChannel } from './helpers/channel.js';

let lab;
let context;
let profile;
let devtoolsPort;

before(async () => {
  lab = await startTestLab();
  profile = mkdtempSync(path.join(tmpdir(), 'h2lab-devtools-preset-'));
  const args = chromeFlags({ spkiSha256: lab.certs.spkiSha256, userDataDir: profile, headless: false })
    .filter((f) => !f.startsWith('--user-data-dir'))
    .concat('--remote-debugging-port=0'); // the test's way in, and the port a person confirms
  context = await chromium.launchPersistentContext(profile, { executablePath: findChrome(), headless: true, args });
  devtoolsPort = Number(readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
});

after(async () => {
  await context?.close();
  await lab?.close();
  rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
});

async function openPage(query) {
  const page = await context.newPage();
  await page.goto(`${lab.uiOrigin}/?${query}`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined, null, { timeout: 30_000 });
  return page;
}

const run = (page) =>
  page.evaluate(async () => {
    document.querySelector('#run').click();
    // The Run button's own path (not window.h2lab.run), so the page applies the preset itself.
    await new Promise((resolve) => {
      const check = () => (/^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent) ? resolve() : setTimeout(check, 100));
      check();
    });
    const r = window.h2lab.last;
    return { environment: r.environment, failures: r.runs.reduce((n, x) => n + x.failures, 0) };
  });

const alertOf = (page) => page.locator('#network-alert').evaluate((el) => ({ hidden: el.hidden, text: el.textContent, role: el.getAttribute('role') }));

const slow4g = presetById('slow-4g');
const setUp = 'servers=h2-node&requests=1&size=0&repeats=1&preset=slow-4g&network=devtools';

test('a Slow 4G label with nothing applied: an alert names the preset and the measurement, and the result records the mismatch', { timeout: 90_000 }, async () => {
  const page = await openPage(setUp);
  try {
    assert.match(await page.locator('#preset-why').textContent(), /^Label only: this browser was not opened by npm run chrome/);
    const { environment, failures } = await run(page);
    assert.equal(failures, 0);
    assert.equal(environment.presetAppliedBy, 'label');
    assert.ok(environment.calibration.rttMs < 100, `loopback measured ${environment.calibration.rttMs} ms`);
    assert.deepEqual(environment.networkMismatches.map((m) => m.quantity), ['rtt', 'download']);
    const alert = await alertOf(page);
    assert.equal(alert.role, 'alert');
    assert.equal(alert.hidden, false);
    assert.match(alert.text, /does not match Slow 4G: round trip [\d.]+ ms measured, 562\.5 ms in Slow 4G/);
  } finally {
    await page.close();
  }
});

test("the same set-up in a Chrome npm run chrome's channel reaches: the lab applies Slow 4G, the calibration matches within 25 %, no alert", { timeout: 120_000 }, async () => {
  const { channel, end } = await holdChannel(lab.uiOrigin, devtoolsPort);
  const page = await openPage(`${setUp}&devtools=${channel}`);
  try {
    assert.match(await page.locator('#preset-why').textContent(), /^The lab applies the preset to this tab through this Chrome's DevTools, through npm run chrome/);
    assert.equal(await page.locator('#settings select[name=network] option[value=devtools]').textContent(), 'DevTools (the lab sets it)');
    const { environment, failures } = await run(page);
    assert.equal(failures, 0);
    assert.equal(environment.presetAppliedBy, 'devtools-port');
    const { rttMs, downloadBps } = environment.calibration;
    assert.ok(Math.abs(rttMs / slow4g.latencyMs - 1) <= 0.25, `RTT ${rttMs} ms for ${slow4g.latencyMs}`);
    assert.ok(Math.abs(downloadBps / slow4g.downloadBps - 1) <= 0.25, `download ${downloadBps} B/s for ${slow4g.downloadBps}`);
    assert.deepEqual(environment.networkMismatches, []);
    assert.equal((await alertOf(page)).hidden, true);
    // The URL the form keeps rewriting still names the channel, so the lab still finds this tab.
    await page.selectOption('#settings select[name=preset]', 'no-throttling');
    assert.match(page.url(), new RegExp(`[?&]devtools=${channel}(&|$)`));
    // Choosing No throttling cleared the emulation: a request takes loopback time again.
    await page.waitForFunction(async () => {
      const t = performance.now();
      await fetch('/api/servers', { cache: 'no-store' });
      return performance.now() - t < 100;
    }, null, { timeout: 10_000, polling: 200 });
  } finally {
    await page.close();
    end();
  }
});

/** How long a request from the page takes now, ms. */
const requestMs = (page) =>
  page.evaluate(async () => {
    const t = performance.now();
    await fetch('/api/servers', { cache: 'no-store' });
    return performance.now() - t;
  });

test('a DevTools port in the address: one line asks the person, nothing applies until they confirm', { timeout: 60_000 }, async () => {
  const page = await openPage(`${setUp}&devtools=${devtoolsPort}`);
  try {
    const question = page.locator('#devtools-confirm');
    await question.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await question.textContent(), new RegExp(`throttle through DevTools port ${devtoolsPort}\\. `));
    assert.match(await page.locator('#preset-why').textContent(), new RegExp(`^Label only: DevTools port ${devtoolsPort} in this page's address is not confirmed`));
    assert.ok((await requestMs(page)) < slow4g.latencyMs, 'Slow 4G applied before the person confirmed');
    await question.getByRole('button', { name: `Use DevTools port ${devtoolsPort}` }).click();
    await page.waitForFunction(() => /^The lab applies the preset/.test(document.querySelector('#preset-why').textContent), null, { timeout: 15_000 });
    assert.equal(await question.isHidden(), true);
    assert.ok((await requestMs(page)) >= slow4g.latencyMs, 'Slow 4G after the person confirmed');
  } finally {
    await page.close();
  }
});

test('a DevTools port that does not answer: the page falls back to the label and says why', { timeout: 60_000 }, async () => {
  const page = await openPage(`${setUp}&devtools=1`);
  try {
    // The page tried at load (the form's preset applies at once), and asks first; port 1 answers nothing.
    await page.getByRole('button', { name: 'Use DevTools port 1' }).click({ timeout: 15_000 });
    await page.waitForFunction(() => /^Label only: this Chrome's DevTools port did not take the preset/.test(document.querySelector('#preset-why').textContent), null, { timeout: 15_000 });
    assert.match(await page.locator('#preset-why').textContent(), /no DevTools endpoint answered at http:\/\/127\.0\.0\.1:1/);
    assert.equal(await page.locator('#settings select[name=network] option[value=devtools]').textContent(), 'DevTools (a label: you set it)');
  } finally {
    await page.close();
  }
});

test("the Page load window gets the panel's preset through npm run chrome's channel", { timeout: 120_000 }, async (t) => {
  const { channel, end } = await holdChannel(lab.uiOrigin, devtoolsPort);
  t.after(end);
  const page = await openPage(`devtools=${channel}`);
  try {
    const panel = page.locator('#page-load');
    await panel.locator('select[name=server]').selectOption('h2-node');
    await panel.locator('select[name=preset]').selectOption('slow-4g');
    await panel.locator('select[name=network]').selectOption('devtools');
    await panel.locator('input[name=repeats]').fill('1');
    for (const box of await panel.locator('input[name=modes]').all()) await box.setChecked((await box.getAttribute('value')) === 'requested');
    await panel.getByRole('button', { name: 'Load pages' }).click();
    await page.waitForFunction(() => /^(Page loads done|Failed|Stopped)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 100_000 });
    const result = await page.evaluate(() => window.h2lab.lastPageLoads);
    assert.ok(result, await page.locator('#progress-text').textContent());
    assert.equal(result.environment.presetAppliedBy, 'devtools-port');
    // A cold navigation and its assets: at least two of Slow 4G's 562.5 ms round trips.
    for (const load of result.loads) assert.ok(load.loadMs > 2 * slow4g.latencyMs, `a load took ${load.loadMs} ms under Slow 4G`);
  } finally {
    await page.close();
  }
});

test('PUT /api/emulation: bad input is a 400 naming the field', async () => {
  const put = (body) => fetch(`${lab.uiOrigin}/api/emulation`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const good = { devtoolsPort, pageUrl: `${lab.uiOrigin}/?devtools=${devtoolsPort}`, windows: 'tab', preset: 'fast-4g', confirmed: true };
  const channel = 'a'.repeat(32);
  for (const [field, value] of [['devtoolsPort', 70_000], ['devtoolsPort', '9222'], ['pageUrl', 'file:///etc/passwd'], ['windows', 'all'], ['preset', 'Fast 5G'], ['confirmed', 'yes']]) {
    const res = await put({ ...good, [field]: value });
    assert.equal(res.status, 400, `${field}=${value}`);
    assert.deepEqual(await codeOf(res), { code: 'invalid-field', field });
  }
  for (const [body, field] of [[{ ...good, devtoolsPort: undefined, devtoolsChannel: 'A'.repeat(32) }, 'devtoolsChannel'], [{ ...good, devtoolsChannel: channel }, 'devtoolsPort']]) {
    const res = await put(body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.deepEqual(await codeOf(res), { code: 'invalid-field', field });
  }
  // A channel no npm run chrome holds: the page is told, nothing is reached.
  const unknown = await put({ ...good, devtoolsPort: undefined, devtoolsChannel: channel, pageUrl: `${lab.uiOrigin}/?devtools=${channel}` });
  assert.equal(unknown.status, 409);
  assert.deepEqual(await codeOf(unknown), { code: 'devtools-channel-unknown', field: 'devtoolsChannel' });
  // A well-formed request for a tab that is not open in that browser.
  const res = await put({ ...good, pageUrl: `${lab.uiOrigin}/elsewhere?devtools=${devtoolsPort}` });
  assert.equal(res.status, 409);
  assert.deepEqual(await codeOf(res), { code: 'no-lab-tab', field: null });
});
