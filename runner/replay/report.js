// The files of a replay's page loads, from its results alone: results.json, summary.md (the
// report's text), loads.csv (a row per load), origins.csv (a row per origin of each load: the waterfall by origin) and report.html,
// whose text (also printed) leads with the verdicts. The folder is 0700 and each file 0600: a
// replay names the recorded pages' URLs. results.json has the experiments' shape (one experiment,
// a point per page, its value the page's name), so what reads a published experiment and judges
// it again reads a replay alike (test/readme-figures.test.js).
import fs from 'node:fs/promises';
import path from 'node:path';
import { median } from 'simple-statistics';
import { csv } from '../../common/report/csv.js';
import { reportHtml } from '../../common/report/report-html.js';
import { networkOf } from '../../common/setup/networks.js';
import { presetById } from '../../common/setup/presets.js';
import { serverLabel } from '../../common/setup/servers.js';
import { scopeText } from '../../common/stats/family.js';
import { levelText, verdictText } from '../../common/stats/stats.js';
import { roundsText } from '../../common/stats/until-decided.js';
import { invalidText } from '../../common/stats/validity.js';
import { pageMetrics } from './runs.js';

const metrics = /** @type {Array<keyof typeof pageMetrics>} */ (Object.keys(pageMetrics));

/** @typedef {import('./page-loads.js').ReplayResult} ReplayResult */

/**
 * Writes the files; answers the report's text and what was written.
 * @param {ReplayResult[]} results
 * @param {{ out: string, software: Record<string, string>, wallMs: number }} o
 */
export async function replayFiles(results, { out, software, wallMs }) {
  await fs.mkdir(out, { recursive: true, mode: 0o700 });
  const markdown = replayMarkdown(results, { software, wallMs });
  const data = replayData(results, software, wallMs);
  const files = {
    'results.json': JSON.stringify(data, null, 2),
    'summary.md': markdown,
    'loads.csv': loadsCsv(results),
    'origins.csv': originsCsv(results),
    'report.html': reportHtml({ title: `h2lab page loads · replayed · ${results.length} page${results.length === 1 ? '' : 's'}`, markdown, charts: [], data, dataFile: 'results.json' }),
  };
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(out, name), text, { mode: 0o600 });
  return { markdown, written: Object.keys(files).map((f) => path.join(out, f)) };
}

/**
 * results.json: one experiment whose points are the pages, with what its summary also says.
 * @param {ReplayResult[]} results @param {Record<string, string>} software @param {number} wallMs
 */
export const replayData = (results, software, wallMs) => ({ kind: 'replay', software, wallMs, experiments: [{ title: 'replayed pages', points: results.map((r) => ({ value: r.page.name, result: r })) }] });

/**
 * summary.md again from a results.json replayData wrote.
 * @param {ReturnType<typeof replayData>} data
 */
export const replaySummaryOf = ({ software, wallMs, experiments }) => replayMarkdown(experiments[0].points.map((p) => p.result), { software, wallMs });

/** @param {number|null|undefined} ms */
const msText = (ms) => (ms == null ? '–' : `${Math.round(ms)} ms`);

/**
 * The median of a page metric over a server's valid loads, null without any.
 * @param {ReplayResult} r @param {string} server @param {(p: import('./runs.js').PageRecord) => number|null} of
 */
function medianOf(r, server, of) {
  const xs = r.runs.filter((run) => run.valid && run.server === server).map((run) => of(run.page)).filter((x) => x != null);
  return xs.length ? median(/** @type {number[]} */ (xs)) : null;
}

/**
 * The report's text: findings (every verdict) first, then each page's table, waterfall by
 * origin and invalid loads, then how it ran.
 * @param {ReplayResult[]} results
 * @param {{ software: Record<string, string>, wallMs: number }} o
 */
