// chart.js set-up shared by every chart: registration (once, at import; the only side effect of
// importing a chart module), a plugin that paints the canvas white before each draw (so a PNG
// or a copied image is never transparent), and the options every h2lab chart starts from.
import { Chart, registerables } from 'chart.js';
import { merge } from 'chart.js/helpers';
import {
  BarWithErrorBar,
  BarWithErrorBarsController,
  LineWithErrorBarsController,
  PointWithErrorBar,
} from 'chartjs-chart-error-bars';
import { inkColor, serverLabel } from './palette.js';
import { measuredServers } from '../../common/setup/servers.js';
import { networkOf } from '../../common/setup/networks.js';
import { burstText } from '../../common/report/network-check.js';
import { networkRecordOf } from '../../common/report/network-record.js';
import { formatMiB, settingsLabel } from '../../common/setup/text.js';

/** @typedef {import('chart.js').ChartType} ChartType */
/** @typedef {import('chart.js').Chart<ChartType, unknown[], unknown>} AnyChart  a chart of any type and data: callers draw, export and destroy it */
/** @typedef {import('../../common/report/result.js').Result} Result */
/** @typedef {import('../../common/report/result.js').PageLoadResult} PageLoadResult */

/**
 * Fills the whole canvas (not only the chart area) before anything else is drawn.
 * @type {import('chart.js').Plugin<ChartType, { color: string }>}
 */
export const whiteBackground = {
  id: 'h2labBackground',
  defaults: { color: '#ffffff' },
  beforeDraw(chart, _args, options) {
    const { ctx, width, height } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = options.color;
    ctx.fillRect(0, 0, width, height);
    ctx.restore();
  },
};

if (!Chart.registry.plugins.get(whiteBackground.id)) {
  Chart.register(
    ...registerables,
    BarWithErrorBarsController,
    BarWithErrorBar,
    LineWithErrorBarsController,
    PointWithErrorBar,
    whiteBackground,
  );
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  Chart.defaults.font.size = 12;
  Chart.defaults.color = inkColor;
}

export { Chart };

/**
 * The nearest of m × 10^k (m from `multipliers`) at or above x: bin widths and tick steps people
 * can read. Pass [1, 2, 5] where steps must stay integers (request indices).
 * @param {number} x
 * @param {number[]} [multipliers]
 */
export function niceStep(x, multipliers = [1, 2, 2.5, 5]) {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [...multipliers, 10]) if (m * p >= x * 0.999) return m * p;
  return 10 * p;
}

/**
 * Axis title in the common style.
 * @param {string} text
 * @returns {{ display: boolean, text: string, font: { size: number, weight: 'bold' }, padding: { top: number, bottom: number } }}
 */
export const axisTitle = (text) => ({ display: true, text, font: { size: 13, weight: 'bold' }, padding: { top: 6, bottom: 4 } });

/**
 * Splits a "a · b · c" line into lines of at most maxChars characters at the " · " separators,
 * so a title or subtitle wraps instead of running off the canvas.
 * @param {string} text
 * @param {number} maxChars
 * @returns {string|string[]} one line as a string, several as chart.js's multi-line form
 */
