// Wires the page: each module does one thing (measure, summarise, draw, export, store).
import { drawSweep } from './charts/sweep.js';
import { sweepSettingsText } from './charts/png.js';
import { download, fileStem } from './export/download.js';
import { requestsCsv } from '../common/report/csv.js';
import { parseResultJson, resultJsonParts } from './export/json.js';
import { saveResult } from './history/store.js';
import { getLab, onNetwork } from './lab/api.js';
import { calibrate, probeServerOf } from './lab/calibrate.js';
import { runExperiment, runSweep, runUntilDecided } from './lab/engine.js';
import { presetById } from '../common/setup/presets.js';
import { adoptServerLimits, settingsFromQuery, settingsToQuery, validateSettings, withLossSeed } from '../common/setup/settings.js';
import { planSweep, sweepParams } from '../common/setup/sweep.js';
import { fetchOrigin } from '../common/setup/urls.js';
import { createHistoryView } from './ui/history.js';
import { createPageLoadView } from './ui/page-load.js';
import { createReplayView } from './ui/replay.js';
import { showRefusedField } from './ui/refused.js';
import { preflight } from './ui/preflight.js';
import { createProgress } from './ui/progress.js';
import { chartImage } from './ui/chart-export.js';
import { experimentReport } from './export/report.js';
import { chartSlot, createResultsView } from './ui/results.js';
import { createSettingsForm } from './ui/settings-form.js';
import { askDevtoolsConfirmation } from './ui/devtools-confirm.js';
import { checkSchema } from '../common/report/result.js';
import { createPresetApplier } from './lab/devtools-preset.js';
import { devtoolsParam, noSandboxParam } from '../common/setup/devtools-network.js';
import { calibrationText, mismatchText, networkMismatches } from '../common/report/network-check.js';
import { unavailableReason } from '../common/setup/servers.js';
import { defaultNetworkId, networkById, networkIds, networkOf, registerNetwork } from '../common/setup/networks.js';

/** @typedef {import('../common/report/result.js').Result} Result */
/** @typedef {import('../common/report/result.js').Settings} Settings */
/** @typedef {import('./lab/engine.js').SweepParam} SweepParam */

/**
 * @typedef {HTMLFormElement & { elements: HTMLFormControlsCollection & { param: HTMLSelectElement & { value: SweepParam },
 *   values: HTMLInputElement } }} SweepFormElement  index.html's #sweep: its options are sweep parameters
 */

/**
 * An element of index.html, which has every one the page looks up.
 * @template {Element} [E=HTMLElement]
 * @param {string} selector
 * @returns {E}
 */
const $ = (selector) => /** @type {E} */ (document.querySelector(selector));
/** A button of index.html. @param {string} selector */
const button = (selector) => /** @type {HTMLButtonElement} */ ($(selector));
/** @type {import('./lab/api.js').Lab} */
let lab;
try {
  lab = await getLab();
} catch (err) {
  $('#preflight-fix').hidden = false;
  $('#preflight-fix').textContent = `The lab's control API did not answer (${/** @type {Error} */ (err).message}). Is npm start running?`;
  throw err;
}
adoptServerLimits(lab.limits); // before any form reads its bounds
// A network of the lab's beyond those this page was built with (common/setup/networks.js registerNetwork), before any form lists them.
for (const entry of lab.networkEntries ?? []) registerNetwork(entry);
const applier = createPresetApplier(location.href);
const form = createSettingsForm($('#settings'), $('#settings-errors'), lab, applier);
/** @type {SweepFormElement} */
const sweepForm = $('#sweep');
for (const option of sweepForm.elements.param.options) option.text = sweepParams[option.value];

// npm run chrome says so when its Chrome runs without the sandbox (as root), and so does the page.
const noSandbox = new URL(location.href).searchParams.has(noSandboxParam);
$('#sandbox-notice').hidden = !noSandbox;

