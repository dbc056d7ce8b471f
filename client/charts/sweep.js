// One classic-experiment table as a chart: the swept parameter across, the median total time per
// server up, with whiskers at its interval (and level), and each server's physical floor dashed when the points have
// one. Servers are nudged apart horizontally so overlapping whiskers stay readable.
import { axisTitle, baseOptions, Chart, formatMiB, formatMs, mergeOptions, pointsInAxisOrder, presetLabelOf, repeatsOf, styledLegendItems } from './setup.js';
import { inServerOrder } from '../../common/setup/servers.js';
import { levelText } from '../../common/stats/stats.js';
import { serverColor, serverLabel, withAlpha } from './palette.js';

const nudge = 0.07; // category units between neighbouring servers

/** @typedef {Pick<import('../lab/engine.js').Sweep, 'param'|'paramLabel'|'points'> & { title?: string }} SweepSpec */

/**
 * @typedef {{ x: number, y: number|null, yMin?: number|null, yMax?: number|null, n?: number, level?: string }} Mark  a median with
 *   its interval, or a floor; y null where the point has none
 * @typedef {import('chart.js').ChartDatasetCustomTypesPerDataset<'lineWithErrorBars'|'line', Mark[]> & import('./setup.js').LegendStyled
 *   & { server: string, floor?: boolean }} SweepDataset  a server's medians or its floors
 */

/**
 * "75 % ", "75 % / 94 % ": the levels of the medians' intervals in the points ('' in older results).
 * @param {Array<{ result?: import('../../common/report/result.js').Result|null }>} points
 */
const levelsOf = (points) => {
  const levels = [...new Set(points.flatMap((p) => Object.values(p.result?.summary ?? {}).map((s) => levelText(s.ciLevel))).filter(Boolean))];
  return levels.length ? `${levels.join(' / ')} ` : '';
};

/**
 * The settings every point shares, without the swept one: "× 0.1 MiB · delay 10 ms · …".
 * @param {SweepSpec} sweep
 */
function fixedSettings(sweep) {
  const r = sweep.points.find((p) => p.result)?.result;
  if (!r) return '';
  const s = r.settings ?? {};
  /** @type {string[]} */
  const parts = [];
  if (sweep.param !== 'requests') parts.push(`${Number(s.requests).toLocaleString('en-US')} request${Number(s.requests) === 1 ? '' : 's'}`);
  if (sweep.param !== 'sizeMiB') parts.push(formatMiB(s.sizeMiB));
  if (sweep.param !== 'delayMs') parts.push(`delay ${s.delayMs} ms`);
  if (sweep.param !== 'preset') parts.push(presetLabelOf(r, { loss: sweep.param !== 'loss' }));
  parts.push(repeatsOf(sweep.points.flatMap((p) => (p.result ? [p.result] : []))), s.connections);
  return parts.filter(Boolean).join(' · ');
}

/** @typedef {SweepSpec['points'][number]} Point  a point of the sweep and its result */

/** Server k's offset from its point's centre, in category units: the servers side by side, centred. @param {number} k @param {number} count */
const nudged = (k, count) => (k - (count - 1) / 2) * nudge;

/**
 * Each server's medians, whiskers at their interval, a line across the points.
 * @param {Point[]} points  in axis order
 * @param {string[]} servers
 * @returns {SweepDataset[]}
 */
function medianDatasets(points, servers) {
  return servers.map((id, k) => ({
    type: 'lineWithErrorBars',
    label: serverLabel(id),
    data: points.map((p, i) => {
      const s = p.result?.summary?.[id];
      if (!s?.n || s.median == null) return { x: i + nudged(k, servers.length), y: null, yMin: null, yMax: null };
      const [lo, hi] = s.ci95 ?? [s.median, s.median];
      return { x: i + nudged(k, servers.length), y: s.median, yMin: lo, yMax: hi, n: s.n, level: levelText(s.ciLevel) };
    }),
    server: id,
    borderColor: serverColor(id),
    backgroundColor: serverColor(id),
    borderWidth: 2,
    pointRadius: 4,
    pointHoverRadius: 6,
    pointStyle: ['circle', 'rect', 'triangle'][k % 3],
    errorBarColor: serverColor(id),
    errorBarWhiskerColor: serverColor(id),
    errorBarLineWidth: 1.5,
    errorBarWhiskerLineWidth: 1.5,
    errorBarWhiskerSize: 10,
    spanGaps: false,
    legendStyle: /** @type {import('chart.js').PointStyle} */ (['circle', 'rect', 'triangle'][k % 3]),
    order: 1,
  }));
}

