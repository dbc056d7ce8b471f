// `npm run page-loads -- [options]`: the Page load panel from one command. Starts the servers,
// fills the panel's form in headless Chromium and clicks "Load pages", as a person would, with
// the page-load window throttled through the DevTools Protocol (applied before its first load,
// cleared after). Writes the result as JSON, CSV and the panel's chart, and prints a table.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pageLoadsCsv } from '../common/csv.js';
import { pageLoadDefaultServer, pageLoadLabels, pageLoadModes } from '../common/page-load.js';
import { pageLoadsMarkdown } from '../common/page-load-markdown.js';
import { reportHtml } from '../common/report-html.js';
import { serverById, serverIds, unavailableReason } from '../common/servers.js';
import { runCli } from '../cli/run.js';
import { browserVersion, certificateIgnoredNote, chartPngs, connectBrowser, launchBrowser, loadLabPage } from './browser.js';
import { browserUrlRule, got, readArgs, readBrowserUrl, readChoice, readOutDir, readPreset, usageError } from '../cli/options.js';
import { pageFlagSpec, pageFlagUsage, readPageFields } from './page-options.js';
import { applyPreset, clearNetwork } from '../common/devtools-network.js';

const windowName = 'h2lab-page-load'; // the panel's window; opening it first lets us throttle it

const usage = `Usage: npm run page-loads -- [options]
Loads the lab's test page as real top-level navigations in headless Chromium through the Page
load panel, in each mode, and prints per mode the load time with its 95 % CI and its ratio to
Requested.
  --server ${serverIds.join('|')}   (default ${pageLoadDefaultServer})
${pageFlagUsage}
  --modes LIST       comma-separated, of ${pageLoadModes.join(', ')} (default all)
  --preset NAME      the network preset (id or label; default no-throttling)
  --network HOW      who applies it: devtools (DevTools throttling on the page-load window, through
                     the DevTools Protocol) or link (the lab link, below TLS) (default devtools)
  --out DIR          where the files go (default results/page-loads-<UTC time>/)
  --browser-url URL  drive a Chrome that is already running, through its DevTools endpoint,
                     instead of starting one (see npm run experiments -- --help)
  --json             print the result object on stdout instead of the table`;

const optionSpec = {
  server: { type: 'string', default: pageLoadDefaultServer, accepts: serverIds.join(', ') },
  ...pageFlagSpec,
  modes: { type: 'string', default: pageLoadModes.join(','), accepts: `some of ${pageLoadModes.join(', ')}` },
  preset: { type: 'string', default: 'no-throttling', accepts: 'a preset id or label' },
  network: { type: 'string', default: 'devtools', accepts: 'devtools or link' },
  out: { type: 'string', accepts: 'a directory' },
  'browser-url': { type: 'string', accepts: browserUrlRule },
  json: { type: 'boolean', default: false },
};

function parse(args, env, now = new Date()) {
  const values = readArgs(args, optionSpec);
  const settings = { server: readChoice('server', values.server, serverIds), ...readPageFields(values) };
  const modes = values.modes.split(',').map((m) => m.trim()).filter(Boolean);
  const unknown = modes.find((m) => !pageLoadModes.includes(m));
  if (unknown || !modes.length) throw usageError('modes', `must list some of ${pageLoadModes.join(', ')}, ${got(values.modes)}`);
  settings.modes = pageLoadModes.filter((m) => modes.includes(m));
  settings.network = readChoice('network', values.network, ['devtools', 'link']);
  const preset = readPreset('preset', values.preset, { network: settings.network });
  settings.preset = preset.id;
  const browserUrl = values['browser-url'] === undefined ? null : readBrowserUrl(values['browser-url']);
  return { help: values.help, settings, preset, out: readOutDir(values.out, env, now, 'page-loads-'), json: values.json, browserUrl };
}

/** Fills the panel's form through its labels, as a person would. */
async function fillForm(panel, s) {
  await panel.getByLabel('Server').selectOption(s.server);
  await panel.getByLabel('Assets').fill(String(s.assets));
  await panel.getByLabel('Asset size (KiB)').fill(String(s.assetKiB));
  await panel.getByLabel('Think time (ms)').fill(String(s.thinkMs));
  await panel.getByLabel('Repeats').fill(String(s.repeats));
  await panel.getByLabel('Network (throttling of the page-load window)').selectOption(s.preset);
  await panel.getByLabel('Page loads throttled by').selectOption(s.network);
  for (const mode of pageLoadModes) await panel.getByLabel(pageLoadLabels[mode], { exact: true }).setChecked(s.modes.includes(mode));
}

