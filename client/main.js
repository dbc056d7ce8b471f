// Wires the page: each module does one thing (measure, summarise, draw, export, store).
import { drawSweep } from './charts/sweep.js';
import { sweepSettingsText } from './charts/png.js';
import { download, fileStem } from './export/download.js';
import { requestsCsv } from '../common/csv.js';
import { parseResultJson, resultJsonParts } from './export/json.js';
import { saveResult } from './history/store.js';
import { getLab, withLinkPreset } from './lab/api.js';
import { calibrate, calibrationText, probeServerOf } from './lab/calibrate.js';
import { runExperiment, runSweep } from './lab/engine.js';
import { presetById } from '../common/presets.js';
import { adoptServerLimits, settingsFromQuery, settingsToQuery, validateSettings } from '../common/settings.js';
import { planSweep, sweepParams } from '../common/sweep.js';
import { fetchOrigin } from '../common/urls.js';
import { createHistoryView } from './ui/history.js';
import { createPageLoadView } from './ui/page-load.js';
import { preflight } from './ui/preflight.js';
import { createProgress } from './ui/progress.js';
import { chartPngBase64 } from './ui/chart-export.js';
import { chartSlot, createResultsView } from './ui/results.js';
import { createSettingsForm } from './ui/settings-form.js';
import { checkSchema } from '../common/result.js';

const $ = (selector) => document.querySelector(selector);
let lab;
try {
  lab = await getLab();
} catch (err) {
  document.querySelector('#preflight-fix').hidden = false;
  document.querySelector('#preflight-fix').textContent = `The lab's control API did not answer (${err.message}). Is npm start running?`;
  throw err;
}
adoptServerLimits(lab.limits); // before any form reads its bounds
const form = createSettingsForm($('#settings'), $('#settings-errors'), lab);
const sweepForm = $('#sweep');

// The URL carries the set-up and the sweep, so a link reproduces both.
const fromUrl = settingsFromQuery(location.search);
form.write(fromUrl.settings);
if (fromUrl.settings.sweep) {
  sweepForm.elements.param.value = fromUrl.settings.sweep.param;
  sweepForm.elements.values.value = fromUrl.settings.sweep.values;
}
$('#settings-errors').textContent = fromUrl.errors.map((e) => `Link: ${e.message}`).join('\n');
function syncUrl() {
  const settings = form.read();
  if (!settings) return;
  const values = sweepForm.elements.values.value.trim();
  const sweep = values ? { param: sweepForm.elements.param.value, values } : undefined;
  history.replaceState(null, '', `?${settingsToQuery({ ...settings, sweep })}`);
}
$('#settings').addEventListener('change', syncUrl);
sweepForm.addEventListener('change', syncUrl);
const progress = createProgress($('#progress'));
const showResult = createResultsView($('#results'));
const sweepSlot = chartSlot($('figure[data-chart=sweep]'));
let current = null;
let stopper = null;

const refreshHistory = createHistoryView({
  table: $('#history'),
  compareButton: $('#compare'),
  comparisonBox: $('#comparison'),
  onOpen: (result) => {
    try {
      current = checkSchema(result, 'experiment'); // kept by an older h2lab: say so, draw nothing
    } catch (err) {
      $('#settings-errors').textContent = `History: ${err.message}`;
      return;
    }
    $('#settings-errors').textContent = '';
    showResult(result);
  },
});

/**
 * Runs one job with the Run/Stop buttons and the progress line; one job at a time. A person's
 * click and window.h2lab.run take this same path, so both measure alike.
 */
async function busy(job, { rethrow = false } = {}) {
  if (stopper) throw new Error('a run is already in progress');
  const controller = new AbortController();
  stopper = controller;
  $('#run').disabled = $('#run-sweep').disabled = $('#measure').disabled = $('#load-pages').disabled = true;
  $('#stop').disabled = false;
  progress.show();
  try {
    return await job(controller.signal);
  } catch (err) {
    progress.finish(`Failed: ${err.message}`);
    if (rethrow) throw err;
    return null;
  } finally {
    stopper = null;
    $('#run').disabled = $('#run-sweep').disabled = $('#measure').disabled = $('#load-pages').disabled = false;
    $('#stop').disabled = true;
  }
}

async function finished(result) {
  current = result;
  await showResult(result);
  try {
    await saveResult(result);
    await refreshHistory();
  } catch (err) {
    $('#settings-errors').textContent = `History: could not save this run (${err.message}); export it to keep it.`;
  }
  const failures = result.runs.reduce((n, r) => n + r.failures, 0);
  const invalid = result.runs.filter((r) => !r.valid).length;
  progress.finish(
    `${result.stopped ? 'Stopped' : 'Done'}: ${result.runs.length} runs, ${failures} failed requests, ${invalid} invalid runs`,
  );
}

