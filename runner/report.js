// What a runner session leaves in --out: results.json, requests.csv, summary.csv, summary.md
// and environment.json. It only formats experiments the runner measured.
//
// experiment = { id, title, paramLabel, points: [{ label, result }] }
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { csv, requestFields, requestRows, summaryFields, summaryRows } from '../common/csv.js';
import { serverIds, serverLabel } from '../common/servers.js';
import { invalidText } from '../common/validity.js';

const ms = (x) => (x == null ? '–' : x < 100 ? x.toFixed(1) : x.toFixed(0));

/** One cell: median [95 % CI] ms, and measured/floor when the point has a floor. */
function cell(result, server) {
  const s = result.summary[server];
  if (!s?.n) return '–';
  const ci = s.ci95 ? ` [${ms(s.ci95[0])}–${ms(s.ci95[1])}]` : '';
  const floor = result.floorMsByServer?.[server];
  const vsFloor = Number.isFinite(floor) && floor > 0 ? ` · ${(s.median / floor).toFixed(2)}× floor` : '';
  const paid = s.serverCpuMs == null ? '' : ` · ${s.connectionsPerRun} conn, ${ms(s.serverCpuMs)} ms CPU`;
  return `${ms(s.median)}${ci}${vsFloor}${paid}`;
}

const versusText = (c) => `${serverLabel(c.server)} vs ${serverLabel(c.baseline)}`;
const shortVerdict = (c) =>
  `${versusText(c)}: ${c.verdict}${c.ci95 ? ` (${c.ratio.toFixed(2)}× [${c.ci95.map((x) => x.toFixed(2)).join('–')}])` : ' (too few runs)'}`;

/** The Markdown summary: one table per experiment in the classic layout, then where HTTP/2 wins. */
export function summaryMarkdown(experiments, environment) {
  const lines = ['# h2lab results', '', environmentLine(environment), ''];
  lines.push('Cells: median total time in ms [95 % confidence interval of the median], under a throttled preset measured / physical floor, and what the server paid per run (medians: connections opened, CPU of the lab process). Verdicts compare each server with the HTTP/1.1 server of its family (and an HTTP/3 server also with the HTTP/2 server of its family) and are decided by the 95 % interval of the ratio.', '');
  const tally = {};
  for (const e of experiments) {
    const servers = serverIds.filter((id) => e.points.some((p) => p.result.summary[id]?.n));
    lines.push(`## ${e.title}`, '');
    lines.push(`| ${e.paramLabel} | ${servers.map((id) => `${serverLabel(id)} (ms)`).join(' | ')} | verdicts |`);
    lines.push(`|${' --- |'.repeat(servers.length + 2)}`);
    for (const p of e.points) {
      const verdicts = p.result.comparisons.map(shortVerdict).join('; ') || '–';
      lines.push(`| ${p.label} | ${servers.map((id) => cell(p.result, id)).join(' | ')} | ${verdicts} |`);
      for (const c of p.result.comparisons) {
        const key = `${c.server} ${c.baseline}`;
        tally[key] ??= { comparison: c, faster: new Map(), slower: new Map(), 'no clear difference': new Map() };
        const byExperiment = tally[key][c.ci95 ? c.verdict : 'no clear difference'];
        byExperiment.set(e, [...(byExperiment.get(e) ?? []), p.label]);
      }
      const problems = p.result.runs.filter((r) => !r.valid).map((r) => `${serverLabel(r.server)} repeat ${r.repeat}: ${invalidText(r)}`);
      if (problems.length) lines.push(`|  | invalid runs, left out: ${problems.join('; ')} |`);
    }
    lines.push('');
  }
  lines.push(...networkComparison(experiments));
  lines.push('## Where the newer protocol wins', '');
  const count = (m) => [...m.values()].reduce((n, labels) => n + labels.length, 0);
  const where = (m) => [...m].map(([e, labels]) => `${e.title} (${e.paramLabel}: ${labels.join(', ')})`).join('; ');
  for (const t of Object.values(tally)) {
    const [faster, slower, tie] = [t.faster, t.slower, t['no clear difference']].map(count);
    const { server, baseline } = t.comparison;
    lines.push(`- **${serverLabel(server)}** is faster than ${serverLabel(baseline)} in ${faster}, slower in ${slower} and not clearly different in ${tie} of ${faster + slower + tie} conditions.`);
    if (faster) lines.push(`  - faster: ${where(t.faster)}`);
    if (slower) lines.push(`  - slower: ${where(t.slower)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Lines of the side-by-side table when experiments ran under both networks: per condition and
 * server, the median under DevTools and through the lab link, and their ratio (link / DevTools).
 */
function networkComparison(experiments) {
  const pairs = experiments
    .filter((e) => e.network === 'devtools')
    .map((d) => [d, experiments.find((l) => l.network === 'link' && l.baseId === d.baseId)])
    .filter(([, l]) => l);
  if (!pairs.length) return [];
  const lines = ['## DevTools throttling vs the lab link', ''];
  lines.push('The same points under each: median total time in ms through DevTools (request-level) and through the lab link (connection-level, below TLS), and the ratio link / DevTools (> 1: the link is slower).', '');
  for (const [d, l] of pairs) {
    const servers = serverIds.filter((id) => d.points.some((p) => p.result.summary[id]?.n));
    lines.push(`### ${d.title.replace(/ · DevTools$/, '')}`, '');
    lines.push(`| ${d.paramLabel} | ${servers.map((id) => `${serverLabel(id)}: DevTools | link | link/DevTools`).join(' | ')} |`);
    lines.push(`|${' --- |'.repeat(servers.length * 3 + 1)}`);
    for (const p of d.points) {
      const q = l.points.find((x) => x.value === p.value);
      const cells = servers.flatMap((id) => {
        const [a, b] = [p.result.summary[id]?.median, q?.result.summary[id]?.median];
        return [ms(a), ms(b), a > 0 && b > 0 ? `${(b / a).toFixed(2)}×` : '–'];
      });
      lines.push(`| ${p.label} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines;
}

export function environmentLine(env) {
  const remote = env.browserUrl ? ` (driven at ${env.browserUrl}: ${env.userAgent})` : '';
  return `${env.browser}${remote} · ${env.os} · ${env.cpus} CPUs · node ${env.node} · servers: ${env.servers.map((s) => s.label).join(', ')} · ${env.date}`;
}

/** Writes every output file; returns their paths. */
export async function writeOutputs(dir, experiments, environment) {
  await mkdir(dir, { recursive: true });
  const points = experiments.flatMap((e) => e.points.map((p) => ({ experiment: e, point: p })));
  const files = {
    'results.json': JSON.stringify({ environment, experiments: experiments.map((e) => ({ ...e, points: e.points.map((p) => ({ label: p.label, value: p.value, result: p.result })) })) }),
    'requests.csv': csv(['experiment', 'condition', ...requestFields], points.flatMap(({ experiment, point }) => requestRows(point.result).map((row) => [experiment.id, point.label, ...row]))),
    'summary.csv': csv(['experiment', 'condition', ...summaryFields], points.flatMap(({ experiment, point }) => summaryRows(point.result).map((row) => [experiment.id, point.label, ...row]))),
    'summary.md': summaryMarkdown(experiments, environment),
    'environment.json': JSON.stringify(environment, null, 2),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return Object.keys(files).map((name) => path.join(dir, name));
}