/**
 * Each server's physical floors, dashed and thinner, where a point's result has one; none for a
 * server without any.
 * @param {Point[]} points  in axis order
 * @param {string[]} servers
 * @returns {SweepDataset[]}
 */
function floorDatasets(points, servers) {
  return servers.flatMap((id, k) => {
    const data = points.map((p, i) => {
      const f = p.result?.floorMsByServer?.[id];
      return { x: i + nudged(k, servers.length), y: Number.isFinite(f) ? /** @type {number} */ (f) : null };
    });
    if (!data.some((d) => d.y != null)) return [];
    return [
      {
        type: 'line',
        label: `${serverLabel(id)} · physical floor`,
        data,
        server: id,
        floor: true,
        borderColor: withAlpha(serverColor(id), 0.9),
        backgroundColor: serverColor(id),
        borderWidth: 1.5,
        borderDash: [6, 4],
        pointRadius: 0,
        pointHitRadius: 6,
        spanGaps: false,
        legendStyle: 'line',
        order: 2,
      },
    ];
  });
}

/**
 * Whose floors are dashed, "preset Fast 4G" or "each point's preset"; null when no point has floors.
 * @param {Point[]} points
 * @param {SweepSpec['param']} param
 */
function floorPresetText(points, param) {
  if (!points.some((p) => p.result?.floorMsByServer)) return null;
  const presetsSeen = [...new Set(points.filter((p) => p.result?.floorMsByServer).map((p) => presetLabelOf(p.result, { loss: param !== 'loss' })))];
  return param === 'preset' || presetsSeen.length !== 1 ? "each point's preset" : `preset ${presetsSeen[0]}`;
}

/**
 * The subtitle: the settings the points share, what the marks are, and what was left out.
 * @param {SweepSpec} sweep
 * @param {Point[]} points
 */
function sweepSubtitle(sweep, points) {
  const floorWhich = floorPresetText(points, sweep.param);
  const failed = points.reduce((n, p) => n + (p.result?.runs ?? []).reduce((m, r) => m + (r.failures ?? 0), 0), 0);
  const invalid = points.reduce((n, p) => n + (p.result?.runs ?? []).filter((r) => !r.valid).length, 0);
  return [
    fixedSettings(sweep),
    `median of valid repeats, whiskers: ${levelsOf(points)}CI of the median`,
    ...(floorWhich ? [`dashed: physical floor of ${floorWhich}`] : []),
    ...(failed ? [`${failed.toLocaleString('en-US')} failed requests`] : []),
    ...(invalid ? [`${invalid} invalid runs left out`] : []),
  ].join(' · ');
}

/**
 * The swept parameter's axis: a point per label, evenly spaced whatever their values.
 * @param {string[]} labels
 * @param {SweepSpec} sweep
 * @returns {import('chart.js').ScaleOptions<'linear'>}
 */
function pointAxis(labels, sweep) {
  return {
    type: 'linear',
    min: -0.5,
    max: Math.max(0.5, labels.length - 0.5),
    offset: false,
    grid: { display: false },
    title: axisTitle(sweep.paramLabel ?? sweep.param),
    afterBuildTicks: (scale) => {
      scale.ticks = labels.map((_, i) => ({ value: i }));
    },
    ticks: { autoSkip: false, maxRotation: 45, callback: (v) => labels[/** @type {number} a linear axis */ (v)] ?? '' },
  };
}

/**
 * The time axis: logarithmic when asked, or (auto) when the values drawn span more than 100×.
 * @param {SweepDataset[]} datasets
 * @param {'auto'|'linear'|'logarithmic'} yScale
 * @returns {import('chart.js').ScaleOptions<'linear'|'logarithmic'>}
 */