$('#settings').addEventListener('submit', async (event) => {
  event.preventDefault();
  const settings = form.read();
  if (!settings) return;
  const result = await busy((signal) => runExperiment(settings, { lab, signal, onProgress: progress.update }));
  if (result) await finished(result);
});

$('#stop').addEventListener('click', () => stopper?.abort());

$('#measure').addEventListener('click', () =>
  busy(async (signal) => {
    progress.update({ done: 0, total: 1, phase: 'Measuring the network' });
    const server = probeServerOf(lab.servers);
    // Through whichever network the form chose: the lab link set to its preset, or DevTools as it is now.
    const settings = form.read() ?? { network: 'devtools' };
    const probe = () => calibrate(fetchOrigin(server, settings.network), { signal });
    const calibration = settings.network === 'link' ? await withLinkPreset(settings.preset, probe) : await probe();
    const how = settings.network === 'link' ? `the lab link at ${presetById(settings.preset).label}` : 'DevTools as set now';
    const text = `Measured network (${server.label}, ${how}): ${calibrationText(calibration)}`;
    $('#calibration').textContent = text;
    progress.finish(text);
  }),
);

$('#export-csv').addEventListener('click', () => download(`${fileStem(current)}.csv`, requestsCsv(current), 'text/csv'));
$('#export-json').addEventListener('click', () => download(`${fileStem(current)}.json`, new Blob(resultJsonParts(current), { type: 'application/json' })));
$('#import-json').addEventListener('change', async (event) => {
  const [file] = event.target.files;
  if (!file) return;
  try {
    current = parseResultJson(await file.text());
    showResult(current);
    $('#settings-errors').textContent = '';
  } catch (err) {
    $('#settings-errors').textContent = `Import JSON: ${err.message}`;
  }
  event.target.value = '';
});

sweepForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const settings = form.read();
  if (!settings) return;
  const param = event.target.elements.param.value;
  const { points, errors } = planSweep(param, event.target.elements.values.value, settings);
  $('#sweep-errors').textContent = errors.map((e) => e.message ?? e).join('\n');
  if (errors.length || !points.length) return;
  const plan = { param, paramLabel: sweepParams[param], points };
  const sweep = await busy((signal) =>
    runSweep(plan, {
      lab,
      signal,
      onProgress: progress.update,
      // The page cannot throttle DevTools: the person switches it, the runner uses CDP. The lab
      // link needs nobody: each point's run sets it.
      beforePoint: async (point) => {
        if (param === 'preset' && settings.network === 'devtools' && !confirm(`Set DevTools network throttling to "${presetById(point.value).label}", then press OK.`)) {
          stopper?.abort();
        }
      },
    }),
  );
  if (!sweep) return;
  for (const point of sweep.points) await saveResult(point.result);
  await refreshHistory();
  const last = sweep.points.at(-1)?.result;
  $('figure[data-chart=sweep]').hidden = !last;
  if (last) {
    sweepSlot((c) => drawSweep(c, sweep), { settingsText: sweepSettingsText(sweep), file: `h2lab-sweep-${param}-${last.id}` });
  }
  progress.finish(`Sweep ${sweep.stopped ? 'stopped' : 'done'}: ${sweep.points.length} of ${points.length} points`);
});

const pageLoadView = createPageLoadView({
  onProgress: progress.update,
  form: $('#page-load-form'),
  errorsEl: $('#page-load-errors'),
  table: $('#page-load-table'),
  truth: $('#push-truth'),
  exports: $('#page-load-exports'),
  figure: $('figure[data-chart=page-loads]'),
  busy: async (job) => {
    const result = await busy(job);
    if (result) progress.finish(`Page loads done: ${result.loads.length} loads`);
    return result;
  },
  lab,
});
await refreshHistory();
const reachable = await preflight(lab, $('#preflight-list'), $('#preflight-fix'));

// The programmatic entry the headless runner drives; the same result object the UI renders.
window.h2lab = {
  lab,
  ready: reachable.direct,
  /** Every server's twin port answered through the lab link. */
  linkReady: reachable.link,
  /** { direct, link }: ids of the servers this browser cannot use (the runner needs only its own). */
  unreachable: reachable.unreachable,
  chartPngBase64,
  /** The result the page shows now (after Run, Open or Import). */
  get last() {
    return current;
  },
  /** The Page load panel's result, after Load pages. */
  get lastPageLoads() {
    return pageLoadView.last;
  },
  async run(partial = {}) {
    const { settings, errors } = validateSettings(partial); // unset fields take the defaults
    if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
    const result = await busy((signal) => runExperiment(settings, { lab, signal, onProgress: progress.update }), { rethrow: true });
    current = result;
    await showResult(result);
    return result;
  },
};
