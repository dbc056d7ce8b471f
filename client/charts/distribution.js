// Histogram of per-request durations (end of body − start, successful requests of valid runs,
// all repeats pooled), one bar colour per server, on bins shared by every server.
import { quantileSorted } from 'simple-statistics';
import { axisTitle, baseOptions, Chart, formatMs, mergeOptions, niceStep, runSummary, serversOf, styledLegendItems } from './setup.js';
import { serverColor, serverLabel, withAlpha } from './palette.js';

/**
 * Shared bins for all values: Freedman–Diaconis width (2 IQR n^−1/3) rounded to a nice step,
 * 8–60 bins. A far tail (max beyond 3× the 99th percentile) goes into one overflow bin so it
 * does not squeeze the rest.
 * @param {number[]} values
 * @returns {{ lo: number, width: number, count: number, hi: number, overflowFrom: number|null }}
 */
export function sharedBins(values, { minBins = 8, maxBins = 60 } = {}) {
  const xs = [...values].sort((a, b) => a - b);
  const n = xs.length;
  if (!n) return { lo: 0, width: 1, count: 1, hi: 1, overflowFrom: null };
  const min = xs[0];
  const max = xs[n - 1];
  const p99 = quantileSorted(xs, 0.99);
  const overflow = n >= 50 && max > 3 * p99 && p99 > min;
  const top = overflow ? p99 : max;
  const range = top - min;
  if (range <= 0) {
    const width = niceStep(Math.max(Math.abs(min) * 0.01, 0.01));
    const lo = Math.floor(min / width) * width - width;
    return { lo, width, count: 3, hi: lo + 3 * width, overflowFrom: null };
  }
  const iqr = quantileSorted(xs, 0.75) - quantileSorted(xs, 0.25);
  let width = iqr > 0 ? 2 * iqr * n ** (-1 / 3) : range / 30;
  width = Math.min(Math.max(width, range / maxBins), range / minBins);
  width = niceStep(width);
  const lo = Math.floor(min / width) * width;
  let count = Math.max(1, Math.ceil((top - lo) / width));
  if (lo + count * width <= top) count += 1; // the top value belongs to the last bin
  const hi = lo + count * width;
  return { lo, width, count, hi, overflowFrom: overflow ? hi : null };
}

/**
 * @typedef {import('chart.js').ChartDataset<'bar', { x: number, y: number }[]> & import('./setup.js').LegendStyled
 *   & { server: string }} ServerDataset  one server's bars
 */

/**
 * Durations of successful requests per server, from valid runs (all runs if none is valid).
 * @param {import('../../common/report/result.js').Result} result
 * @returns {Record<string, { values: number[], runs: number, allInvalid: boolean }>}
 */
export function durationsByServer(result) {
  /** @type {ReturnType<typeof durationsByServer>} */
  const out = {};
  for (const id of serversOf(result)) {
    const runs = (result.runs ?? []).filter((r) => r.server === id);
    const pool = runs.some((r) => r.valid) ? runs.filter((r) => r.valid) : runs;
    /** @type {number[]} */
    const values = [];
    for (const run of pool) {
      for (const r of run.requests ?? []) {
        if (!r.error && r.endMs != null && r.startMs != null) values.push(r.endMs - r.startMs);
      }
    }
    out[id] = { values, runs: pool.length, allInvalid: runs.length > 0 && !runs.some((r) => r.valid) };
  }
  return out;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {import('../../common/report/result.js').Result} result
 * @param {{ chartOptions?: object }} [o]
 * @returns {import('./setup.js').AnyChart}
 */
export function drawDistribution(canvas, result, { chartOptions = {} } = {}) {
  const servers = serversOf(result);
  const per = durationsByServer(result);
  const all = servers.flatMap((id) => per[id].values);
  const bins = sharedBins(all);
  const binCount = bins.count + (bins.overflowFrom != null ? 1 : 0);
  /** @param {number} k */
  const centre = (k) => bins.lo + (k + 0.5) * bins.width;

  /** @type {ServerDataset[]} */
  const datasets = servers.map((id) => {
    const counts = new Array(binCount).fill(0);
    for (const v of per[id].values) {
      let k = Math.floor((v - bins.lo) / bins.width);
      if (bins.overflowFrom != null && v >= bins.overflowFrom) k = binCount - 1;
      counts[Math.min(Math.max(k, 0), binCount - 1)] += 1;
    }
    return {
      label: `${serverLabel(id)} (${per[id].values.length.toLocaleString('en-US')} requests${per[id].allInvalid ? ', invalid runs' : ''})`,
      data: counts.map((y, k) => ({ x: centre(k), y })),
      backgroundColor: withAlpha(serverColor(id), 0.85),
      borderColor: serverColor(id),
      borderWidth: 0,
      categoryPercentage: 0.95,
      barPercentage: 1,
      legendStyle: 'rect',
      server: id,
    };
  });

  const overflowCount = bins.overflowFrom == null ? 0 : all.filter((v) => v >= /** @type {number} */ (bins.overflowFrom)).length;
  const runsText = [...new Set(servers.map((id) => per[id].runs))].join('/');
  const subtitle = [
    runSummary(result),
    `successful requests of ${runsText} valid runs per server, pooled`,
    `bin width ${formatMs(bins.width)}`,
    ...(overflowCount ? [`last bin: ${overflowCount.toLocaleString('en-US')} requests ≥ ${formatMs(bins.overflowFrom)}`] : []),
  ].join(' · ');

  const xMax = bins.lo + binCount * bins.width;
  const options = baseOptions(
    { canvas, title: 'Request durations', subtitle, aspectRatio: 2 },
    {
      scales: {
        x: {
          type: 'linear',
          min: bins.lo,
          max: xMax,
          offset: false,
          title: axisTitle(bins.overflowFrom == null ? 'Request duration (ms)' : `Request duration (ms; last bin ≥ ${formatMs(bins.overflowFrom)})`),
          ticks: { includeBounds: false, callback: (v) => Number(v).toLocaleString('en-US') },
        },
        y: { type: 'linear', beginAtZero: true, grace: '5%', title: axisTitle('Requests'), ticks: { precision: 0 } },
      },
      plugins: {
        legend: { labels: { usePointStyle: true, generateLabels: styledLegendItems } },
        tooltip: {
          mode: 'index',
          intersect: false,
          callbacks: {
            title: (items) => {
              const k = items[0]?.dataIndex;
              if (k == null) return '';
              if (bins.overflowFrom != null && k === binCount - 1) return `≥ ${formatMs(bins.overflowFrom)}`;
              return `${formatMs(bins.lo + k * bins.width)} – ${formatMs(bins.lo + (k + 1) * bins.width)}`;
            },
            label: (it) => `${serverLabel(/** @type {ServerDataset} */ (it.dataset).server)}: ${it.parsed.y.toLocaleString('en-US')} requests`,
          },
        },
      },
    },
  );
  return new Chart(canvas, { type: 'bar', data: { datasets }, options: mergeOptions(options, chartOptions) });
}
