// Demo of every chart on synthetic results (sample-result.js), for people and screenshots.
// window.h2labDemo exposes the charts, the 10,000-request waterfall timings and a PNG export.
import { drawDistribution } from './distribution.js';
import { drawPageLoads } from './page-loads.js';
import { chartPng, pageLoadSettingsText, settingsText, sweepSettingsText } from './png.js';
import { samplePageLoads, sampleResult } from './sample-result.js';
import { drawSweep } from './sweep.js';
import { drawTotal } from './total.js';
import { drawWaterfall } from './waterfall.js';

const figures = document.querySelector('#figures');
const charts = {};
const timings = {};

function figure(name, caption, { narrow = false } = {}) {
  const fig = document.createElement('figure');
  fig.id = `fig-${name}`;
  if (narrow) fig.className = 'narrow';
  const canvas = document.createElement('canvas');
  const cap = document.createElement('figcaption');
  cap.textContent = caption;
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'PNG';
  button.addEventListener('click', () => exportPng(name).then((url) => window.open(url)));
  cap.append(button);
  fig.append(canvas, cap);
  figures.append(fig);
  return canvas;
}

const infos = {};
function show(name, caption, draw, info, opts) {
  const canvas = figure(name, caption, opts);
  charts[name] = draw(canvas);
  infos[name] = { title: charts[name].options.plugins?.title?.text, ...info };
}

async function exportPng(name) {
  const blob = await chartPng(charts[name], infos[name]);
  return URL.createObjectURL(blob);
}

const basic = sampleResult({ requests: 100, repeats: 10, failures: 1, invalidRuns: 1 });
const throttled = sampleResult({ requests: 30, sizeMiB: 0.01, repeats: 5, preset: 'regular-4g' });
const big = sampleResult({ requests: 10000, repeats: 1, failures: 25, seed: 7 });

show('total', 'drawTotal: 10 repeats, one invalid spdy run, one failed request per run', (c) => drawTotal(c, basic), { settingsText: settingsText(basic) });
show('total-floor', 'drawTotal with a preset: physical floor', (c) => drawTotal(c, throttled), { settingsText: settingsText(throttled) }, { narrow: true });
const pageLoads = samplePageLoads();
const pushAccepted = samplePageLoads({ pushRefused: false, repeats: 5, seed: 2 });
show('page-loads', 'drawPageLoads: Push refused by the browser, as Chrome and Firefox do', (c) => drawPageLoads(c, pageLoads), { settingsText: pageLoadSettingsText(pageLoads) });
show('page-loads-push', 'drawPageLoads: a client that accepts push', (c) => drawPageLoads(c, pushAccepted), { settingsText: pageLoadSettingsText(pushAccepted) }, { narrow: true });
show('waterfall-h1', 'drawWaterfall, HTTP/1.1, median run', (c) => drawWaterfall(c, basic, { server: 'h1' }), { settingsText: settingsText(basic) });
show('waterfall-h2', 'drawWaterfall, HTTP/2 (node:http2), repeat 2', (c) => drawWaterfall(c, basic, { server: 'h2-node', repeat: 2 }), { settingsText: settingsText(basic) });

// 10,000 requests: time construction (which renders) plus one update.
for (const server of ['h1', 'h2-node']) {
  const name = `waterfall-10k-${server}`;
  const canvas = figure(name, `drawWaterfall, 10,000 requests, ${server}`);
  const t0 = performance.now();
  const chart = drawWaterfall(canvas, big, { server });
  const t1 = performance.now();
  chart.update();
  const t2 = performance.now();
  charts[name] = chart;
  infos[name] = { title: chart.options.plugins?.title?.text, settingsText: settingsText(big) };
  timings[name] = { constructMs: t1 - t0, updateMs: t2 - t1, totalMs: t2 - t0 };
}

show('distribution', 'drawDistribution', (c) => drawDistribution(c, basic), { settingsText: settingsText(basic) });
show('distribution-10k', 'drawDistribution, 10,000 requests', (c) => drawDistribution(c, big), { settingsText: settingsText(big) });

const delaySweep = {
  param: 'delayMs',
  paramLabel: 'Delay (ms)',
  title: 'Experiment 1 · total time vs server delay',
  points: [0, 10, 20, 30, 40].map((d) => ({ value: d, label: String(d), result: sampleResult({ delayMs: d, repeats: 10, seed: d + 1 }) })),
};
const requestSweep = {
  param: 'requests',
  paramLabel: 'Requests',
  title: 'Experiment 2b · total time vs number of requests (delay 30 ms)',
  points: [6, 30, 150, 750, 3750].map((n) => ({ value: n, label: n.toLocaleString('en-US'), result: sampleResult({ requests: n, delayMs: 30, repeats: 5, seed: n }) })),
};
const presetIds = ['regular-2g', 'good-2g', 'regular-3g', 'good-3g', 'regular-4g', 'wifi'];
const presetSweep = {
  param: 'preset',
  paramLabel: 'Network preset',
  title: 'Experiment 4 · total time per network preset',
  points: presetIds.map((id, k) => {
    const result = sampleResult({ requests: 30, sizeMiB: 0.1, repeats: 5, preset: id, seed: k + 3 });
    return { value: id, label: result.environment.preset.label, result };
  }),
};
show('sweep-delay', 'drawSweep: delay', (c) => drawSweep(c, delaySweep), { settingsText: sweepSettingsText(delaySweep) });
show('sweep-requests', 'drawSweep: requests (log scale chosen automatically)', (c) => drawSweep(c, requestSweep), { settingsText: sweepSettingsText(requestSweep) });
show('sweep-preset', 'drawSweep: presets, with floors', (c) => drawSweep(c, presetSweep), { settingsText: sweepSettingsText(presetSweep) });

document.querySelector('#timings').textContent = Object.entries(timings)
  .map(([k, t]) => `${k}: new Chart ${t.constructMs.toFixed(1)} ms + update ${t.updateMs.toFixed(1)} ms = ${t.totalMs.toFixed(1)} ms`)
  .join('\n');

window.h2labDemo = { charts, timings, exportPng, ready: true };
