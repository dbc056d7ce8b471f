// Request waterfall of one run: a horizontal bar per request from its start to the end of its
// body, request 0 at the top, coloured by the connection that served it. HTTP/1.1 shows its
// six-connection staircase, HTTP/2 one connection. Failed requests are grey and hatched.
//
// Built for 10,000 requests: data are handed over pre-parsed (parsing: false, chart.js's internal
// floating-bar format), no animation, a linear request axis (no 10,000 category labels to
// measure) and bars at least one device pixel thick.
import { axisTitle, baseOptions, Chart, formatMs, mergeOptions, niceStep, serversOf, styledLegendItems } from './setup.js';
import { connectionColor, connectionLabel, failedColor, failedHatchColor, serverLabel } from './palette.js';
import { settingsLabel } from '../../common/setup/text.js';
import { invalidText } from '../../common/stats/validity.js';

/** @typedef {import('../../common/report/result.js').RequestRecord} RequestRecord */

/** @type {CanvasPattern|null} */
let hatch = null;
/** A grey fill with diagonal dark lines, made on first use (never at import). */
function hatchPattern() {
  if (hatch) return hatch;
  const size = 8;
  const tile = typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(size, size) : Object.assign(document.createElement('canvas'), { width: size, height: size });
  // A new canvas has a 2D context.
  const ctx = /** @type {OffscreenCanvasRenderingContext2D|CanvasRenderingContext2D} */ (tile.getContext('2d'));
  ctx.fillStyle = failedColor;
  ctx.fillRect(0, 0, size, size);
  ctx.strokeStyle = failedHatchColor;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(0, size);
  ctx.lineTo(size, 0);
  ctx.moveTo(-size / 2, size / 2);
  ctx.lineTo(size / 2, -size / 2);
  ctx.moveTo(size / 2, size * 1.5);
  ctx.lineTo(size * 1.5, size / 2);
  ctx.stroke();
  hatch = /** @type {CanvasPattern} the tile has a size */ (ctx.createPattern(tile, 'repeat'));
  return hatch;
}

/**
 * The run whose total time is the median of its server's valid runs (the "typical" run).
 * @param {import('../../common/report/result.js').Result} result
 * @param {string} server
 */
