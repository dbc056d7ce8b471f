// Charts as PNG for the headless runner, drawn by the page's own chart code so the runner's
// images look exactly like the UI's: an off-screen (laid out, not hidden) canvas per image.
import { drawDistribution } from '../charts/distribution.js';
import { drawPageLoads } from '../charts/page-loads.js';
import { drawSweep } from '../charts/sweep.js';
import { drawTotal } from '../charts/total.js';
import { drawWaterfall } from '../charts/waterfall.js';
import { chartPng, pageLoadSettingsText, settingsText, sweepSettingsText } from '../charts/png.js';

// waterfall's data: { result, server, repeat } (one run of one server).
const draws = {
  total: drawTotal,
  distribution: drawDistribution,
  waterfall: (canvas, d) => drawWaterfall(canvas, d.result, d),
  sweep: drawSweep,
  pageLoads: drawPageLoads,
};
const footers = {
  total: settingsText,
  distribution: settingsText,
  waterfall: (d) => settingsText(d.result),
  sweep: sweepSettingsText,
  pageLoads: pageLoadSettingsText,
};

/**
 * @param {{ widthPx?: number, scale?: number }} [o] scale: pixels per CSS pixel (chartPng's, 2 by default)
 * @returns {Promise<{ title: string, pngBase64: string }>} the chart's title and its PNG as base64
 */
export async function chartImage(kind, data, { widthPx = 1100, scale } = {}) {
  const box = Object.assign(document.createElement('div'), { style: `position:absolute;left:-20000px;top:0;width:${widthPx}px` });
  const canvas = document.createElement('canvas');
  box.append(canvas);
  document.body.append(box);
  const chart = draws[kind](canvas, data);
  try {
    const title = chart.options.plugins?.title?.text;
    const blob = await chartPng(chart, { title, settingsText: footers[kind](data), scale });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { title: [title].flat().join(' '), pngBase64: btoa(binary) };
  } finally {
    chart.destroy();
    box.remove();
  }
}