// The URL carries the set-up and the sweep, so a link reproduces both.
const fromUrl = settingsFromQuery(location.search);
form.write(fromUrl.settings);
if (fromUrl.settings.sweep) {
  sweepForm.elements.param.value = /** @type {SweepParam} validated */ (fromUrl.settings.sweep.param);
  sweepForm.elements.values.value = fromUrl.settings.sweep.values;
}
$('#settings-errors').textContent = fromUrl.errors.map((e) => `Link: ${e.message}`).join('\n');
function syncUrl() {
  const settings = form.read();
  if (!settings) return;
  const values = sweepForm.elements.values.value.trim();
  const sweep = values ? { param: sweepForm.elements.param.value, values } : undefined;
  const devtools = applier.param ? `&${devtoolsParam}=${applier.param}` : ''; // the lab finds this tab by it
  history.replaceState(null, '', `?${settingsToQuery({ ...settings, sweep })}${devtools}${noSandbox ? `&${noSandboxParam}=1` : ''}`);
}

/**
 * Whose conditions a calibration measured, in words: the lab's network at the preset (with its
 * loss where it carries loss), or DevTools.
 * @param {string} presetAppliedBy  applyPreset's answer
 * @param {string|undefined} label  the preset's
 * @param {number|undefined} loss
 */
function calibratedThrough(presetAppliedBy, label, loss) {
  const network = networkById(presetAppliedBy);
  if (network) return `the ${network.title} at ${label}${network.carries.loss ? `, ${loss} % loss` : ''}`;
  return presetAppliedBy === 'devtools-port' ? `DevTools at ${label}, applied by the lab` : 'DevTools as set now';
}

/**
 * Applies the form's DevTools preset to this tab through the lab when it can (runs through the
 * lab link or the packet network clear it: those throttle instead). Resolves who applied the
 * preset, for the result.
 * @param {Pick<Settings, 'network'|'preset'>} settings
 */
async function applyPreset(settings) {
  if (networkOf(settings.network).labSets) {
    if (applier.param) await applier.apply('no-throttling');
    return settings.network; // a network the lab sets
  }
  return (await applier.apply(settings.preset)) ? 'devtools-port' : 'label';
}

/**
 * After calibration: an alert when the measured network is not the preset the result is labelled with.
 * @param {{ preset?: import('../common/setup/presets.js').Preset|null, presetAppliedBy: import('../common/report/result.js').PresetAppliedBy,
 *   networkMismatches?: Result['environment']['networkMismatches'] }} environment  a Result's, or what Measure network found
 */
function showNetworkCheck(environment) {
  const alert = $('#network-alert');
  const mismatches = environment.networkMismatches ?? [];
  alert.hidden = !mismatches.length;
  alert.textContent = mismatches.length
    ? `${mismatchText(/** @type {import('../common/setup/presets.js').Preset} mismatches need one */ (environment.preset), mismatches)} ${environment.presetAppliedBy === 'label' ? 'Set the same preset in DevTools → Network, or open the lab with npm run chrome so the lab applies it.' : 'The result records the mismatch.'}`
    : '';
}
askDevtoolsConfirmation($('#devtools-confirm'), applier, () => {
  const settings = form.read();
  if (settings) applyPreset(settings);
});
$('#settings').addEventListener('change', syncUrl);
// The preset applies as soon as it is chosen (and is cleared by the next choice), as in DevTools.
$('#settings').addEventListener('change', (event) => {
  const settings = ['preset', 'network'].includes(/** @type {HTMLSelectElement} */ (event.target).name) && form.read();
  if (settings) applyPreset(settings);
});
sweepForm.addEventListener('change', syncUrl);
const progress = createProgress($('#progress'));
const showResult = createResultsView($('#results'));
const sweepSlot = chartSlot($('figure[data-chart=sweep]'));
/** @type {Result|null} */
let current = null;
/** @type {AbortController|null} */
let stopper = null;
// The results section, and its exports, show once there is a result.
const shown = () => /** @type {Result} */ (current);

