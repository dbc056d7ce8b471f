// What a runner session leaves in --out: results.json, requests.csv, summary.csv, summary.md,
// environment.json and report.html (with the charts the runner drew). It only formats experiments the runner measured.
//
// experiment = { id, title, paramLabel, points: [{ label, result }] }
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { csv, requestFields, requestRows, summaryFields, summaryRows } from '../common/csv.js';
import { reportHtml } from '../common/report-html.js';
import { summaryMarkdown } from '../common/summary-markdown.js';

export function environmentLine(env) {
  const remote = env.browserUrl ? ` (driven at ${env.browserUrl}: ${env.userAgent})` : '';
  return `${env.browser}${remote} · ${env.os} · ${env.cpus} CPUs · node ${env.node} · servers: ${env.servers.map((s) => s.label).join(', ')} · ${env.date}`;
}

/**
 * Writes every output file but the charts' PNGs; returns their paths.
 * @param {Array<{ title: string, pngBase64: string }>} charts every experiment's chart, for report.html
 */
export async function writeOutputs(dir, experiments, environment, charts) {
  await mkdir(dir, { recursive: true });
  const points = experiments.flatMap((e) => e.points.map((p) => ({ experiment: e, point: p })));
  const results = { environment, experiments: experiments.map((e) => ({ ...e, points: e.points.map((p) => ({ label: p.label, value: p.value, result: p.result })) })) };
  const summary = summaryMarkdown(experiments, environmentLine(environment));
  const files = {
    'results.json': JSON.stringify(results),
    'requests.csv': csv(['experiment', 'condition', ...requestFields], points.flatMap(({ experiment, point }) => requestRows(point.result).map((row) => [experiment.id, point.label, ...row]))),
    'summary.csv': csv(['experiment', 'condition', ...summaryFields], points.flatMap(({ experiment, point }) => summaryRows(point.result).map((row) => [experiment.id, point.label, ...row]))),
    'summary.md': summary,
    'environment.json': JSON.stringify(environment, null, 2),
    'report.html': reportHtml({ title: 'h2lab results', markdown: summary, charts, data: results, dataFile: 'results.json' }),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return Object.keys(files).map((name) => path.join(dir, name));
}
