// Total time per server: one median bar per server (median-bars.js) over its valid runs, every
// repeat as a dot, invalid runs as crosses, and the preset's physical floor as a dashed line.
import { drawMedianBars } from './median-bars.js';
import { presetLabelOf, runSummary, serversOf } from './setup.js';
import { serverColor, serverLabel } from './palette.js';
import { invalidText } from '../../common/stats/validity.js';

/**
 * What a run's dot adds to its tooltip: failed requests, and why it is invalid.
 * @param {import('../../common/report/result.js').RunRecord} run
 */
function runDetail(run) {
  const extra = [];
  if (run.failures) extra.push(`${run.failures} failed`);
  if (!run.valid) extra.push(`invalid: ${invalidText(run)}`);
  return extra.join('; ');
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {import('../../common/report/result.js').Result} result
 * @param {{ chartOptions?: object }} [o]  chartOptions: deep-merged into the chart.js options
 * @returns {import('./setup.js').AnyChart}
 */
export function drawTotal(canvas, result, o) {
  const servers = serversOf(result);
  const summary = result.summary ?? {};
  const runs = result.runs ?? [];
  const categories = servers.map((id) => ({
    id,
    label: serverLabel(id),
    color: serverColor(id),
    summary: summary[id],
    points: runs.filter((r) => r.server === id).map((run) => ({ y: run.totalMs, repeat: run.repeat, valid: run.valid, detail: runDetail(run) })),
    floor: result.floorMsByServer?.[id],
  }));

  const failedRequests = runs.reduce((n, r) => n + (r.failures ?? 0), 0);
  const n = servers.map((id) => summary[id]?.n ?? 0);
  const subtitle = [
    runSummary(result),
    `${n.every((x) => x === n[0]) ? n[0] : n.join('/')} valid of ${result.settings?.repeats ?? '?'} repeats per server`,
    ...(failedRequests ? [`${failedRequests.toLocaleString('en-US')} failed requests`] : []),
    ...(result.stopped ? ['stopped early'] : []),
  ].join(' · ');
  const presetLabel = presetLabelOf(result);

  return drawMedianBars(
    canvas,
    {
      title: 'Total time per server',
      subtitle,
      xTitle: 'Server',
      yTitle: 'Total time (ms)',
      categories,
      floorLabel: `physical floor (preset ${presetLabel})`,
      floorName: 'physical floor',
    },
    o,
  );
}