export function medianRun(result, server) {
  const runs = (result.runs ?? []).filter((r) => r.server === server);
  const pool = runs.some((r) => r.valid) ? runs.filter((r) => r.valid) : runs;
  if (!pool.length) return null;
  const sorted = [...pool].sort((a, b) => a.totalMs - b.totalMs);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * @typedef {{ y: number, x: number, _custom: { barStart: number, barEnd: number, start: number, end: number, min: number, max: number },
 *   record: RequestRecord }} Bar  chart.js's parsed form of a floating bar, and its request
 */

/** @typedef {import('chart.js').ChartDataset<'bar', Bar[]> & import('./setup.js').LegendStyled} BarDataset */

/**
 * chart.js's parsed form of a floating bar [start, end] on a horizontal bar chart.
 * @param {number} i
 * @param {number} start
 * @param {number} end
 * @param {RequestRecord} record
 * @returns {Bar}
 */
function bar(i, start, end, record) {
  const min = Math.min(start, end);
  const max = Math.max(start, end);
  return { y: i, x: max, _custom: { barStart: min, barEnd: max, start, end, min, max }, record };
}

/**
 * A run's requests as bars, grouped as they are coloured: by the connection that served them (in
 * id order), on no known connection, or failed.
 * @param {import('../../common/report/result.js').RunRecord} run
 * @returns {{ connIds: number[], byConn: Map<number, Bar[]>, unknown: Bar[], failed: Bar[] }}
 */
function requestBars(run) {
  const requests = run.requests ?? [];
  const connIds = [...new Set(requests.filter((r) => !r.error && r.connectionId != null).map((r) => /** @type {number} */ (r.connectionId)))].sort((a, b) => a - b);
  // Every id in connIds has its list.
  /** @type {Map<number, Bar[]>} */
  const byConn = new Map(connIds.map((id) => [id, []]));
  /** @type {Bar[]} */
  const unknown = [];
  /** @type {Bar[]} */
  const failed = [];
  // Records are in request order already; sort defensively (parsing: false needs sorted y).
  const ordered = requests.every((r, k) => k === 0 || requests[k - 1].i <= r.i) ? requests : [...requests].sort((a, b) => a.i - b.i);
  for (const r of ordered) {
    const start = r.startMs;
    // A failure may lack an end; its bar then runs to the end of the run.
    const end = r.endMs ?? (r.ttfbMs != null ? r.startMs + r.ttfbMs : run.totalMs);
    const point = bar(r.i, start, end, r);
    if (r.error) failed.push(point);
    else if (r.connectionId == null) unknown.push(point);
    else /** @type {Bar[]} */ (byConn.get(r.connectionId)).push(point);
  }
  return { connIds, byConn, unknown, failed };
}

/**
 * The bars' datasets: a connection's in its colour, then those on no known connection, then the
 * failed ones, hatched and on top.
 * @param {ReturnType<typeof requestBars>} bars
 * @param {number} n  requests in the run
 * @returns {BarDataset[]}
 */
function requestDatasets({ connIds, byConn, unknown, failed }, n) {
  // Every id in connIds has its rank (and its list in byConn).
  const rank = new Map(connIds.map((id, k) => [id, k + 1]));
  // At least one CSS pixel per bar, or 80 % of a request's row when rows are tall enough.
  // any: chart.js resolves barThickness like any scriptable option, but its types allow only a number.
  /** @type {(minPx: number) => any} */
  const thickness = (minPx) => (/** @type {import('chart.js').ScriptableContext<'bar'>} */ ctx) => {
    const area = ctx.chart.chartArea;
    if (!area || !n) return minPx;
    const row = (area.bottom - area.top) / n;
    return Math.max(minPx, row >= 1.25 ? row * 0.8 : 1);
  };
  /** @satisfies {Partial<BarDataset>} */
  const common = {
    type: 'bar',
    parsing: false,
    normalized: true,
    grouped: false,
    barThickness: thickness(1),
    minBarLength: 1,
    borderWidth: 0,
    borderSkipped: false,
  };
  /** @type {BarDataset[]} */
  const datasets = connIds.map((id) => ({
    ...common,
    label: `${connectionLabel(id)} (${/** @type {Bar[]} */ (byConn.get(id)).length.toLocaleString('en-US')})`,
    data: /** @type {Bar[]} */ (byConn.get(id)),
    backgroundColor: connectionColor(/** @type {number} */ (rank.get(id))),
    legendStyle: 'rect',
  }));
  if (unknown.length) {
    datasets.push({ ...common, label: `connection unknown (${unknown.length})`, data: unknown, backgroundColor: failedColor, legendStyle: 'rect' });
  }
  if (failed.length) {
    datasets.push({
      ...common,
      label: `failed (${failed.length.toLocaleString('en-US')})`,
      data: failed,
      backgroundColor: hatchPattern(),
      borderColor: failedHatchColor,
      borderWidth: n > 500 ? 0 : 1,
      barThickness: thickness(3), // stays visible among thousands of 1-pixel bars
      minBarLength: 4, // a failure that ends at once is still seen
      order: -1, // drawn last, on top
      legendStyle: 'rect',
    });
  }
  return datasets;
}

/**
 * The subtitle: the run's settings, connections, protocol, total time, failures and validity.
 * @param {import('../../common/report/result.js').Result} result
 * @param {import('../../common/report/result.js').RunRecord} run
 * @param {ReturnType<typeof requestBars>} bars
 */
function runSubtitle(result, run, { connIds, failed }) {
  const s = result.settings ?? {};
  const n = (run.requests ?? []).length;
  const conns = connIds.length;
  return [
    settingsLabel({ ...s, requests: n }),
    `${conns} connection${conns === 1 ? '' : 's'}`,
    `protocol ${run.protocol || 'unknown'}`,
    `total ${formatMs(run.totalMs)}`,
    failed.length ? `${failed.length.toLocaleString('en-US')} failed` : 'no failures',
    ...(run.valid ? [] : [`INVALID: ${invalidText(run)}`]),
    // More requests than pixel rows: bars overlap, the legend can hide connections.
    ...(n > 800 && conns > 1 ? ['bars overlap: click a connection in the legend to hide it'] : []),
  ].join(' · ');
}

/**
 * The time axis across and the request axis down, request 0 at the top.
 * @param {number} n  requests in the run
 * @returns {{ x: import('chart.js').ScaleOptions<'linear'>, y: import('chart.js').ScaleOptions<'linear'> }}
 */
function requestAxes(n) {
  const tickStep = niceStep(Math.max(n / 10, 1), [1, 2, 5]); // request indices: integer steps
  return {
    x: {
      type: 'linear',
      min: 0,
      beginAtZero: true,
      title: axisTitle('Time since first dispatch (ms)'),
      ticks: { callback: (v) => Number(v).toLocaleString('en-US') },
    },
    y: {
      type: 'linear',
      reverse: true,
      min: -0.5,
      max: Math.max(0.5, n - 0.5),
      offset: false,
      grid: { display: false },
      title: axisTitle('Request (index, dispatch order)'),
      // Request numbers 0, step, 2·step, … (not the −0.5 the axis starts at).
      afterBuildTicks: (scale) => {
        const ticks = [];
        for (let v = 0; v < n; v += tickStep) ticks.push({ value: v });
        scale.ticks = ticks;
      },
      ticks: { autoSkip: true, callback: (v) => Number(v).toLocaleString('en-US') },
    },
  };
}

/** A request's tooltip lines: its times, connection and protocol, first byte, failure. @param {RequestRecord} r */
function requestLines(r) {
  const lines = [
    `${formatMs(r.startMs)} → ${r.endMs == null ? 'no end' : formatMs(r.endMs)} (${r.endMs == null ? '–' : formatMs(r.endMs - r.startMs)})`,
    `${connectionLabel(r.connectionId)} · ${r.protocol || 'protocol unknown'}`,
  ];
  if (r.ttfbMs != null) lines.push(`first byte after ${formatMs(r.ttfbMs)}`);
  if (r.error) lines.push(`failed: ${r.error}`);
  return lines;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {import('../../common/report/result.js').Result} result
 * @param {{ server?: string, repeat?: number, chartOptions?: object }} [o]
 *   server: default the first of settings.servers; repeat (1-based): default the median run
 * @returns {import('./setup.js').AnyChart}
 */
export function drawWaterfall(canvas, result, { server, repeat, chartOptions = {} } = {}) {
  server ??= serversOf(result)[0];
  const runs = (result.runs ?? []).filter((r) => r.server === server);
  const run = repeat == null ? medianRun(result, server) : runs.find((r) => r.repeat === Number(repeat));
  if (!run) throw new RangeError(`no run of ${server}${repeat == null ? '' : ` with repeat ${repeat}`} in this result`);

  const n = (run.requests ?? []).length;
  const bars = requestBars(run);
  const datasets = requestDatasets(bars, n);
  const repeats = new Set((result.runs ?? []).filter((r) => r.server === server).map((r) => r.repeat)).size;
  const title = `Waterfall · ${serverLabel(server)} · repeat ${run.repeat} of ${repeats}`;

  const options = baseOptions(
    { canvas, title, subtitle: runSubtitle(result, run, bars), aspectRatio: 1.4 },
    {
      indexAxis: 'y',
      scales: requestAxes(n),
      plugins: {
        legend: { labels: { usePointStyle: true, generateLabels: styledLegendItems } },
        tooltip: {
          mode: 'nearest',
          axis: 'y',
          intersect: true,
          callbacks: {
            title: (items) => (items[0] ? `request ${/** @type {Bar} */ (items[0].raw).record.i}` : ''),
            label: (it) => requestLines(/** @type {Bar} */ (it.raw).record),
          },
        },
      },
    },
  );
  return new Chart(canvas, { type: 'bar', data: { datasets }, options: mergeOptions(options, chartOptions) });
}
