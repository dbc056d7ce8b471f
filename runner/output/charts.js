// The charts of a runner's output, drawn by the lab's own page (client/charts/, through
// window.h2lab's chartImage): one per experiment, and the connections of each captured point.
// runner/commands/experiments.js draws them after measuring, runner/commands/merge-results.js after merging.
import { UsageError } from '../../common/setup/errors.js';
import path from 'node:path';
import { chartPngs } from '../browsers/chromium.js';
import { isSafeName, safeNameRule } from '../../server/private-files.js';

/**
 * A chart's file in `out`: the name is the experiment's id, which a crafted results.json may make
 * anything (merge-results), so a name that is no file name, or a path that leaves `out`, is refused.
 * @param {string} out @param {string} id @param {string} [suffix]
 */
function chartFile(out, id, suffix = '') {
  const file = path.resolve(out, `${id}${suffix}.png`);
  if (!isSafeName(id) || path.dirname(file) !== path.resolve(out)) {
    throw new UsageError(`experiment id ${JSON.stringify(id)} is not a file name (${safeNameRule}): its chart would not be in ${out}`);
  }
  return file;
}

/**
 * Each finished experiment's chart, and the connections of each point that was captured, drawn by the page.
 * @param {import('../browsers/browsers.js').LabPage} page
 * @param {Array<import('../../common/report/summary-markdown.js').Experiment & { param?: string }>} finished  measured: every point has its result
 * @param {string} out
 */
export async function experimentCharts(page, finished, out) {
  const charts = [];
  for (const e of finished) {
    const results = e.points.map((p) => p.result);
    const kind = results.length > 1 ? 'sweep' : 'total';
    const data = kind === 'sweep' ? { param: e.param, paramLabel: e.paramLabel, title: e.title, points: e.points.map((p) => ({ value: p.value, label: p.label, result: p.result })) } : results[0];
    const file = chartFile(out, e.id); // before drawing: a refused id costs no chart
    charts.push({ ...(await chartPngs(page, kind, data)), title: e.title, file });
    // Each captured point's connections, each server's median run: what its time was spent on.
    for (const [k, p] of e.points.entries()) {
      if (!p.result.runs.some((r) => r.capture?.connections?.records.length)) continue;
      const suffix = e.points.length > 1 ? `-${k + 1}` : '';
      const title = `${e.title}${e.points.length > 1 ? ` · ${p.label}` : ''} · connections (each server's median run)`;
      const connectionsFile = chartFile(out, e.id, `${suffix}-connections`);
      charts.push({ ...(await chartPngs(page, 'connections', { result: p.result })), title, file: connectionsFile });
    }
  }
  return charts;
}
