// Charts as PNG for the headless runner, drawn by the page's own chart code so the runner's
// images look exactly like the UI's: an off-screen (laid out, not hidden) canvas per image.
import { drawPageLoads } from '../charts/page-loads.js';
import { drawSweep } from '../charts/sweep.js';
import { drawTotal } from '../charts/total.js';
import { chartPng, pageLoadSettingsText, settingsText, sweepSettingsText } from '../charts/png.js';

const draws = { total: drawTotal, sweep: drawSweep, pageLoads: drawPageLoads };
const footers = { total: settingsText, sweep: sweepSettingsText, pageLoads: pageLoadSettingsText };

/** @returns {Promise<string>} the PNG as base64 */
export async function chartPngBase64(kind, data, { widthPx = 1100 } = {}) {
  const box = Object.assign(document.createElement('div'), { style: `position:absolute;left:-20000px;top:0;width:${widthPx}px` });
  const canvas = document.createElement('canvas');
  box.append(canvas);
  document.body.append(box);
  const chart = draws[kind](canvas, data);
  try {
    const blob = await chartPng(chart, { title: chart.options.plugins?.title?.text, settingsText: footers[kind](data) });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  } finally {
    chart.destroy();
    box.remove();
  }
}
