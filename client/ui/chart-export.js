// Charts as PNG for the headless runner, drawn by the page's own chart code so the runner's
// images look exactly like the UI's: an off-screen (laid out, not hidden) canvas per image.
import { drawConnections } from '../charts/connections.js';
import { drawDistribution } from '../charts/distribution.js';
import { drawPageLoads } from '../charts/page-loads.js';
import { drawSweep } from '../charts/sweep.js';
import { drawTotal } from '../charts/total.js';
import { drawWaterfall } from '../charts/waterfall.js';
import { chartPng, pageLoadSettingsText, settingsText, sweepSettingsText } from '../charts/png.js';
import { fileChartScale } from '../../common/report/report-html.js';

/**
 * @typedef {{ total: Result, distribution: Result, waterfall: { result: Result, server: string, repeat: number },
 *   connections: { result: Result, repeat?: number|null },
 *   sweep: import('../charts/sweep.js').SweepSpec, pageLoads: import('../../common/report/result.js').PageLoadResult }} ChartData
 *   what each kind of chart draws
 * @typedef {keyof ChartData} ChartKind
 * @typedef {import('../../common/report/result.js').Result} Result
 */

// waterfall's data: { result, server, repeat } (one run of one server); connections': { result, repeat }
// (repeat null or absent: each server's median run).
/** @type {{ [K in ChartKind]: (canvas: HTMLCanvasElement, data: ChartData[K]) => import('../charts/setup.js').AnyChart }} */
const draws = {
  total: drawTotal,
  distribution: drawDistribution,
  waterfall: (canvas, d) => drawWaterfall(canvas, d.result, d),
  connections: (canvas, d) => drawConnections(canvas, d.result, { repeat: d.repeat ?? null }),
  sweep: drawSweep,
  pageLoads: drawPageLoads,
};
/** @type {{ [K in ChartKind]: (data: ChartData[K]) => string }} */
const footers = {
  total: settingsText,
  distribution: settingsText,
  waterfall: (d) => settingsText(d.result),
  connections: (d) => settingsText(d.result),
  sweep: sweepSettingsText,
  pageLoads: pageLoadSettingsText,
};

/** A Blob's bytes as base64. @param {Blob} blob */
async function base64Of(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Draws the chart once and renders it at each of `scales` (pixels per CSS pixel; a PNG file's
 * scale by default), so that a file's image and a report's are the same drawing.
 * @template {ChartKind} K
 * @param {K} kind
 * @param {ChartData[K]} data
 * @param {{ widthPx?: number, scales?: number[] }} [o]
 * @returns {Promise<{ title: string, pngsBase64: string[] }>} the chart's title and one PNG per scale, as base64
 */
export async function chartImage(kind, data, { widthPx = 1100, scales = [fileChartScale] } = {}) {
  const box = Object.assign(document.createElement('div'), { style: `position:absolute;left:-20000px;top:0;width:${widthPx}px` });
  const canvas = document.createElement('canvas');
  box.append(canvas);
  document.body.append(box);
  const chart = draws[kind](canvas, data);
  try {
    const title = /** @type {string|string[]|undefined} chart.js types it deep-partial */ (chart.options.plugins?.title?.text);
    const footer = footers[kind](data);
    /** @type {string[]} */
    const pngsBase64 = [];
    for (const scale of scales) pngsBase64.push(await base64Of(await chartPng(chart, { title, settingsText: footer, scale })));
    return { title: [title].flat().join(' '), pngsBase64 };
  } finally {
    chart.destroy();
    box.remove();
  }
}
