// `npm run page-loads -- [options]`: the Page load panel from one command. In a runner session
// (runner/browsers/session.js: the lab and headless Chromium or Firefox, on the packet network's two sides
// with --network packet) it calls the panel's loads through window.h2lab.loadPages, with the page-load
// window throttled through the DevTools Protocol (applied before its first load, cleared after),
// the lab link or the packet network set by the page. Writes the result as
// JSON, CSV and the panel's chart, and prints a table; with several browsers, each in turn, into
// a folder of its own. With --har it replays recorded pages instead (runner/replay/command.js).
import { UsageError } from '../../common/setup/errors.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pageLoadsCsv } from '../../common/report/csv.js';
import { pageLoadDefaultServer, pageLoadModes } from '../../common/report/page-load.js';
import { pageLoadsMarkdown } from '../../common/report/page-load-markdown.js';
import { reportHtml } from '../../common/report/report-html.js';
import { frontsOf, serverIds, unavailableReason } from '../../common/setup/servers.js';
import { fields as settingFields } from '../../common/setup/settings.js';
import { oneOfText } from '../../common/setup/text.js';
import { runCli } from '../../cli/run.js';
import { chartPngs, loadLabPage } from '../browsers/chromium.js';
import { whileNetworkLasts } from '../network-watch.js';
import { networkOf } from '../../common/setup/networks.js';
import { runSession } from '../browsers/session.js';
import { browserRule, readBrowsers } from '../browsers/browser-option.js';
import { browserUrlRule, got, readArgs, readBrowserUrl, readCapture, readChoice, readNetLogFlag, readOutDir, readPreset, usageError } from '../../cli/options.js';
import { pageFlagSpec, pageFlagUsage, readPageFields } from '../page-options.js';
import { applyPreset, clearNetwork } from '../../common/setup/devtools-network.js';
import { captureFilesFrom, evidencePaths, evidenceSpec, evidenceUsage } from '../output/evidence.js';
import { addNetLogToRuns } from '../output/netlog.js';
import * as replay from '../replay/command.js';

const windowName = 'h2lab-page-load'; // the panel's window; opening it first lets us throttle it

const usage = `Usage: npm run page-loads -- [options]
Loads the lab's test page as real top-level navigations in headless Chromium (or Firefox:
--browser) through the Page load panel, in each mode, and prints per mode the load time with its interval (and level) and its ratio to
Requested.
  --server ${serverIds.join('|')}   (default ${pageLoadDefaultServer})
${pageFlagUsage}
  --modes LIST       comma-separated, of ${pageLoadModes.join(', ')} (default all)
  --preset NAME      the network preset (id or label; default no-throttling)
  --network HOW      who applies it: devtools (DevTools throttling on the page-load window, through
                     the DevTools Protocol), link (the lab link, below TLS) or packet (real TCP and
                     QUIC on an emulated path: Linux, user namespaces, /dev/net/tun, python3)
                     (default devtools)
  --browser NAME     chromium or firefox (--network link or packet), or a list (chromium,firefox:
                     the loads in each in turn, each browser's files in DIR/<browser>/)
                     (default chromium)
  --out DIR          where the files go (default results/page-loads-<UTC time>/)
${evidenceUsage(21, 'load')}
  --browser-url URL  drive a Chrome that is already running, through its DevTools endpoint,
                     instead of starting one (see npm run experiments -- --help)
  --json             print the result object on stdout instead of the table
  --har FILE|DIR     replay recorded pages instead, over HTTP/1.1, HTTP/2 and HTTP/3
                     (npm run page-loads -- --har FILE --help says how)`;

/** @satisfies {Record<string, import('../../cli/options.js').OptionSpec>} */
const optionSpec = {
  server: { type: 'string', default: pageLoadDefaultServer, accepts: serverIds.join(', ') },
  ...pageFlagSpec,
  modes: { type: 'string', default: pageLoadModes.join(','), accepts: `some of ${pageLoadModes.join(', ')}` },
  preset: { type: 'string', default: 'no-throttling', accepts: 'a preset id or label' },
  network: { type: 'string', default: settingFields.network.default, accepts: oneOfText(settingFields.network.oneOf) },
  out: { type: 'string', accepts: 'a directory' },
  'browser-url': { type: 'string', accepts: browserUrlRule },
  browser: { type: 'string', accepts: browserRule },
  json: { type: 'boolean', default: false },
  ...evidenceSpec,
};