/** A server the lab or the browser cannot use is a usage error: one line with the reason, exit 2. */
function refuseUnusable(o, why) {
  if (why) throw Object.assign(new Error(`--server: ${o.settings.server} cannot run here: ${why}`), { exitCode: 2 });
}

async function run(o) {
  const { startLab, freePorts } = await import('../server/lab.js');
  // A browser someone else started is reached first: a wrong endpoint is found before anything starts.
  const remote = o.browserUrl ? await connectBrowser(o.browserUrl) : null;
  let lab = null;
  let browser;
  let certificate;
  try {
    lab = await startLab({ ...freePorts, noCaddy: !serverById(o.settings.server).front });
    refuseUnusable(o, unavailableReason(lab.describe(), o.settings.server));
    browser = remote ?? (await launchBrowser(lab, { viewport: { width: 1280, height: 900 } }));
    certificate = remote ? await remote.acceptCertificate(lab.describe().servers) : 'trusted';
    if (certificate === 'ignored') process.stderr.write(`Note: ${certificateIgnoredNote(lab.certs.spkiSha256)}\n`);
  } catch (err) {
    // Nothing started here outlives a failed start.
    await remote?.close().catch(() => {});
    await lab?.close().catch(() => {});
    throw err;
  }
  try {
    const { page, unusable } = await loadLabPage(browser.context, lab.uiOrigin, { link: o.settings.network === 'link' });
    refuseUnusable(o, unusable(o.settings.server)); // the page's preflight in this browser
    const panel = page.locator('#page-load');
    await fillForm(panel, o.settings);

    // The panel reuses a window of its name, so the one opened here, throttled before any load,
    // is the one every load navigates.
    const [popup] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate((name) => void window.open('about:blank', name, 'popup,width=900,height=700'), windowName),
    ]);
    const session = await browser.context.newCDPSession(popup);
    // Through the lab link the panel sets the link itself; DevTools' emulation is ours to apply.
    const devtools = o.settings.network === 'devtools';
    if (devtools) await applyPreset(session, o.preset);
    try {
      await panel.getByRole('button', { name: 'Load pages' }).click();
      const timeoutMs = 120_000 + o.settings.repeats * o.settings.modes.length * 60_000;
      await page.waitForFunction(() => /^(Page loads done|Failed|Stopped)/.test(document.querySelector('#progress-text').textContent), null, { timeout: timeoutMs });
      // The panel closes its window right after it reports done; the emulation ends with it.
      await popup.waitForEvent('close', { timeout: 10_000 }).catch(() => {});
    } finally {
      if (devtools && !popup.isClosed()) await clearNetwork(session);
    }
    const status = await page.locator('#progress-text').textContent();
    if (!status.startsWith('Page loads done')) {
      const errors = await page.locator('#page-load-errors').textContent();
      throw new Error(`${status}${errors ? `: ${errors}` : ''}`);
    }
    const result = await page.evaluate(() => window.h2lab.lastPageLoads);
    const { browser: browserName } = await browserVersion(await browser.context.newCDPSession(page));
    result.environment = { ...result.environment, browser: browserName, ...(devtools && { presetAppliedBy: 'runner' }), ...(o.browserUrl && { browserUrl: o.browserUrl, certificate }) };

    await mkdir(o.out, { recursive: true });
    const stem = path.join(o.out, `page-loads-${result.settings.server}`);
    const chart = await chartPngs(page, 'pageLoads', result);
    const markdown = pageLoadsMarkdown(result);
    await writeFile(`${stem}.json`, JSON.stringify(result, null, 2));
    await writeFile(`${stem}.csv`, pageLoadsCsv(result));
    await writeFile(`${stem}.png`, Buffer.from(chart.pngBase64, 'base64'));
    await writeFile(path.join(o.out, 'report.html'), reportHtml({ title: `h2lab page loads · ${result.settings.server}`, markdown, charts: [{ title: chart.title, pngBase64: chart.reportPngBase64 }], data: result, dataFile: `page-loads-${result.settings.server}.json` }));
    if (o.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(markdown);
    process.stderr.write(`Wrote ${stem}.json, .csv, .png and ${path.join(o.out, 'report.html')}\n`);
    return 0;
  } finally {
    await browser.close();
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'page-loads', usage, parse, run });