function timeAxis(datasets, yScale) {
  // Every value drawn: medians, whiskers, floors.
  const positive = datasets.flatMap((d) => d.data.flatMap((m) => [m.y, m.yMin, m.yMax].flatMap((v) => (v != null && v > 0 ? [v] : []))));
  const spanRatio = positive.length ? Math.max(...positive) / Math.min(...positive) : 1;
  const log = yScale === 'logarithmic' || (yScale === 'auto' && spanRatio > 100);
  // Log axis bounds on 1–2–5 steps around every value drawn.
  /** @param {number} v */
  const below = (v) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return [5, 2, 1].map((m) => m * p).find((x) => x <= v * 1.0001);
  };
  /** @param {number} v */
  const above = (v) => {
    const p = 10 ** Math.floor(Math.log10(v));
    return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= v * 0.9999);
  };
  const logBounds = log && positive.length ? { min: below(Math.min(...positive)), max: above(Math.max(...positive)) } : {};
  return {
    type: log ? 'logarithmic' : 'linear',
    ...logBounds,
    // Log axis: label 1, 2, 5 × 10^k only, all of them (chart.js would skip some).
    afterBuildTicks: log
      ? (scale) => {
          const ticks = [];
          for (let e = Math.floor(Math.log10(scale.min)); 10 ** e <= scale.max; e++) {
            for (const m of [1, 2, 5]) {
              const v = m * 10 ** e;
              if (v >= scale.min && v <= scale.max) ticks.push({ value: v, major: m === 1 });
            }
          }
          scale.ticks = ticks;
        }
      : undefined,
    beginAtZero: !log,
    grace: log ? 0 : '5%',
    title: axisTitle(`Median total time (ms${log ? ', log scale' : ''})`),
    ticks: {
      autoSkip: !log,
      callback: (v) => Number(Number(v).toPrecision(6)).toLocaleString('en-US'),
    },
  };
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {SweepSpec} sweep  title: instead of "Total time vs …"
 * @param {{ yScale?: 'auto'|'linear'|'logarithmic', chartOptions?: object }} [o]
 *   yScale auto: logarithmic when the medians span more than 100×
 * @returns {import('./setup.js').AnyChart}
 */
export function drawSweep(canvas, sweep, { yScale = 'auto', chartOptions = {} } = {}) {
  const points = pointsInAxisOrder({ param: sweep.param, points: sweep.points ?? [] });
  const labels = points.map((p) => String(p.label ?? p.value));
  const servers = inServerOrder(new Set(points.flatMap((p) => Object.keys(p.result?.summary ?? {}))));
  const datasets = [...medianDatasets(points, servers), ...floorDatasets(points, servers)];

  const options = baseOptions(
    { canvas, title: sweep.title ?? `Total time vs ${sweep.paramLabel ?? sweep.param}`, subtitle: sweepSubtitle(sweep, points), aspectRatio: 1.8 },
    {
      scales: { x: pointAxis(labels, sweep), y: timeAxis(datasets, yScale) },
      plugins: {
        legend: { labels: { usePointStyle: true, generateLabels: styledLegendItems } },
        tooltip: {
          mode: 'nearest',
          intersect: true,
          callbacks: {
            title: (items) => (items[0] ? `${sweep.paramLabel ?? sweep.param}: ${labels[Math.round(/** @type {Mark} */ (items[0].raw).x)]}` : ''),
            label: (it) => {
              const raw = /** @type {Mark} */ (it.raw);
              // chart.js types a tooltip's dataset by the chart's type, not by the dataset's own.
              const dataset = /** @type {SweepDataset} */ (/** @type {unknown} */ (it.dataset));
              if (dataset.floor) return `${serverLabel(dataset.server)} physical floor: ${formatMs(raw.y)}`;
              return `${serverLabel(dataset.server)}: median ${formatMs(raw.y)}, ${raw.level ? `${raw.level} ` : ''}CI ${formatMs(raw.yMin)} – ${formatMs(raw.yMax)} (n = ${raw.n})`;
            },
          },
        },
      },
    },
  );
  return new Chart(canvas, { type: 'lineWithErrorBars', data: { labels, datasets }, options: mergeOptions(options, chartOptions) });
}
