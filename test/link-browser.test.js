// The lab link from the browser lab in a real Chromium: a person chooses "Lab link" and a preset,
// clicks Run, and the result says it ran on the link, with the link's conditions and a
// calibration that measured them; a preset sweep through the link runs without a prompt; and a
// Slow 4G run through the link never beats the physical floor.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { startTestLab } from './helpers/lab.js';
import { invalidText } from '../common/stats/validity.js';

let lab;
let browser;
let page;
const dialogs = [];

before(async () => {
  lab = await startTestLab();
  browser = await launchBrowser(lab, { viewport: { width: 1280, height: 900 } });
  page = await browser.context.newPage();
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto(`${lab.uiOrigin}/?requests=10&size=0.01&repeats=1&servers=h1,h2-node`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
});

after(async () => {
  await browser?.close();
  await lab?.close();
});

const linkNow = () => page.evaluate(async () => (await fetch('/api/networks/link')).json());
const within = (actual, expected, share, what) =>
  assert.ok(Math.abs(actual - expected) <= expected * share, `${what}: ${actual.toFixed(1)}, expected ${expected} ± ${share * 100} %`);

test('Run with "Lab link" at Fast 4G: the result records the link, and the calibration measured it within ±10 %', { timeout: 120_000 }, async () => {
  const form = page.locator('#settings');
  await form.getByLabel('Network preset').selectOption('fast-4g');
  await form.getByLabel('Throttled by').selectOption('link');
  assert.match(await page.locator('#preset-why').textContent(), /lab sets it to the preset/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  assert.match(await page.locator('#progress-text').textContent(), /^Done: 2 runs, 0 failed requests, 0 invalid runs/);
  assert.match(page.url(), /network=link/, 'the link choice is in the URL, so a link reproduces it');
  await page.screenshot({ path: path.join(tmpdir(), 'h2lab-link-results.png'), fullPage: true });

  const result = await page.evaluate(() => window.h2lab.last);
  assert.equal(result.settings.network, 'link');
  assert.equal(result.environment.network.id, 'link');
  assert.deepEqual(result.environment.network.conditions, { preset: 'fast-4g', rttMs: 165, downloadBps: 1_012_500, uploadBps: 168_750, queueBytes: 167_063, loss: 0, burst: null, traceDown: null, traceUp: null });
  // What the link carried during the experiment: pieces both ways, the bodies' bytes down among them.
  const { down, up } = result.environment.network.counters;
  assert.ok(down.deliveredBytes > 2 * 10 * 0.01 * 1024 * 1024 && up.delivered > 0, JSON.stringify(result.environment.network.counters));
  within(result.environment.calibration.rttMs, 165, 0.1, 'calibrated RTT (ms)');
  within(result.environment.calibration.downloadBps, 1_012_500, 0.1, 'calibrated download (B/s)');
  for (const run of result.runs) {
    assert.equal(run.valid, true, invalidText(run));
    assert.ok(run.totalMs >= 3 * 165, `${run.server}: a cold run took ${run.totalMs} ms, under TCP + TLS + request`);
    // Through the link Resource Timing is truthful: first bytes after at least one round trip.
    for (const r of run.requests) assert.ok(r.ttfbMs >= 165 * 0.95, `${run.server} request ${r.i}: ttfb ${r.ttfbMs}`);
  }
  assert.match(await page.locator('#run-label').textContent(), /Fast 4G via the lab link · .*lab link: RTT 165 ms, 1\.01 MB\/s down/);
  assert.equal((await linkNow()).preset, 'no-throttling', 'the run put the link back as it was');
});

test('a rate chosen from the lab\'s traces and one uploaded in the form: refused with its line, then the run follows both and records them', { timeout: 120_000 }, async () => {
  const form = page.locator('#settings');
  await form.getByLabel('Network preset').selectOption('fast-4g');
  await form.getByLabel('Throttled by').selectOption('link');
  const down = form.getByLabel('Download rate');
  const upload = async (select, name, text) => {
    const chooser = page.waitForEvent('filechooser');
    await select.selectOption({ label: 'Upload a trace file…' });
    await (await chooser).setFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  };
  // A bad file: the lab names the line, and the choice goes back to what it was.
  await upload(down, 'bad.txt', '1\nfast\n');
  await page.waitForFunction(() => /Trace bad\.txt/.test(document.querySelector('#settings-errors').textContent));
  assert.match(await page.locator('#settings-errors').textContent(), /line 2/);
  assert.equal(await down.inputValue(), '');
  // mahimahi's format: a slot at 1 and 2 ms of a 2 ms period, one a millisecond: 12 Mbit/s.
  await upload(down, 'my trace.txt', '1\n2\n');
  await page.waitForFunction(() => document.querySelector('select[name=traceDown]').value === 'my_trace.txt');
  await form.getByLabel('Upload rate').selectOption('markov-fast-4g-up');
  await page.screenshot({ path: path.join(tmpdir(), 'h2lab-link-traces-form.png'), fullPage: true });
  // The tests before this one left a finished run on the page: wait for this run's own.
  const lastId = await page.evaluate(() => window.h2lab.last?.id ?? null);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction((id) => (window.h2lab.last?.id ?? null) !== id && /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), lastId, { timeout: 110_000 });
  assert.match(await page.locator('#progress-text').textContent(), /^Done: 2 runs, 0 failed requests, 0 invalid runs/);

  const { conditions } = (await page.evaluate(() => window.h2lab.last)).environment.network;
  assert.equal(conditions.traceDown.name, 'my_trace.txt');
  assert.equal(conditions.downloadBps, 1_504_000, 'a traced direction runs at its mean');
  assert.equal(conditions.traceUp.name, 'markov-fast-4g-up');
  assert.equal(conditions.rttMs, 165, 'the preset still gives the round trip');
  assert.match(await page.locator('#run-label').textContent(), /down trace my_trace\.txt .*up trace markov-fast-4g-up/);
  assert.equal((await linkNow()).traceDown, null, 'the run put the link back as it was');
  // Back to the presets' rates for the tests after this one.
  await down.selectOption('');
  await form.getByLabel('Upload rate').selectOption('');
});

test('a preset sweep through the link runs every point unattended', { timeout: 120_000 }, async () => {
  await page.locator('#settings').getByLabel('Throttled by').selectOption('link');
  const sweep = page.locator('#sweep');
  await sweep.getByLabel('Parameter').selectOption('preset');
  await sweep.getByLabel('Values').fill('WiFi, Regular 4G');
  await page.getByRole('button', { name: 'Run sweep' }).click();
  await page.waitForFunction(() => /^(Sweep|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  assert.equal(await page.locator('#progress-text').textContent(), 'Sweep done: 2 of 2 points');
  assert.deepEqual(dialogs, [], 'no prompt to set DevTools');
});

test('Slow 4G through the link: 30 × 0.02 MiB never beats the physical floor', { timeout: 120_000 }, async () => {
  const result = await page.evaluate(() =>
    window.h2lab.run({ requests: 30, sizeMiB: 0.02, delayMs: 0, repeats: 1, servers: ['h1', 'h2-node'], preset: 'slow-4g', network: 'link' }),
  );
  for (const run of result.runs) {
    assert.equal(run.valid, true, invalidText(run));
    const floor = result.floorMsByServer[run.server];
    assert.ok(floor > 0);
    assert.ok(run.totalMs >= floor, `${run.server}: ${run.totalMs} ms under the floor of ${floor} ms`);
  }
});

test('the lab stopping with a run in flight loses none of the runs already recorded', { timeout: 120_000 }, async () => {
  const doomed = await startTestLab();
  const other = await browser.context.newPage();
  try {
    await other.goto(`${doomed.uiOrigin}/`);
    await other.waitForFunction(() => window.h2lab?.ready !== undefined);
    await other.evaluate(() => {
      window.pending = window.h2lab.run({ requests: 5, sizeMiB: 0.01, delayMs: 200, repeats: 20, servers: ['h2-node'], preset: 'fast-4g', network: 'link' });
    });
    await other.waitForFunction(() => /repeat [3-9]/.test(document.querySelector('#progress-text').textContent), null, { timeout: 60_000 });
    await doomed.close();
    const result = await other.evaluate(() => window.pending);
    assert.equal(result.stopped, true);
    assert.ok(result.runs.length >= 2, `${result.runs.length} runs kept`);
    assert.match(result.stopReason, /fetch|reset|Failed/i);
    assert.ok(result.summary['h2-node'].n >= 1);
  } finally {
    await other.close();
    await doomed.close();
  }
});