export function replayMarkdown(results, { software, wallMs }) {
  const [first] = results;
  if (!first) return '# h2lab page loads · replayed\n\nNo page was measured.\n';
  const s = first.settings;
  const metric = pageMetrics[s.metric].title;
  const lines = [
    `# h2lab page loads · replayed`,
    '',
    `${results.length} recorded page${results.length === 1 ? '' : 's'}, ${s.connections} connections, ${presetById(s.preset)?.label ?? s.preset} ${networkOf(s.network).text}${s.loss ? `, ${s.loss} % loss each way (base seed ${s.lossSeed})` : ''}, ${first.environment.browser}. Verdicts on the ${metric}; ${scopeText(first.family)}.`,
    '',
    '## Findings',
    '',
    ...results.flatMap((r) => r.comparisons.map((c) => `- **${r.page.name}**: ${verdictText(c)}`)),
    ...(results.some((r) => r.comparisons.length) ? [] : ['- No comparison: every page needs at least two valid loads over two protocols.']),
    ...results.flatMap(missFinding),
    '',
    ...results.flatMap((r) => pageSection(r)),
    '## How it ran',
    '',
    `- ${first.environment.browser}, Node ${first.environment.node}, ${first.environment.cpus} CPUs.`,
    ...Object.entries(software).map(([id, v]) => `- ${serverLabel(id)}: ${v || 'the lab\'s own'}`),
    `- Certificates: ${certificatesText(s.coalescing)}.`,
    `- Think time: ${s.think === 'recorded' ? 'each response waits its recorded server think time' : 'none (responses as soon as asked)'}. Bodies: ${s.bodies === 'model' ? 'every one made by the page model (--bodies model)' : 'as recorded, a page model\'s where the HAR has none'}.`,
    `- A load is valid when every request to a recorded origin was answered over the protocol its server speaks; a miss (a request the recording does not hold) is answered 404 and counted, and a request to a host the recording does not hold ${s.browser === 'firefox' ? 'resolves to the lab and fails its TLS handshake' : 'resolves to nothing'}. The browser's own \`/favicon.ico\`, which HAR exports leave out, is answered 404 and counted apart (${results.reduce((n, r) => n + r.runs.reduce((k, run) => k + (run.page.favicons ?? 0), 0), 0)} in all).`,
    ...(s.browser === 'firefox' ? ['- Firefox hides a cross-origin response\'s protocol and size, and names no connection: each request\'s connection, protocol and bytes (its body, without headers) are as its server saw them.'] : []),
    ...modelLine(results),
    `- ${Math.round(wallMs / 1000)} s in all.`,
    '',
  ];
  return lines.join('\n');
}

/**
 * Which certificates the servers served, as the result records it.
 * @param {import('./page-loads.js').ReplaySettings['coalescing']|undefined} coalescing  absent before the replay had certificates of its own
 */
function certificatesText(coalescing) {
  if (coalescing === undefined) return "the lab's own, which names none of the recorded hosts and which the browsers trusted by its key: no two origins share a connection (a run from before the replay's own certificates)";
  const which = coalescing === 'all' ? 'one naming every recorded host, so Chromium may pool origins onto one connection (--coalescing all)' : 'one per recorded host, so no two origins share a connection (--coalescing host)';
  return `${which}, from a CA made for the run and trusted only by its browsers`;
}

/**
 * What the page models made, where a HAR had no bodies.
 * @param {ReplayResult[]} results
 */
function modelLine(results) {
  const modelled = results.filter((r) => r.page.model.bodies);
  if (!modelled.length) return [];
  const KiB = (/** @type {number} */ b) => Math.round(b / 1024);
  return [`- Page models (server/replay/model.js) made the bodies the HARs lack: ${modelled.map((r) => `${r.page.name} ${r.page.model.bodies} bodies, ${KiB(r.page.model.bytes)} KiB for ${KiB(r.page.model.recordedBytes)} KiB recorded`).join('; ')}.`];
}

/**
 * A page whose loads asked for what its recording does not hold: said among the findings, since
 * each miss is a 404 where the real page had a response.
 * @param {ReplayResult} r
 */
function missFinding(r) {
  const per = medianOf(r, r.settings.servers[0], (p) => p.misses) ?? 0;
  return per ? [`- **${r.page.name}**: ${per} request${per === 1 ? '' : 's'} per load the recording holds no match for, answered 404 (listed below)`] : [];
}

/**
 * One page: its table by protocol, its waterfall by origin and its invalid loads.
 * @param {ReplayResult} r
 */
