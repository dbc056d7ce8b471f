// The report to share: one HTML file from the runner and from the page that opens from file://,
// makes no network request, shows every server's median and gives its data back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, openLabPage } from '../runner/browsers/chromium.js';
import { fileChartScale, reportChartScale } from '../common/report/report-html.js';
import { serverLabel } from '../common/setup/servers.js';
import { runScript } from './helpers/cli.js';
import { startTestLab } from './helpers/lab.js';
import { sampleResult } from './fixtures/sample-result.js';

let lab;
let browser;
const out = mkdtempSync(path.join(tmpdir(), 'h2lab-report-'));

before(async () => {
  lab = await startTestLab();
  browser = await launchBrowser(lab, { acceptDownloads: true });
});

after(async () => {
  await browser?.close();
  await lab?.close();
  rmSync(out, { recursive: true, force: true });
});

/** Opens an HTML file from file:// and records every request the page makes besides the file itself. */
async function openOffline(file) {
  const page = await browser.context.newPage();
  const requests = [];
  const fileUrl = pathToFileURL(file).href;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url !== fileUrl) requests.push(url);
    return url.startsWith('data:') || url === fileUrl ? route.continue() : route.abort();
  });
  page.on('request', (r) => {
    if (r.url() !== fileUrl && !r.url().startsWith('data:')) requests.push(r.url());
  });
  await page.goto(fileUrl, { waitUntil: 'load' });
  const images = await page.locator('img').evaluateAll((imgs) => imgs.map((i) => i.complete && i.naturalWidth > 0));
  return { page, requests, images };
}

async function downloadedData(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the data (JSON)' }).click()]);
  return { name: download.suggestedFilename(), data: JSON.parse(readFileSync(await download.path(), 'utf8')) };
}

test('npm run experiments -- --preset fast-4g --requests 30 --repeats 2 writes report.html: offline, every server\'s median, its data', { timeout: 300_000 }, async () => {
  const r = runScript('runner/commands/experiments.js', ['--preset', 'fast-4g', '--requests', '30', '--repeats', '2', '--out', out, '--quiet'], { timeout: 280_000 });
  assert.equal(r.status, 0, r.stderr);
  const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
  const [point] = results.experiments[0].points;
  const { page, requests, images } = await openOffline(path.join(out, 'report.html'));
  try {
    assert.deepEqual(requests, [], 'the report asked the network for something');
    assert.ok(images.length >= 1 && images.every(Boolean), `charts drawn: ${images}`);
    const text = await page.locator('body').textContent();
    for (const [id, s] of Object.entries(point.result.summary)) {
      if (!s.n) continue;
      assert.ok(text.includes(`${serverLabel(id)} (ms)`), `${id}'s column`);
      const median = s.median < 100 ? s.median.toFixed(1) : s.median.toFixed(0);
      assert.ok(text.includes(median), `${id}'s median ${median}`);
    }
    assert.match(text, /network measured/);
    // One drawing, two renderings: the chart's PNG file at its scale, the report's image at its own.
    const pngWidths = readdirSync(out, { recursive: true }).filter((f) => f.endsWith('.png')).map((f) => readFileSync(path.join(out, f)).readUInt32BE(16));
    const reportWidths = await page.locator('img').evaluateAll((imgs) => imgs.map((i) => i.naturalWidth));
    assert.ok(pngWidths.length >= 1, 'a PNG file beside the report');
    assert.deepEqual(pngWidths.map((w) => w * reportChartScale).sort(), reportWidths.map((w) => w * fileChartScale).sort());
    const { name, data } = await downloadedData(page);
    assert.equal(name, 'results.json');
    assert.deepEqual(data, results);
  } finally {
    await page.close();
  }
});

test('the page\'s Export report: offline, every chart, and Import takes it back', { timeout: 120_000 }, async () => {
  const page = await openLabPage(browser.context, lab.uiOrigin);
  let report;
  try {
    const result = await page.evaluate(() => window.h2lab.run({ requests: 20, sizeMiB: 0.01, repeats: 2, servers: ['h1', 'h2-spdy', 'h2-node'] }));
    await page.waitForFunction(() => !document.querySelector('#results').hidden);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export report' }).click()]);
    report = path.join(out, download.suggestedFilename());
    await download.saveAs(report);
    assert.match(path.basename(report), new RegExp(`^h2lab-${result.id}\\.html$`));
    const opened = await openOffline(report);
    try {
      assert.deepEqual(opened.requests, []);
      // Total time, distribution and one waterfall per server.
      assert.equal(opened.images.length, 2 + 3);
      assert.ok(opened.images.every(Boolean));
      const text = await opened.page.locator('body').textContent();
      assert.match(text, /Set-up/);
      for (const id of ['h1', 'h2-spdy', 'h2-node']) assert.ok(text.includes(`${serverLabel(id)} (ms)`));
      const { data } = await downloadedData(opened.page);
      assert.equal(data.id, result.id);
    } finally {
      await opened.page.close();
    }
    // The report itself imports as the result it was made from.
    await page.goto(`${lab.uiOrigin}/`);
    await page.waitForFunction(() => window.h2lab?.ready !== undefined);
    await page.locator('#import-json').setInputFiles(report);
    await page.waitForFunction((id) => window.h2lab.last?.id === id, result.id);
    assert.equal(await page.locator('#summary tbody tr').count(), 3);
  } finally {
    await page.close();
  }
});

test('Import refuses an HTML file that is not a report, and a runner\'s report, with a message', { timeout: 60_000 }, async () => {
  const page = await openLabPage(browser.context, lab.uiOrigin);
  try {
    const other = path.join(out, 'other.html');
    writeFileSync(other, '<!doctype html><p>hello</p>');
    await page.locator('#import-json').setInputFiles(other);
    await page.waitForFunction(() => /not an h2lab report/.test(document.querySelector('#settings-errors').textContent));
    const runnerReport = path.join(out, 'report.html');
    await page.locator('#import-json').setInputFiles(runnerReport);
    await page.waitForFunction(() => /a report of npm run experiments/.test(document.querySelector('#settings-errors').textContent));
  } finally {
    await page.close();
  }
});

test('a report exported from an imported crafted result has no link that runs script', { timeout: 60_000 }, async () => {
  const crafted = sampleResult({ requests: 10, repeats: 2 });
  crafted.environment.userAgent = 'Chrome [click](javascript:document.title="ran")';
  crafted.environment.servers[0].label = '[x](javascript:document.title="ran")';
  const file = path.join(out, 'crafted.json');
  writeFileSync(file, JSON.stringify(crafted));
  const page = await openLabPage(browser.context, lab.uiOrigin);
  try {
    await page.locator('#import-json').setInputFiles(file);
    await page.waitForFunction((id) => window.h2lab.last?.id === id, crafted.id);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export report' }).click()]);
    const report = path.join(out, 'crafted.html');
    await download.saveAs(report);
    const opened = await openOffline(report);
    try {
      assert.deepEqual(await opened.page.locator('a').evaluateAll((links) => links.map((a) => a.protocol)), []);
      assert.match(await opened.page.locator('body').textContent(), /Browser: Chrome \[click\]\(javascript:/);
    } finally {
      await opened.page.close();
    }
  } finally {
    await page.close();
  }
});