/**
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @param {Date} [now]
 */
function parse(args, env, now = new Date()) {
  const values = readArgs(args, optionSpec);
  const netlog = readNetLogFlag(values);
  const server = readChoice('server', values.server, serverIds);
  const fields = readPageFields(values);
  const modes = values.modes.split(',').map((m) => m.trim()).filter(Boolean);
  const unknown = modes.find((m) => !pageLoadModes.includes(m));
  if (unknown || !modes.length) throw usageError('modes', `must list some of ${pageLoadModes.join(', ')}, ${got(values.modes)}`);
  const network = /** @type {import('../../common/setup/networks.js').NetworkId} */ (readChoice('network', values.network, settingFields.network.oneOf));
  const preset = readPreset('preset', values.preset, { network });
  const browserUrl = values['browser-url'] === undefined ? null : readBrowserUrl(values['browser-url']);
  // The packet network's browser runs on its browser side, next to a lab of the runner's own.
  if (networkOf(network).ownLab && browserUrl) throw usageError('network', `${network} starts its own lab and browser: not with --browser-url`);
  const capture = readCapture(values, [network]);
  const browsers = readBrowsers(values.browser, [network], { remote: browserUrl !== null });
  const settings = { server, ...fields, modes: pageLoadModes.filter((m) => modes.includes(m)), network, preset: preset.id };
  return { help: values.help, settings, preset, out: readOutDir(values.out, env, now, 'page-loads-'), json: values.json, browserUrl, browsers, capture, netlog };
}

/** @typedef {ReturnType<typeof parse>} PageLoadsOptions */

/**
 * A server the lab or the browser cannot use is a usage error: one line with the reason, exit 2.
 * @param {PageLoadsOptions} o
 * @param {string|null} why
 */
function refuseUnusable(o, why) {
  if (why) throw new UsageError(`--server: ${o.settings.server} cannot run here: ${why}`);
}

/** @param {PageLoadsOptions} o */
async function run(o) {
  const { network, server } = o.settings;
  const session = {
    packet: networkOf(network).ownLab,
    servers: true,
    browserUrl: o.browserUrl,
    browsers: o.browsers,
    fronts: frontsOf([server]),
    evidence: evidencePaths(o),
  };
  return runSession(session, (s) => loadAndWrite(o, s), { check: (described) => refuseUnusable(o, unavailableReason(described, server, network)) });
}

/**
 * The session's work: in each browser in turn, the loads through window.h2lab.loadPages, then
 * its files. Resolves the exit code: 1 once a browser's loads stopped (the next browsers not begun).
 * @param {PageLoadsOptions} o
 * @param {import('../browsers/session.js').Session} session
 */
async function loadAndWrite(o, session) {
  for (const [k, name] of o.browsers.entries()) {
    const browser = k ? await session.switchBrowser(name) : session.browser;
    const out = o.browsers.length > 1 ? path.join(o.out, name) : o.out;
    const code = await loadInBrowser(o, session, browser, out);
    if (code) return code;
  }
  return 0;
}

/**
 * One browser's loads and files.
 * @param {PageLoadsOptions} o
 * @param {import('../browsers/session.js').Session} session
 * @param {import('../browsers/browsers.js').LabBrowser} browser
 * @param {string} out  where this browser's files go
 */