function pageSection(r) {
  const { page, settings } = r;
  const servers = settings.servers;
  const level = levelText(r.summary[servers[0]]?.ciLevel ?? null);
  const rows = servers.map((id) => {
    const runs = r.runs.filter((run) => run.server === id);
    const valid = runs.filter((run) => run.valid);
    const sum = r.summary[id];
    const ci = sum?.ci95 ? ` [${Math.round(sum.ci95[0])}–${Math.round(sum.ci95[1])}]` : '';
    const connections = valid.map((run) => run.connections);
    const conns = connections.length ? median(connections) : null;
    const misses = runs.reduce((n, run) => n + run.page.misses, 0);
    const times = metrics.map((m) => (m === settings.metric ? `**${msText(sum?.median)}**${ci}` : msText(medianOf(r, id, (p) => p[pageMetrics[m].field]))));
    return `| ${serverLabel(id)} | ${valid.length} of ${runs.length} | ${times.join(' | ')} | ${conns ?? '–'} | ${Math.round((medianOf(r, id, (p) => p.bytes) ?? 0) / 1024)} | ${misses} |`;
  });
  const invalid = r.runs.filter((run) => !run.valid).map((run) => `- ${serverLabel(run.server)}, repeat ${run.repeat}: ${invalidText(run)}`);
  const missed = [...new Set(r.runs.flatMap((run) => run.page.missed))];
  const skipped = Object.entries(page.skipped).map(([why, n]) => `${n} ${why}`).join(', ');
  return [
    `## ${page.name}`,
    '',
    `${page.url} · ${page.origins} origins, ${page.exchanges} recorded responses (${page.creator})${skipped ? `; left out: ${skipped}` : ''}${page.withoutBody ? `; ${page.withoutBody} without a body (made by its page model)` : ''}. ${roundsText(/** @type {any} */ (r)) || `${settings.repeats} loads per protocol`}.`,
    '',
    `Medians over the valid loads; the verdicts' metric in bold${level ? `, with its ${level} interval` : ''}.`,
    '',
    `| protocol | valid loads | ${metrics.map((m) => pageMetrics[m].title).join(' | ')} | connections | KiB | misses |`,
    `|---|---|${metrics.map(() => '---|').join('')}---|---|---|`,
    ...rows,
    '',
    ...waterfall(r),
    ...(missed.length ? [`Missed (the recording holds no match; answered 404 \`replay-miss\`): ${missed.slice(0, 10).map((m) => `\`${m}\``).join(', ')}${missed.length > 10 ? ` and ${missed.length - 10} more` : ''}.`, ''] : []),
    ...(invalid.length ? ['Invalid loads (left out of the statistics):', '', ...invalid, ''] : []),
  ];
}

/**
 * The waterfall by origin: per origin and protocol, the medians of when its first request
 * started and its last ended, and its connections, over the valid loads.
 * @param {ReplayResult} r
 */
function waterfall(r) {
  const servers = r.settings.servers;
  const origins = [...new Set(r.runs.flatMap((run) => Object.keys(run.page.origins)))];
  if (!origins.length) return [];
  // In the order the first protocol's loads reached them.
  const startOf = (/** @type {string} */ origin) => medianOf(r, servers[0], (p) => p.origins[origin]?.startMs ?? null) ?? Infinity;
  origins.sort((a, b) => startOf(a) - startOf(b));
  const cell = (/** @type {string} */ origin, /** @type {string} */ id) => {
    const start = medianOf(r, id, (p) => p.origins[origin]?.startMs ?? null);
    const end = medianOf(r, id, (p) => p.origins[origin]?.endMs ?? null);
    const conns = medianOf(r, id, (p) => p.origins[origin]?.connections ?? null);
    return start == null ? '–' : `${Math.round(start)}–${end == null ? '?' : Math.round(end)} ms (${conns})`;
  };
  return [
    'Waterfall by origin: the median start of its first request and end of its last, from the navigation, and its connections.',
    '',
    `| origin | requests | ${servers.map(serverLabel).join(' | ')} |`,
    `|---|---|${servers.map(() => '---|').join('')}`,
    ...origins.map((o) => `| ${o} | ${medianOf(r, servers[0], (p) => p.origins[o]?.requests ?? null) ?? '–'} | ${servers.map((id) => cell(o, id)).join(' | ')} |`),
    '',
  ];
}

const loadFields = ['page', 'server', 'protocol', 'repeat', 'valid', 'metric_ms', 'load_ms', 'fcp_ms', 'lcp_ms', 'done_ms', 'requests', 'failures', 'misses', 'unrecorded', 'connections', 'reused_connections', 'bytes', 'loss_seed', 'invalid'];

/** @param {ReplayResult[]} results */
export const loadsCsv = (results) =>
  csv(loadFields, results.flatMap((r) => r.runs.map((run) => [
    r.page.name, run.server, run.protocol, run.repeat, run.valid, run.valid ? run.totalMs : null, run.page.loadMs, run.page.fcpMs, run.page.lcpMs, run.page.doneMs,
    run.page.requests, run.failures, run.page.misses, run.page.unrecorded, run.connections, run.page.reused ?? null, run.page.bytes, run.lossSeed ?? null, invalidText(run),
  ])));

const originFields = ['page', 'server', 'repeat', 'valid', 'origin', 'requests', 'failed', 'connections', 'protocols', 'addresses', 'start_ms', 'end_ms'];

/** @param {ReplayResult[]} results */
export const originsCsv = (results) =>
  csv(originFields, results.flatMap((r) => r.runs.flatMap((run) => Object.entries(run.page.origins).map(([origin, o]) => [
    r.page.name, run.server, run.repeat, run.valid, origin, o.requests, o.failed, o.connections, o.protocols.join(' '), (o.addresses ?? []).join(' '), o.startMs, o.endMs,
  ]))));
