// The browser lab end to end in a real Chromium: the UI runs 3 repeats × 50 requests on all
// three servers; protocols, connections, charts and exports are checked from what it produced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { presetById } from '../common/setup/presets.js';
import { baselineOf, serverById } from '../common/setup/servers.js';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { withPreset } from '../common/setup/devtools-network.js';
import { ids, startTestLab } from './helpers/lab.js';
import { invalidText } from '../common/stats/validity.js';
import { sampleResult } from './fixtures/sample-result.js';

let lab;
let browser;
let context;
let page;
let exported;

before(async () => {
  lab = await startTestLab();
  browser = await launchBrowser(lab, { acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  ({ context } = browser);
  page = await context.newPage();
  await page.goto(`${lab.uiOrigin}/?requests=50&repeats=3`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
});

after(async () => {
  await browser?.close();
  await lab?.close();
});

async function downloadOf(buttonName) {
  const button = page.getByRole('button', typeof buttonName === 'string' ? { name: buttonName, exact: true } : { name: buttonName });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: download.suggestedFilename(), data: readFileSync(await download.path()) };
}

test('preflight finds every server reachable over its protocol', async () => {
  assert.equal(await page.evaluate(() => window.h2lab.ready), true);
  const items = await page.locator('#preflight-list li').allTextContents();
  assert.equal(items.length, ids.length);
  for (const text of items) assert.match(text, /✓/);
});

test('Run through the UI: 3 repeats × 50 requests on every server', { timeout: 120_000 }, async () => {
  assert.equal(await page.locator('#settings').getByLabel('Requests', { exact: true }).inputValue(), '50');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  assert.match(await page.locator('#progress-text').textContent(), new RegExp(`^Done: ${3 * ids.length} runs, 0 failed requests, 0 invalid runs`));
  await page.screenshot({ path: path.join(tmpdir(), 'h2lab-lab-results.png'), fullPage: true });

  const json = await downloadOf('Export JSON');
  assert.match(json.name, /\.json$/);
  exported = JSON.parse(json.data.toString());
  assert.equal(exported.runs.length, 3 * ids.length);
  for (const run of exported.runs) {
    assert.equal(run.valid, true, `${run.server} repeat ${run.repeat}: ${invalidText(run)}`);
    assert.equal(run.failures, 0);
    assert.equal(run.requests.length, 50);
    const expected = serverById(run.server).protocol;
    for (const r of run.requests) assert.equal(r.protocol, expected, `${run.server} request ${r.i}`);
    if (expected === 'http/1.1') assert.ok(run.connections >= 1 && run.connections <= 6, `h1 used ${run.connections} connections`);
    else assert.equal(run.connections, 1, `${run.server} used ${run.connections} connections`);
  }
  assert.deepEqual(Object.keys(exported.summary), [...ids]);
  assert.equal(exported.comparisons.length, ids.filter(baselineOf).length);
});

test('the charts are drawn', async () => {
  const drawn = await page.evaluate(() =>
    [...document.querySelectorAll('#results figure:not([hidden]) canvas')].map((c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4 * 97) if (data[i] > 0) painted++;
      return { w: c.width, h: c.height, painted };
    }),
  );
  assert.equal(drawn.length, 3);
  for (const d of drawn) assert.ok(d.w > 100 && d.h > 100 && d.painted > 50, JSON.stringify(d));
});

test('CSV export: RFC 4180, the columns in order, one row per request', async () => {
  const csv = await downloadOf('Export CSV');
  const text = csv.data.toString();
  assert.match(text, /\r\n/);
  const parsed = Papa.parse(text.trim(), { header: true });
  assert.deepEqual(parsed.meta.fields, [
    'run_id', 'preset', 'network', 'server', 'protocol', 'repeat', 'request', 'start_ms', 'ttfb_ms', 'end_ms', 'bytes', 'connection_id', 'client_port', 'error', 'loss_seed',
  ]);
  assert.ok(parsed.data.every((row) => row.loss_seed === ''), 'no loss, no seed');
  assert.equal(parsed.data.length, 3 * ids.length * 50);
  assert.equal(parsed.errors.length, 0);
  assert.ok(parsed.data.every((row) => row.run_id === exported.id));
});

test('PNG export of a chart is a real PNG at twice the canvas size', async () => {
  const png = await downloadOf(/^PNG of Total time per server/);
  assert.deepEqual([...png.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  const width = png.data.readUInt32BE(16);
  const canvasWidth = await page.evaluate(() => document.querySelector('#results figure canvas').clientWidth);
  assert.ok(width >= canvasWidth * 2 - 2, `PNG ${width} px wide for a ${canvasWidth} px canvas`);
});

test('serverStats: what the server paid for each run, from its own counters', { timeout: 60_000 }, async () => {
  const result = await page.evaluate(() => window.h2lab.run({ requests: 100, sizeMiB: 0.01, delayMs: 0, repeats: 1, servers: ['h1', 'h2-node'] }));
  const of = (id) => result.runs.find((r) => r.server === id).serverStats;
  const h1 = of('h1');
  assert.ok(h1.connectionsOpened >= 1 && h1.connectionsOpened <= 6, JSON.stringify(h1));
  assert.equal(h1.requests, 100);
  assert.equal(h1.bytesSent, 100 * Math.floor(0.01 * 1024 * 1024));
  assert.ok(h1.cpuMs > 0, JSON.stringify(h1));
  const h2 = of('h2-node');
  assert.equal(h2.connectionsOpened, 1);
  assert.equal(h2.requests, 100);
  assert.equal(result.summary['h2-node'].connectionsPerRun, 1);
  assert.equal(result.summary.h1.serverCpuMs, h1.cpuMs);
});

test('a run under CDP-applied "Slow 4G" lands at or above the physical floor', { timeout: 120_000 }, async () => {
  const preset = presetById('slow-4g');
  // The runner's own apply-and-clear, so the test exercises what the runner does.
  const cdp = await context.newCDPSession(page);
  try {
    const result = await withPreset(cdp, preset, () =>
      page.evaluate(() => window.h2lab.run({ requests: 6, sizeMiB: 0.01, delayMs: 0, repeats: 1, servers: ['h1', 'h2-node'], preset: 'slow-4g' })),
    );
    assert.ok(result.floorMsByServer, 'a throttled preset has a floor');
    const { rttMs } = result.environment.calibration;
    assert.ok(rttMs >= preset.latencyMs, `calibration measured RTT ${rttMs} ms under a ${preset.latencyMs} ms preset`);
    for (const run of result.runs) {
      assert.equal(run.failures, 0);
      assert.ok(run.totalMs >= result.floorMsByServer[run.server], `${run.server}: ${run.totalMs} ms < floor ${result.floorMsByServer[run.server]} ms`);
    }
  } finally {
    await cdp.detach();
  }
});

test('a sweep of two delays runs every point and draws its chart', { timeout: 120_000 }, async () => {
  // The link carries the set-up and the sweep.
  await page.goto(`${lab.uiOrigin}/?requests=20&repeats=2&servers=h1,h2-node&sweep=delayMs&sweepValues=0%2C%2020`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
  assert.equal(await page.getByLabel('Parameter').inputValue(), 'delayMs');
  assert.equal(await page.getByLabel('Values').inputValue(), '0, 20');
  assert.equal(await page.getByRole('checkbox', { name: 'HTTP/2 (spdy)' }).isChecked(), false);
  const repeats = page.locator('#settings').getByLabel('Repeats');
  await repeats.fill('3');
  await repeats.dispatchEvent('change');
  assert.match(page.url(), /repeats=3/);
  assert.match(page.url(), /sweep=delayMs/);
  await repeats.fill('2');
  await repeats.dispatchEvent('change');
  await page.getByRole('button', { name: 'Run sweep' }).click();
  await page.waitForFunction(() => /^Sweep (done|stopped)|^Failed/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  assert.match(await page.locator('#progress-text').textContent(), /^Sweep done: 2 of 2 points/);
  assert.equal(await page.locator('figure[data-chart=sweep]').isVisible(), true);
  await page.locator('figure[data-chart=sweep]').screenshot({ path: path.join(tmpdir(), 'h2lab-lab-sweep.png') });
});

test('history lists finished runs, reopens and deletes them', async () => {
  const rows = page.locator('#history tbody tr');
  const rowsBefore = await rows.count();
  assert.ok(rowsBefore >= 3, `history has ${rowsBefore} rows`); // the UI run and the sweep's two points
  await rows.first().getByRole('button', { name: 'Open' }).click();
  await page.waitForFunction(() => document.querySelector('#summary tbody tr'));
  await rows.first().getByRole('button', { name: 'Delete' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('#history tbody tr').length === n, rowsBefore - 1);
});

test('Import JSON re-renders an exported run', async () => {
  await page.locator('#import-json').setInputFiles({ name: 'run.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(exported)) });
  await page.waitForFunction(() => document.querySelector('#run-label').textContent.includes('50 × 0.1 MiB'));
  assert.equal(await page.locator('#summary tbody tr').count(), ids.length);
  await page.locator('#import-json').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"nope":1}') });
  await page.waitForFunction(() => document.querySelector('#settings-errors').textContent.includes('not an h2lab result'));
});

test('Import of a captured result shows its connections, one row per connection, with its PNG', async () => {
  // Real runs of the packet network (Fast 4G, 2 % loss, captured): test/fixtures/captured-result.json.
  const fixture = readFileSync(new URL('./fixtures/captured-result.json', import.meta.url));
  const figure = page.locator('#results figure[data-chart=connections]');
  assert.equal(await figure.isHidden(), true, 'no Connections without a capture');
  await page.locator('#import-json').setInputFiles({ name: 'captured.json', mimeType: 'application/json', buffer: fixture });
  await figure.waitFor({ state: 'visible' });
  await page.waitForFunction(() => document.querySelector('#connections-repeat').options.length === 3);
  const drawn = () =>
    page.evaluate(() => {
      const c = document.querySelector('#results figure[data-chart=connections] canvas');
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      let red = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] < 40 && data[i + 2] < 40) red++;
      return { w: c.clientWidth, h: c.clientHeight, red };
    });
  const median = await drawn();
  assert.ok(median.w > 600 && median.red > 50, `the losses are drawn in red: ${JSON.stringify(median)}`);
  // Repeat 1 chosen: its seven connections, exported at twice the canvas size (the spec checks the height per row).
  await page.locator('#connections-repeat').selectOption('1');
  const png = await downloadOf(/^PNG of Connections/);
  assert.match(png.name, /-connections-1\.png$/);
  assert.deepEqual([...png.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.ok(png.data.readUInt32BE(20) > 7 * 2 * 20, `PNG ${png.data.readUInt32BE(16)} × ${png.data.readUInt32BE(20)} px for 7 rows`);
  // A result without a capture hides it again.
  await page.locator('#import-json').setInputFiles({ name: 'run.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(sampleResult({ requests: 10, repeats: 1 }))) });
  await figure.waitFor({ state: 'hidden' });
});

test('Stop ends a run cleanly and keeps what finished', { timeout: 60_000 }, async () => {
  await page.goto(`${lab.uiOrigin}/?requests=200&delay=200&repeats=20&servers=h2-node&maxInFlight=10`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /repeat 2\//.test(document.querySelector('#progress-text').textContent), null, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.waitForFunction(() => /^Stopped/.test(document.querySelector('#progress-text').textContent), null, { timeout: 30_000 });
  assert.match(await page.locator('#progress-text').textContent(), /^Stopped: 1 runs/);
  assert.equal(await page.getByRole('button', { name: 'Run', exact: true }).isEnabled(), true);
});

test('preflight in a browser that does not trust the certificate shows the fix', async () => {
  const untrusting = await launchBrowser({ certs: { spkiSha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' } });
  try {
    const other = await untrusting.context.newPage();
    await other.goto(`${lab.uiOrigin}/`);
    await other.waitForFunction(() => window.h2lab?.ready !== undefined);
    assert.equal(await other.evaluate(() => window.h2lab.ready), false);
    const fix = await other.locator('#preflight-fix').textContent();
    assert.match(fix, /does not trust the lab's certificate/);
    assert.match(fix, /npm run chrome/);
  } finally {
    await untrusting.close();
  }
});

test('Page load panel: Requested, Preload, Early Hints and Push against h2-node, as top-level navigations', { timeout: 120_000 }, async () => {
  await page.goto(`${lab.uiOrigin}/`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
  const panel = page.locator('#page-load');
  await panel.getByLabel('Server').selectOption('h2-node');
  await panel.getByLabel('Repeats').fill('3');
  await panel.getByLabel('Think time (ms)').fill('200');
  await page.getByRole('button', { name: 'Load pages' }).click();
  await page.waitForFunction(() => /^(Page loads done|Failed|Stopped)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  assert.match(await page.locator('#progress-text').textContent(), /^Page loads done: 12 loads/);
  const rows = await page.locator('#page-load-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['Requested', 'Preload', 'Push', 'Early Hints']);
  for (const r of rows.filter((x) => x[0] !== 'Push')) assert.ok(Number(r[2]) >= 200, `${r[0]}: ${r[2]} ms with a 200 ms think time`);
  const push = rows.find((r) => r[0] === 'Push');
  assert.equal(push[2], 'no number');
  assert.match(push[6], /SETTINGS_ENABLE_PUSH = 0/);
  assert.match(rows.find((r) => r[0] === 'Early Hints')[6], /103 received in 3 of 3 loads, acted on in 3/);
  const csv = Papa.parse((await downloadOf('Export page loads CSV')).data.toString().trim(), { header: true });
  assert.equal(csv.data.length, 12);
  assert.deepEqual(csv.meta.fields.slice(0, 5), ['server', 'preset', 'network', 'mode', 'repeat']);
  assert.equal(csv.data[0].preset, 'no-throttling');
  const json = JSON.parse((await downloadOf('Export page loads JSON')).data.toString());
  assert.equal(json.loads.length, 12);
  assert.equal(json.settings.server, 'h2-node');
  // The server saw the early-hinted asset requested during the think time, well before the HTML
  // left; a plain or preloaded page's asset only after it. Every hinted load acts on its 103 since
  // the server holds it back earlyHintsHoldMs (server/config.js: Chromium dropped one in eight
  // that arrived before it had finished sending the request).
  const hinted = json.loads.filter((l) => l.mode === 'hints');
  const early = hinted.filter((l) => l.assetsRequestedEarly === 1);
  assert.equal(early.length, 3, `assets requested early in ${early.length} of 3 hinted loads: ${JSON.stringify(hinted)}`);
  for (const l of hinted) assert.equal(l.hintActedOn, true, JSON.stringify(l));
  for (const l of early) assert.ok(l.earlyLeadMs >= 100, `asset only ${l.earlyLeadMs} ms before the HTML of a 200 ms think time`);
  for (const l of hinted) assert.ok([0, 1].includes(l.assetsRequestedEarly), JSON.stringify(l));
  for (const l of json.loads.filter((x) => x.mode !== 'hints')) assert.equal(l.assetsRequestedEarly, 0, JSON.stringify(l));
});

test('a lab started with other caps: the forms take their bounds from the servers', async () => {
  const small = await startTestLab({ maxSizeMiB: 8, maxDelayMs: 1000 });
  const other = await context.newPage();
  try {
    await other.goto(`${small.uiOrigin}/`);
    await other.waitForFunction(() => window.h2lab?.ready !== undefined);
    assert.equal(await other.getByLabel('Size (MiB)').getAttribute('max'), '8');
    assert.equal(await other.locator('#page-load').getByLabel('Asset size (KiB)').getAttribute('max'), '8192');
    await other.getByLabel('Size (MiB)').fill('10');
    await other.getByRole('button', { name: 'Run', exact: true }).click();
    await other.waitForFunction(() => document.querySelector('#settings-errors').textContent !== '');
    assert.match(await other.locator('#settings-errors').textContent(), /Size must be a number from 0 to 8 MiB/);
  } finally {
    await other.close();
    await small.close();
  }
});

test('at 400 px wide the page does not scroll sideways; wide tables scroll inside themselves', async () => {
  const narrow = await context.newPage();
  try {
    await narrow.setViewportSize({ width: 400, height: 900 });
    await narrow.goto(`${lab.uiOrigin}/`);
    await narrow.waitForFunction(() => window.h2lab?.ready !== undefined);
    const [scrollWidth, clientWidth] = await narrow.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scrollWidth <= clientWidth, `page is ${scrollWidth} px wide in a ${clientWidth} px window`);
    assert.equal(await narrow.locator('#page-load-table').evaluate((t) => getComputedStyle(t).overflowX), 'auto');
  } finally {
    await narrow.close();
  }
});