async function loadInBrowser(o, { lab, uiOrigin, certificate }, browser, out) {
  const { page, unusable } = await loadLabPage(browser, uiOrigin, { networks: [o.settings.network] });
  refuseUnusable(o, unusable(o.settings.server)); // the page's preflight in this browser
  // Read before the loads: a browser that goes away mid-run must not take the environment with it.
  const { browser: browserName } = await browser.version(page);
  const result = await loadPages(page, browser.context, o.settings, { preset: o.preset, labNetworks: lab?.networks ?? {}, capture: o.capture });
  result.environment = { ...result.environment, browser: browserName, browserName: browser.name, ...(o.browserUrl && { browserUrl: o.browserUrl, certificate }) };
  captureFilesFrom(result.loads, out); // named from this browser's folder, as its netLog and qlog
  await mkdir(out, { recursive: true });
  const stem = path.join(out, `page-loads-${result.settings.server}`);
  const chart = await chartPngs(page, 'pageLoads', result);
  if (o.netlog) {
    // Chromium writes the NetLog's last events as it exits, Firefox keeps its qlog as it closes:
    // closed now that the chart is drawn (the next browser, if any, starts afresh).
    await browser.close();
    if (browser.name === 'chromium') {
      result.environment.netLog = path.relative(out, path.join(o.out, 'netlog.json'));
      result.environment.netLogError = addNetLogToRuns(result.loads, path.join(o.out, 'netlog.json'));
      if (result.environment.netLogError) process.stderr.write(`NetLog: ${result.environment.netLogError}\n`);
    } else result.environment.qlog = path.relative(out, path.join(o.out, 'qlog')) + '/';
  }
  const markdown = pageLoadsMarkdown(result);
  await writeFile(`${stem}.json`, JSON.stringify(result, null, 2));
  await writeFile(`${stem}.csv`, pageLoadsCsv(result));
  await writeFile(`${stem}.png`, Buffer.from(chart.pngBase64, 'base64'));
  await writeFile(path.join(out, 'report.html'), reportHtml({ title: `h2lab page loads · ${result.settings.server} · ${browserName}`, markdown, charts: [{ title: chart.title, pngBase64: chart.reportPngBase64 }], data: result, dataFile: `page-loads-${result.settings.server}.json` }));
  if (o.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(markdown);
  process.stderr.write(`Wrote ${stem}.json, .csv, .png and ${path.join(out, 'report.html')}\n`);
  if (result.stopped) {
    process.stderr.write(`h2lab page-loads: stopped in ${browserName} after ${result.loads.length} of ${result.settings.repeats * result.settings.modes.length} loads (${String(result.stopReason).split('\n')[0]}); the finished loads are written\n`);
    return 1;
  }
  return 0;
}

/**
 * The page's loads under the settings' network: through DevTools the runner throttles the
 * page-load window (opened here first: the page reuses a window of its name) before its first
 * load; through the lab link or on the packet network the page sets the network; on the packet
 * network the runner watches the emulator.
 * @param {import('../browsers/browsers.js').LabPage} page
 * @param {import('playwright-core').BrowserContext|null} context  Chromium's (DevTools throttling is Chromium's alone: readBrowsers)
 * @param {PageLoadsOptions['settings']} settings
 * @param {{ preset: import('../../common/setup/presets.js').Preset, labNetworks: Record<string, Parameters<typeof whileNetworkLasts>[0]>, capture: { whole: boolean } | null }} o
 *   labNetworks: lab.networks; capture: each load's packets (a network the lab sets)
 * @returns {Promise<import('../../common/report/result.js').PageLoadResult>}
 */
async function loadPages(page, context, settings, { preset, labNetworks, capture }) {
  const measure = () => page.evaluate(([s, more]) => window.h2lab.loadPages(s, more), /** @type {const} */ ([settings, { capture }]));
  if (networkOf(settings.network).labSets) return whileNetworkLasts(labNetworks[settings.network], measure);
  if (!context) throw new Error(`${settings.network} throttling needs Chromium's DevTools`);
  const [popup] = await Promise.all([
    context.waitForEvent('page'),
    page.evaluate((name) => void window.open('about:blank', name, 'popup,width=900,height=700'), windowName),
  ]);
  const cdp = await context.newCDPSession(popup);
  await applyPreset(cdp, preset);
  try {
    const result = await measure();
    result.environment.presetAppliedBy = 'runner';
    return result;
  } finally {
    // The page closes its window when done, and the emulation ends with it.
    if (!popup.isClosed()) await clearNetwork(cdp).catch(() => {});
  }
}

// --har replays recorded pages instead of loading the lab's own (runner/replay/command.js).
const replaying = process.argv.slice(2).some((a) => a === '--har' || a.startsWith('--har='));
// --check (the lab's API, before it starts a replay): the options read, one JSON line, nothing run.
const checking = replaying && process.argv.includes('--check');
if (checking) {
  const answer = replay.check(process.argv.slice(2).filter((a) => a !== '--check'), process.env);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  process.exitCode = 'error' in answer ? 2 : 0;
} else process.exitCode = replaying ? await runCli({ name: 'page-loads', usage: replay.usage, parse: replay.parse, run: replay.run }) : await runCli({ name: 'page-loads', usage, parse, run });