const refreshHistory = createHistoryView({
  table: $('#history'),
  compareButton: $('#compare'),
  comparisonBox: $('#comparison'),
  onOpen: (result) => {
    try {
      current = checkSchema(result, 'experiment'); // kept by an older h2lab: say so, draw nothing
    } catch (err) {
      $('#settings-errors').textContent = `History: ${/** @type {Error} */ (err).message}`;
      return;
    }
    $('#settings-errors').textContent = '';
    showResult(/** @type {Result} checked */ (result));
  },
});

/**
 * Runs one job with the Run/Stop buttons and the progress line; one job at a time. A person's
 * click and window.h2lab.run take this same path, so both measure alike.
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} job
 * @param {{ rethrow?: boolean, stoppable?: boolean }} [o]
 * @returns {Promise<T|null>} null when it failed (said in the progress line) and rethrow is false
 */
async function busy(job, { rethrow = false, stoppable = true } = {}) {
  if (stopper) throw new Error('a run is already in progress');
  const controller = new AbortController();
  stopper = controller;
  button('#run').disabled = button('#run-sweep').disabled = button('#measure').disabled = button('#load-pages').disabled = button('#replay-run').disabled = button('#recheck').disabled = true;
  button('#stop').disabled = !stoppable;
  progress.show();
  try {
    return await job(controller.signal);
  } catch (err) {
    progress.finish(`Failed: ${/** @type {Error} */ (err).message}`);
    showRefusedField($('#settings'), $('#settings-errors'), err);
    if (rethrow) throw err;
    return null;
  } finally {
    stopper = null;
    button('#run').disabled = button('#run-sweep').disabled = button('#measure').disabled = button('#load-pages').disabled = button('#replay-run').disabled = button('#recheck').disabled = false;
    button('#stop').disabled = true;
  }
}

/** @param {Result} result */
async function finished(result) {
  current = result;
  await showResult(result);
  try {
    await saveResult(result);
    await refreshHistory();
  } catch (err) {
    $('#settings-errors').textContent = `History: could not save this run (${/** @type {Error} */ (err).message}); export it to keep it.`;
  }
  const failures = result.runs.reduce((n, r) => n + r.failures, 0);
  const invalid = result.runs.filter((r) => !r.valid).length;
  progress.finish(
    `${result.stopped ? 'Stopped' : 'Done'}: ${result.runs.length} runs, ${failures} failed requests, ${invalid} invalid runs`,
  );
}