export function wrapDots(text, maxChars) {
  const parts = String(text).split(' · ');
  /** @type {string[]} */
  const lines = [];
  let line = '';
  for (const part of parts) {
    const next = line ? `${line} · ${part}` : part;
    if (line && next.length > maxChars) {
      lines.push(line);
      line = part;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines.length === 1 ? lines[0] : lines;
}

/**
 * Greedy wrap to maxWidth (measured with ctx's font): breaks after " · ", or at spaces inside a part that alone is too wide.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} text
 * @param {number} maxWidth
 */
export function wrapToWidth(ctx, text, maxWidth) {
  /** @type {string[]} */
  const lines = [];
  for (const paragraph of String(text).split('\n')) {
    // Break after " · " first; a part wider than the line is broken at its spaces.
    const words = paragraph
      .split(/(?<= · )/)
      .flatMap((part) => (ctx.measureText(part.trimEnd()).width > maxWidth ? part.split(/(?<= )/) : [part]));
    let line = '';
    for (const word of words) {
      const next = line + word;
      if (line && ctx.measureText(next.trimEnd()).width > maxWidth) {
        lines.push(line.trimEnd());
        line = word.trimStart();
      } else {
        line = next;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

/**
 * The canvas's laid-out width in CSS pixels (its container's), or 800 before layout.
 * @param {HTMLCanvasElement} [canvas]
 */
export function layoutWidth(canvas) {
  return canvas?.parentElement?.clientWidth || canvas?.clientWidth || canvas?.width || 800;
}

/** True when the canvas is too narrow for long axis labels side by side. @param {HTMLCanvasElement} canvas */
export const isNarrow = (canvas) => layoutWidth(canvas) < 640;

/**
 * Characters per title line the canvas can hold, guessed from its laid-out width (read at draw time).
 * @param {HTMLCanvasElement} canvas
 */
export function charsPerLine(canvas, pxPerChar = 7) {
  return Math.max(40, Math.floor(layoutWidth(canvas) / pxPerChar));
}

/**
 * Options every chart starts from: no animation (10,000 bars must draw at once, and exports
 * must not catch a half-finished frame), title and subtitle, legend at the bottom, tooltips
 * that follow the nearest element. `extra` is deep-merged on top.
 * @template {ChartType} TType
 * @param {{ canvas: HTMLCanvasElement, title: string, subtitle?: string, aspectRatio?: number }} spec
 * @param {import('chart.js').ChartOptions<TType>} [extra]
 * @returns {import('chart.js').ChartOptions<TType>}
 */
export function baseOptions({ canvas, title, subtitle, aspectRatio = 2 }, extra = /** @type {import('chart.js').ChartOptions<TType>} */ ({})) {
  const chars = charsPerLine(canvas);
  // A narrow canvas spends most of its height on titles and legend: make it taller.
  if (isNarrow(canvas)) aspectRatio = Math.min(aspectRatio, 1.15);
  return merge(
    {
      animation: false,
      responsive: true,
      maintainAspectRatio: true,
      aspectRatio,
      layout: { padding: { top: 4, right: 16, bottom: 4, left: 8 } },
      plugins: {
        title: { display: true, text: wrapDots(title, Math.floor(chars * 0.8)), font: { size: 15, weight: 'bold' }, padding: { top: 6, bottom: 2 } },
        subtitle: { display: Boolean(subtitle), text: subtitle ? wrapDots(subtitle, chars) : '', color: '#555555', padding: { bottom: 8 } },
        legend: { display: true, position: 'bottom', labels: { boxWidth: 14, boxHeight: 9, padding: 12 } },
        tooltip: { mode: 'nearest', intersect: true },
        h2labBackground: { color: '#ffffff' },
      },
    },
    extra,
  );
}

/**
 * Deep-merges chart.js options (b wins); a is modified and returned.
 * @template {object} A
 * @param {A} a
 * @param {object} [b]
 */
export const mergeOptions = (a, b = {}) => merge(a, b);

/**
 * Legend entries for datasets that say how they look in the legend (dataset.legendStyle:
 * 'rect' | 'circle' | 'crossRot' | 'line'), for legends with usePointStyle.
 * @param {import('chart.js').Chart} chart
 */
export function styledLegendItems(chart) {
  // chart.js lists datasets by their drawing `order`; the legend keeps the datasets' own order.
  // Items made from datasets have a datasetIndex.
  const items = Chart.defaults.plugins.legend.labels.generateLabels(chart).sort((a, b) => /** @type {number} */ (a.datasetIndex) - /** @type {number} */ (b.datasetIndex));
  for (const item of items) {
    const ds = /** @type {(LegendStyled & { borderDash?: number[], borderColor?: import('chart.js').Color, borderWidth?: number })|undefined} */ (
      chart.data.datasets[/** @type {number} */ (item.datasetIndex)]
    );
    if (ds?.legendStyle) item.pointStyle = ds.legendStyle;
    if (ds?.legendStyle === 'line') {
      item.lineDash = ds.borderDash ?? [];
      item.strokeStyle = ds.borderColor;
      item.lineWidth = ds.borderWidth ?? 2;
    }
    if (ds?.legendStyle === 'rect') item.lineWidth = 1;
  }
  return items;
}

/** @typedef {{ legendStyle?: import('chart.js').PointStyle }} LegendStyled  a dataset's look in the legend (styledLegendItems) */

/**
 * Replaces chart.js's default number formatting of ms values with a sensible precision.
 * @param {number|null|undefined} ms
 */
export function formatMs(ms) {
  if (ms == null || !Number.isFinite(ms)) return '–';
  if (Math.abs(ms) >= 100) return `${Math.round(ms).toLocaleString('en-US')} ms`;
  if (Math.abs(ms) >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** "0.1 MiB", "2 MiB": trims trailing zeros. */
// Charts format sizes as every other part of the lab does.
export { formatMiB };

/**
 * The label of the preset a result ran under (its id for an import from an unknown preset).
 * @param {{ settings: { preset: string, network: string, loss?: number },
 *   environment: { preset?: { label: string }|null, network?: unknown } }} result  a Result, or page loads
 * @param {{ loss?: boolean }} [o] loss: false leaves the packet network's loss out (a loss sweep's shared settings)
 */
export function presetLabelOf(result, { loss = true } = {}) {
  const id = result.settings?.preset;
  const label = result.environment?.preset?.label ?? (id && id !== 'no-throttling' ? id : 'No throttling');
  // Who throttled: the lab link and the packet network always say so; DevTools only where it throttled anything.
  const network = networkOf(result.settings?.network);
  // Bursts are the network's conditions, not a setting: a run with bursts alone is no lossless run.
  const { conditions } = networkRecordOf(result.environment);
  const lossText = network.carries.loss && loss ? `, ${result.settings.loss ?? 0} % loss${burstText(conditions?.burst)}` : '';
  if (network.labSets) return `${label} via the ${network.title}${lossText}`;
  return id && id !== 'no-throttling' ? `${label} via ${network.title}` : label;
}

/**
 * "8 repeats", "1 repeat", "4–12 repeats" (points run until decided stop at different counts).
 * @param {Array<{ settings?: { repeats?: number } }>} results
 */
export function repeatsOf(results) {
  const counts = results.map((r) => Number(r.settings?.repeats)).filter(Number.isFinite);
  if (!counts.length) return '';
  const [low, high] = [Math.min(...counts), Math.max(...counts)];
  return low === high ? `${low} repeat${low === 1 ? '' : 's'}` : `${low}–${high} repeats`;
}

/**
 * A sweep's points in the order its axis draws them: a numeric parameter's in increasing value
 * (a line through 0, 5, 1, 2 % would read as a trend that is not there), presets as given.
 * @template {{ value: unknown }} P
 * @param {{ param: string, points: P[] }} sweep
 * @returns {P[]}
 */
export function pointsInAxisOrder(sweep) {
  const numeric = sweep.param !== 'preset' && sweep.points.every((p) => Number.isFinite(Number(p.value)));
  return numeric ? [...sweep.points].sort((a, b) => Number(a.value) - Number(b.value)) : sweep.points;
}

/** The short settings summary used in subtitles: "100 × 0.1 MiB · delay 10 ms · No throttling". @param {Result} result */
export const runSummary = (result) => `${settingsLabel(result.settings ?? {})} · ${presetLabelOf(result)}`;

/**
 * The set-up of a page-load result: "HTTP/2 (node:http2) · 4 assets × 290 KiB · think time 300 ms · Fast 4G".
 * @param {PageLoadResult} result
 */
export function pageLoadSummary(result) {
  const s = result.settings ?? {};
  /** @type {(n: number, word: string) => string} */
  const count = (n, word) => `${Number(n).toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
  // Results from before the panel recorded a preset claim none.
  const network = s.preset ? ` · ${presetLabelOf(result)}` : '';
  return `${serverLabel(s.server)} · ${count(s.assets, 'asset')} × ${Number(s.assetKiB).toLocaleString('en-US')} KiB · think time ${s.thinkMs} ms${network}`;
}

/**
 * Servers a result is about: the ones its settings asked for, else the ones that ran.
 * @param {Result} result
 * @returns {string[]}
 */
export function serversOf(result) {
  const fromSettings = result.settings?.servers ?? [];
  if (fromSettings.length) return measuredServers(result.settings);
  return [...new Set((result.runs ?? []).map((r) => r.server))];
}
