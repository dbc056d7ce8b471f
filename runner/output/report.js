// What a runner session leaves in --out: results.json, requests.csv, summary.csv, summary.md,
// environment.json, report.html (with the charts the runner drew), under several networks
// networks.csv, and with captures connections.csv. It only formats experiments the runner measured (common/report/summary-markdown.js Experiment).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connectionFields, connectionRows, csv, networkComparisonCsv, requestFields, requestRows, summaryFields, summaryRows } from '../../common/report/csv.js';
import { compareBrowsers, compareNetworks } from '../../common/report/network-comparison.js';
import { reportHtml } from '../../common/report/report-html.js';
import { summaryMarkdown } from '../../common/report/summary-markdown.js';
import { networkOf } from '../../common/setup/networks.js';
import { lossSeedText } from '../../common/setup/seeds.js';

// A report is a file to send: past this size its data keeps every summary and run but leaves the
// per-request records to results.json and requests.csv (the classic suite's are tens of MB).
const reportMaxDataBytes = 8 * 1024 * 1024;

/** @typedef {import('../../common/report/summary-markdown.js').Experiment} Experiment */

/**
 * Where and in what a runner session ran (environment.json; runner/commands/experiments.js measure).
 * @typedef {object} RunnerEnvironment
 * @property {string} browser      name and full version (of each browser, joined by "and")
 * @property {string} userAgent
 * @property {Array<{ name: string, browser: string, userAgent: string }>} [browsers]  each browser
 *   of the session (--browser), in the order they ran (absent in files from before it)
 * @property {string|null} browserUrl  the DevTools endpoint of a --browser-url Chrome
 * @property {'trusted'|'ignored'} certificate  whether that browser trusted the lab's certificate
 * @property {string} os
 * @property {number} cpus
 * @property {string} node
 * @property {Array<{ label: string }>} servers  /api/servers' list
 * @property {object} limits       the lab's (/api/servers limits)
 * @property {string} date         ISO time of the start
 * @property {number} wallTimeS
 * @property {string|null} [netLog]  Chromium's NetLog of the session (--netlog), relative to the output folder
 * @property {string|null} [qlog]  the folder of Firefox's qlog files (--netlog), relative to the output folder
 * @property {{ k: number, n: number }|null} [shard]  --shard: this output is part k of n (npm run merge-results joins them)
 * @property {import('../plan.js').PlanRecord[]} [plan]  every experiment and point the command planned (runner/plan.js),
 *   reached or not: merge-results names a point no shard reached
 * @property {number|null} [lossSeed]  the base seed of the losses (--loss-seed, or drawn fresh for
 *   the command: runner/args.js), where packets could be lost; null or absent elsewhere
 * @property {import('../../cli/until-decided.js').UntilDecided|null} [untilDecided]  --repeats auto: the cap and the budget
 *   (each point's result.untilDecided says how many repeats it took and why it stopped)
 * @property {string[]} [mergedFrom]  npm run merge-results: the shards' folders
 * @property {string} [summarizedAgainAt]  npm run merge-results on one whole run: when its summaries were drawn again
 * @property {string|null} [netLogError]  what could not be read of it (a file cut short): the
 *   connections it names keep their NetLog fields, the rest have none
 */

/** @typedef {{ environment: RunnerEnvironment, experiments: Experiment[] }} RunnerResults  results.json */

/**
 * The report's data: the whole results, or without per-request records when they are too large.
 * @param {RunnerResults} results
 * @param {string} json  results as JSON
 * @returns {{ data: RunnerResults, note: string|null }}
 */
function reportData(results, json) {
  if (json.length <= reportMaxDataBytes) return { data: results, note: null };
  const experiments = results.experiments.map((e) => ({
    ...e,
    points: e.points.map((p) => ({ ...p, result: { ...p.result, runs: p.result.runs.map(({ requests, ...run }) => ({ ...run, requests: [] })) } })),
  }));
  const mb = (json.length / 1e6).toFixed(1);
  return { data: { ...results, experiments }, note: `The data in this report leaves out the per-request records (results.json is ${mb} MB): they are in results.json and requests.csv beside it.` };
}

/** @param {RunnerEnvironment} env */
export function environmentLine(env) {
  const remote = env.browserUrl ? ` (driven at ${env.browserUrl}: ${env.userAgent}${env.certificate === 'ignored' ? '; certificate errors ignored, HTTP/2 may open several connections' : ''})` : '';
  const again = env.summarizedAgainAt ? ` · summarized again ${env.summarizedAgainAt.slice(0, 10)} under the rules of that day` : '';
  const part = env.shard ? ` · shard ${env.shard.k} of ${env.shard.n}` : env.mergedFrom ? ` · merged from ${env.mergedFrom.length} shards` : again;
  const seed = env.lossSeed == null ? '' : ` · ${lossSeedText(env.lossSeed)}`;
  return `${env.browser}${remote} · ${env.os} · ${env.cpus} CPUs · node ${env.node} · servers: ${env.servers.map((s) => s.label).join(', ')} · ${env.date}${seed}${part}`;
}

/**
 * Writes every output file but the charts' PNGs; returns their paths.
 * @param {string} dir
 * @param {Experiment[]} experiments  the measured points of each
 * @param {RunnerEnvironment} environment
 * @param {Array<{ title: string, pngBase64: string }>} charts every experiment's chart, for report.html
 * @returns {Promise<string[]>}
 */
export async function writeOutputs(dir, experiments, environment, charts) {
  await mkdir(dir, { recursive: true });
  const points = experiments.flatMap((e) => e.points.map((p) => ({ experiment: e, point: p })));
  const results = { environment, experiments: experiments.map((e) => ({ ...e, points: e.points.map((p) => ({ label: p.label, value: p.value, result: p.result, ...(p.shard && { shard: p.shard }) })) })) };
  const summary = summaryMarkdown(experiments, environmentLine(environment));
  const json = JSON.stringify(results);
  const { data, note } = reportData(results, json);
  /** @type {Record<string, string>} */
  const files = {
    'results.json': json,
    'requests.csv': csv(['experiment', 'condition', ...requestFields], points.flatMap(({ experiment, point }) => requestRows(point.result).map((row) => [experiment.id, point.label, ...row]))),
    'summary.csv': csv(['experiment', 'condition', 'network', 'preset', ...summaryFields], points.flatMap(({ experiment, point }) => summaryRows(point.result).map((row) => [experiment.id, point.label, networkOf(point.result.settings.network).id, point.result.settings.preset, ...row]))),
    'summary.md': summary,
    'environment.json': JSON.stringify(environment, null, 2),
    'report.html': reportHtml({ title: 'h2lab results', markdown: note ? `${summary}\n${note}\n` : summary, charts, data, dataFile: 'results.json' }),
  };
  const compared = compareNetworks(experiments);
  if (compared.length) files['networks.csv'] = networkComparisonCsv(compared);
  const browsers = compareBrowsers(experiments);
  if (browsers.length) files['browsers.csv'] = networkComparisonCsv(browsers, 'browser');
  // Each connection a capture saw (--capture), with the requests it carried.
  const connections = points.flatMap(({ experiment, point }) => connectionRows(point.result).map((row) => [experiment.id, point.label, ...row]));
  if (connections.length) files['connections.csv'] = csv(['experiment', 'condition', ...connectionFields], connections);
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return Object.keys(files).map((name) => path.join(dir, name));
}