$('#settings').addEventListener('submit', async (event) => {
  event.preventDefault();
  const read = form.read();
  if (!read) return;
  // A fresh base seed for this run's losses unless the person gave one; the result shows it.
  const settings = withLossSeed(read);
  for (const input of $('#settings').querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  const result = await busy(async (signal) => {
    $('#network-alert').hidden = true;
    const presetAppliedBy = await applyPreset(settings);
    const measure = settings.maxRepeats ? runUntilDecided : runExperiment;
    return measure(settings, { lab, signal, onProgress: progress.update, onCalibrated: showNetworkCheck, presetAppliedBy, burst: form.burst(), traces: form.traces(), capture: form.capture() });
  });
  if (result) await finished(result);
});

$('#stop').addEventListener('click', () => stopper?.abort());

$('#measure').addEventListener('click', () =>
  busy(async (signal) => {
    progress.update({ done: 0, total: 1, phase: 'Measuring the network' });
    const server = probeServerOf(lab.servers);
    // Through whichever network the form chose: the lab link set to its preset, or DevTools as it is now.
    /** @type {Settings | { network: import('../common/setup/networks.js').NetworkId, preset?: undefined, loss?: undefined }} */
    const settings = form.read() ?? { network: defaultNetworkId };
    const presetAppliedBy = settings.preset ? await applyPreset(settings) : 'label';
    const probe = () => calibrate(fetchOrigin(server, settings.network), { signal });
    const calibration = await onNetwork({ ...settings, burst: form.burst(), ...form.traces() }, probe);
    const preset = presetById(/** @type {string} undefined finds none */ (settings.preset));
    const how = calibratedThrough(presetAppliedBy, preset?.label, settings.loss);
    const text = `Measured network (${server.label}, ${how}): ${calibrationText(calibration)}`;
    $('#calibration').textContent = text;
    showNetworkCheck({ preset, presetAppliedBy, networkMismatches: networkMismatches(preset ?? null, calibration, settings.network) });
    progress.finish(text);
  }),
);

$('#export-csv').addEventListener('click', () => download(`${fileStem(shown())}.csv`, requestsCsv(shown()), 'text/csv'));
$('#export-report').addEventListener('click', async () => download(`${fileStem(shown())}.html`, await experimentReport(shown()), 'text/html'));
$('#export-json').addEventListener('click', () => download(`${fileStem(shown())}.json`, new Blob(resultJsonParts(shown()), { type: 'application/json' })));
$('#import-json').addEventListener('change', async (event) => {
  const input = /** @type {HTMLInputElement} */ (event.target);
  const [file] = /** @type {FileList} a file input's */ (input.files);
  if (!file) return;
  try {
    current = parseResultJson(await file.text());
    showResult(current);
    $('#settings-errors').textContent = '';
  } catch (err) {
    $('#settings-errors').textContent = `Import JSON: ${/** @type {Error} */ (err).message}`;
  }
  input.value = '';
});

sweepForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  const read = form.read();
  if (!read) return;
  // One base seed for the whole sweep, its points told apart by their loss model (common/setup/seeds.js).
  const settings = withLossSeed(read);
  const target = /** @type {SweepFormElement} */ (event.target);
  const param = target.elements.param.value;
  const { points, errors } = planSweep(param, target.elements.values.value, settings);
  $('#sweep-errors').textContent = errors.map((e) => e.message ?? e).join('\n');
  if (errors.length || !points.length) return;
  const plan = { param, paramLabel: sweepParams[param], points };
  /** @type {Awaited<ReturnType<typeof applyPreset>>} */
  let presetAppliedBy = 'label';
  $('#network-alert').hidden = true;
  const sweep = await busy((signal) =>
    runSweep(plan, {
      lab,
      signal,
      onProgress: progress.update,
      onCalibrated: showNetworkCheck,
      burst: form.burst(),
      traces: form.traces(),
      // runSweep spreads these options into each point's run, so the getter is read per point.
      get presetAppliedBy() {
        return presetAppliedBy;
      },
      // The lab applies each point's preset through this Chrome's DevTools port when it can; in
      // any other browser the person switches DevTools. The lab link needs nobody.
      beforePoint: async (point) => {
        presetAppliedBy = await applyPreset(point.settings);
        if (presetAppliedBy === 'label' && param === 'preset' && !confirm(`Set DevTools network throttling to "${/** @type {import('../common/setup/presets.js').Preset} a preset sweep's */ (presetById(/** @type {string} */ (point.value))).label}", then press OK.`)) {
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
  busy: async (job, options) => {
    const result = await busy(job, options);
    if (result) progress.finish(`Page loads done: ${result.loads.length} loads`);
    return result;
  },
  lab,
  applier,
});
createReplayView({
  form: $('#replay-form'),
  errorsEl: $('#replay-errors'),
  why: $('#replay-why'),
  log: $('#replay-log'),
  files: $('#replay-files'),
  exports: $('#replay-exports'),
  frame: $('#replay-report'),
  lab,
  onProgress: progress.update,
  busy: (job) =>
    busy(async (signal) => {
      await job(signal);
      progress.finish('Replay done: its report is below');
    }),
});
/**
 * Checks every server from this browser, then offers only what can run here: on load and on
 * "Check again" (a server back after Caddy restarted is offered again). A job like a run, since
 * the check empties the Resource Timing buffer a run reads.
 */
const checkServers = () =>
  busy(
    async () => {
      progress.update({ done: 0, total: lab.servers.length, phase: 'Checking the servers' });
      Object.assign(lab, await getLab()); // the lab's own word may have changed too (Caddy gone)
      await preflight(lab, $('#preflight-list'), $('#preflight-fix'));
      form.showAvailability();
      pageLoadView.showAvailability();
      const usable = lab.servers.filter((s) => !unavailableReason(lab, s.id)).length;
      progress.finish(`Checked the servers: ${usable} of ${lab.servers.length} can run in this browser`);
    },
    { stoppable: false },
  );
$('#recheck').addEventListener('click', checkServers);

// The form's preset from the start, so what the tab does matches what it says.
const initial = form.read();
if (initial) await applyPreset(initial);
await refreshHistory();
await checkServers();

/**
 * { id: why } of the servers this browser cannot use for runs through `network`.
 * @param {import('../common/setup/networks.js').NetworkId} network
 */
const unusable = (network) => Object.fromEntries(lab.servers.map((s) => [s.id, unavailableReason(lab, s.id, network)]).filter(([, why]) => why));

// The programmatic entry the headless runner drives; the same result object the UI renders. Its
// type (PageApi) is window.h2lab's on both sides of the process boundary (client/page-api.d.ts).
const pageApi = {
  lab,
  /** Every server can run here (as of the last check) under the default network. */
  get ready() {
    return !Object.keys(unusable(defaultNetworkId)).length;
  },
  /** Per network id (common/setup/networks.js), { id: why } of the servers this browser cannot use (the runner needs only its own). */
  get unusable() {
    return Object.fromEntries(networkIds.map((n) => [n, unusable(/** @type {import('../common/setup/networks.js').NetworkId} */ (n))]));
  },
  chartImage,
  /** The result the page shows now (after Run, Open or Import). */
  get last() {
    return current;
  },
  /** The Page load panel's result, after Load pages. */
  get lastPageLoads() {
    return pageLoadView.last;
  },
  /**
   * The Page load panel's loads (client/ui/page-load.js): resolves the page-load result.
   * @param {Partial<import('../common/report/result.js').PageLoadSettings>} [options]
   * @param {{ capture?: { whole: boolean } | null }} [more]  capture: each load's packets, on a network that sees them
   */
  loadPages: (options, more) => pageLoadView.loadPages(options, more),
  /**
   * One experiment; `traces` names a trace per direction for a network the lab sets (GET
   * /api/traces), which the lab checks when the run sets its network.
   * @param {Partial<Settings>} [partial]
   * @param {{ traceDown?: string|null, traceUp?: string|null, burst?: import('./lab/api.js').BurstInput | null, capture?: { whole: boolean } | null,
   *   repeatNumbers?: number[] | null }} [options]  burst: the packet network's bursty loss (runner --burst); capture: each run's packets, on a network that sees them (server/packet/capture.js); repeatNumbers: the
   *   repeats to run, as many as settings.repeats (a shard's: runner --shard, a round's: runner
   *   --repeats auto); with settings.maxRepeats the page runs until decided and sets them itself
   */
  async run(partial = {}, { traceDown = null, traceUp = null, burst = null, capture = null, repeatNumbers = null } = {}) {
    const { settings: valid, errors } = validateSettings(partial); // unset fields take the defaults
    if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
    // Under loss, one base seed for all the rounds of until decided (the runner gives its own).
    const settings = valid.loss > 0 || burst ? withLossSeed(valid) : valid;
    if (settings.maxRepeats && repeatNumbers) throw new Error('repeatNumbers: not with maxRepeats, whose rounds number their own repeats');
    const measure = settings.maxRepeats ? runUntilDecided : runExperiment;
    const result = /** @type {Result} never null with rethrow */ (
      await busy((signal) => measure(settings, { lab, signal, onProgress: progress.update, burst, traces: { traceDown, traceUp }, capture, repeatNumbers }), { rethrow: true })
    );
    current = result;
    await showResult(result);
    return result;
  },
};
/** @typedef {typeof pageApi} PageApi */
window.h2lab = pageApi;
