// The Page load panel: reads its form, opens the one window the loads navigate, and shows per
// mode the load time, its ratio to Requested and what the browser did with push and 103, as a
// table and as a chart.
import { drawPageLoads } from '../charts/page-loads.js';
import { pageLoadSettingsText } from '../charts/png.js';
import { labSetsNetwork } from '../../common/setup/settings.js';
import { defaultNetworkId, networkOf } from '../../common/setup/networks.js';
import { download } from '../export/download.js';
import { pageLoadsCsv } from '../../common/report/csv.js';
import { cannotCarry, carries } from '../../common/setup/presets.js';
import { noEarlyHintsText, serverById, serverLabel, servers, unavailableReason } from '../../common/setup/servers.js';
import { pageLoadDefaultServer, pageLoadFieldError, pageLoadFields, pageLoadLabels, pageLoadModes } from '../../common/report/page-load.js';
import { runPageLoads } from '../lab/page-load.js';
import { pageLoadsReport } from '../export/report.js';
import { levelText, ratioWithVerdict } from '../../common/stats/stats.js';
import { chartSlot } from './results.js';
import { browserCannotApply, captureWhy, explainNetwork, fillPresetSelect } from './settings-form.js';

/** @typedef {import('../../common/report/result.js').PageLoadSettings} PageLoadSettings */
/** @typedef {import('../../common/report/result.js').PageLoadResult} PageLoadResult */

/**
 * @typedef {HTMLFormElement & { elements: HTMLFormControlsCollection & Record<'assets'|'assetKiB'|'thinkMs'|'repeats', HTMLInputElement>
 *   & Record<'capture'|'captureWhole', HTMLInputElement>
 *   & { server: HTMLSelectElement, preset: HTMLSelectElement, network: HTMLSelectElement & { value: PageLoadSettings['network'] } } }} PageLoadFormElement
 *   index.html's #page-load-form; its network select offers only networks
 */

/** @param {number|null|undefined} x */
const fmt = (x) => (x == null ? '–' : x.toFixed(0));

/**
 * @param {PageLoadFormElement} form
 * @returns {PageLoadSettings}
 */
function readForm(form) {
  /** @param {'assets'|'assetKiB'|'thinkMs'|'repeats'} name */
  const n = (name) => Number(form.elements[name].value);
  const s = /** @type {PageLoadSettings} completed below */ ({ server: form.elements.server.value, assets: n('assets'), assetKiB: n('assetKiB'), thinkMs: n('thinkMs'), repeats: n('repeats') });
  s.preset = form.elements.preset.value;
  s.network = form.elements.network.value;
  // The mode boxes' values are modes.
  s.modes = [.../** @type {NodeListOf<HTMLInputElement & { value: import('../../common/report/result.js').PageLoadMode }>} */ (form.querySelectorAll('input[name=modes]:checked'))].map((b) => b.value);
  return s;
}

/**
 * What is wrong with page-load settings, from the form or from window.h2lab.loadPages: lines.
 * @param {PageLoadSettings} s  as given: anything may be wrong
 * @param {import('../lab/api.js').Lab} lab
 */
function settingsErrors(s, lab) {
  /** @type {string[]} */
  const errors = [];
  for (const [key, field] of Object.entries(pageLoadFields)) {
    const name = /** @type {keyof typeof pageLoadFields} */ (key);
    const error = pageLoadFieldError(name, s[name]);
    if (error) errors.push(`${field.label} ${error}`);
  }
  if (!s.modes.length || s.modes.some((m) => !pageLoadModes.includes(m))) errors.push(`Choose at least one mode, of ${pageLoadModes.join(', ')}`);
  const why = unavailableReason(lab, s.server, s.network);
  if (why) errors.push(`${serverLabel(s.server)} cannot run here: ${why}`);
  if (!carries(s.network, s.preset)) errors.push(cannotCarry(s.network));
  const cannot = browserCannotApply(s.network);
  if (cannot) errors.push(cannot);
  return errors;
}

// What window.h2lab.loadPages takes when an option is not given: the form's initial values.
/** @returns {PageLoadSettings} */
const pageLoadDefaults = () => /** @type {PageLoadSettings} every field */ ({
  server: pageLoadDefaultServer,
  ...Object.fromEntries(Object.entries(pageLoadFields).map(([name, f]) => [name, f.default])),
  preset: 'no-throttling',
  network: defaultNetworkId,
  modes: pageLoadModes,
});

/**
 * @param {import('../../common/report/result.js').PageLoadRow} row
 * @param {PageLoadSettings} settings
 */
function whatHappened(row, settings) {
  if (row.mode === 'push') {
    if (row.refusedAll) return `this browser disabled HTTP/2 push (SETTINGS_ENABLE_PUSH = 0): ${row.pushesRefused} pushes refused, none sent`;
    if (!serverById(settings.server)?.capabilities.push) return `${serverLabel(settings.server)} has no push: plain pages, no number`;
    return `${row.pushesSent} pushed, ${row.pushesRefused} refused`;
  }
  if (row.mode === 'hints') {
    const none = noEarlyHintsText(settings.server);
    if (none) return none;
    const assets = row.n * settings.assets;
    const lead = row.earlyLeadMs == null ? '' : `, the first a median ${fmt(row.earlyLeadMs)} ms before the HTML`;
    return `103 received in ${row.hint103Seen} of ${row.n} loads, acted on in ${row.hintActedOn} (an asset started from the 103); the server saw ${row.assetsRequestedEarly} of ${assets} assets requested early${lead}; ${row.earlyHintAssets} reported as early hints (initiatorType early-hints)`;
  }
  return '';
}

/**
 * A mode's row of the summary table.
 * @param {import('../../common/report/result.js').PageLoadRow} row
 * @param {PageLoadSettings} settings
 */
function summaryRow(row, settings) {
  const tr = document.createElement('tr');
  const noNumber = row.noPushes; // a "push" time without pushes would mislead
  const vs = row.vsRequested ? ratioWithVerdict(row.vsRequested) : '–';
  const cells = [
    pageLoadLabels[row.mode],
    row.n,
    noNumber ? 'no number' : fmt(row.median),
    noNumber || !row.ci95 ? '–' : `${fmt(row.ci95[0])} – ${fmt(row.ci95[1])}${row.ciLevel == null ? '' : ` · ${levelText(row.ciLevel)}`}`,
    noNumber ? '–' : fmt(row.p95),
    noNumber ? '–' : vs,
    whatHappened(row, settings),
  ];
  for (const c of cells) tr.insertCell().textContent = String(c);
  return tr;
}

/**
 * Each load's packets, where the network sees them: as the experiment form offers it.
 * @param {PageLoadFormElement} form
 * @returns {() => { whole: boolean } | null} the capture asked for, or null (not asked, or a network that sees no packets)
 */
function captureChoice(form) {
  const captureFields = /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll('.captures-only'));
  const showCapture = () => captureFields.forEach((el) => (el.hidden = !networkOf(form.elements.network.value).capturesPackets));
  form.elements.network.addEventListener('change', showCapture);
  showCapture();
  /** @type {HTMLElement} */ (form.querySelector('#page-load-capture-why')).textContent = captureWhy;
  return () => (networkOf(form.elements.network.value).capturesPackets && form.elements.capture.checked ? { whole: form.elements.captureWhole.checked } : null);
}

/**
 * The server select offers what can run here: one the lab or the page's preflight found unusable
 * is disabled with its reason as the option's title and, when it was chosen, another is.
 * @param {HTMLSelectElement} select
 * @param {import('../lab/api.js').Lab} lab
 * @param {PageLoadFormElement['elements']['network']} network  the panel's "Throttled by"
 */
function serverChoice(select, lab, network) {
  const options = servers.map((s) => new Option(s.label, s.id, false, s.id === pageLoadDefaultServer));
  select.append(...options);
  return function showAvailability() {
    for (const option of options) {
      const why = unavailableReason(lab, option.value, network.value);
      Object.assign(option, { disabled: Boolean(why), title: why ?? '', text: why ? `${serverLabel(option.value)} (not available)` : serverLabel(option.value) });
    }
    if (select.selectedOptions[0]?.disabled) select.value = options.find((o) => !o.disabled)?.value ?? select.value;
  };
}

/**
 * @param {{ form: PageLoadFormElement, errorsEl: HTMLElement, table: HTMLTableElement, truth: HTMLElement, exports: HTMLElement,
 *   figure: HTMLElement, lab: import('../lab/api.js').Lab, applier: import('./settings-form.js').PresetApplier,
 *   onProgress: (p: import('../lab/engine.js').Progress) => void,
 *   busy: (job: (signal: AbortSignal) => Promise<PageLoadResult>, o: { rethrow?: boolean }) => Promise<PageLoadResult|null> }} o
 *   the panel's elements (index.html #page-load); busy: runs the job as the page's one job at a time
 */
export function createPageLoadView({ form, errorsEl, table, truth, exports, figure, busy, onProgress, lab, applier }) {
  const showAvailability = serverChoice(form.elements.server, lab, form.elements.network);
  form.elements.network.addEventListener('change', showAvailability);
  const askedCapture = captureChoice(form);
  showAvailability();
  fillPresetSelect(form.elements.preset);
  explainNetwork(form.elements.network, /** @type {HTMLElement} */ (form.querySelector('#page-load-preset-why')), applier, 'the page-load window');
  for (const [name, field] of Object.entries(pageLoadFields)) form.elements[/** @type {keyof typeof pageLoadFields} */ (name)].max = String(field.max);
  /** @type {PageLoadResult|null} */
  let current = null;
  const slot = chartSlot(figure);
  // The exports show with a result: current is set by then.
  const shown = () => /** @type {PageLoadResult} */ (current);
  const stem = () => `h2lab-page-loads-${shown().settings.server}-${shown().startedAt.replace(/[:.]/g, '-')}`;
  const button = (/** @type {string} */ selector) => /** @type {HTMLButtonElement} */ (exports.querySelector(selector));
  button('#page-load-csv').addEventListener('click', () => download(`${stem()}.csv`, pageLoadsCsv(shown()), 'text/csv'));
  button('#page-load-json').addEventListener('click', () => download(`${stem()}.json`, JSON.stringify(current, null, 2), 'application/json'));
  button('#page-load-report').addEventListener('click', async () => download(`${stem()}.html`, await pageLoadsReport(shown(), stem()), 'text/html'));

  /** @param {PageLoadResult} result */
  async function show(result) {
    current = result;
    table.hidden = false;
    exports.hidden = false;
    table.tBodies[0].replaceChildren(...result.summary.map((row) => summaryRow(row, result.settings)));
    const push = result.summary.find((r) => r.mode === 'push');
    truth.textContent = push?.refusedAll
      ? 'This browser disabled HTTP/2 push (SETTINGS_ENABLE_PUSH = 0), as Chrome has since version 106: the Push row has no number. npm run push-lab measures push with a client that accepts it.'
      : '';
    figure.hidden = false; // before drawing: a hidden canvas has no size
    slot((canvas) => drawPageLoads(canvas, result), { settingsText: pageLoadSettingsText(result), file: stem() });
  }

  /**
   * Loads the pages of `settings` in the window named h2lab-page-load (one the runner opened and
   * throttled is reused) and shows the result; resolves it, or undefined when stopped or failed.
   * @param {PageLoadSettings} settings  checked
   * @param {{ rethrow?: boolean, capture?: { whole: boolean } | null }} [o]  capture: each load's packets (runPageLoads)
   */
  async function load(settings, { rethrow = false, capture = null } = {}) {
    // Opened inside the click: a window opened later, without the user's gesture, is blocked.
    const win = window.open('about:blank', 'h2lab-page-load', 'popup,width=900,height=700');
    if (!win) throw new Error('The browser blocked the page-load window: allow pop-ups for this page (the icon in the address bar), then click Load pages again.');
    const server = /** @type {import('../lab/api.js').LabServer} checked: available */ (lab.servers.find((s) => s.id === settings.server));
    const result = await busy(async (signal) => {
      // Throttled before its first load; the emulation ends with the window.
      const applied = !labSetsNetwork(settings.network) && (await applier.apply(settings.preset, 'opened'));
      const presetAppliedBy = labSetsNetwork(settings.network) ? settings.network : applied ? 'devtools-port' : 'label';
      return runPageLoads(settings, { server, win, signal, onProgress, presetAppliedBy, capture });
    }, { rethrow }).finally(() => win.close());
    if (result) await show(result);
    if (result?.stopped) errorsEl.textContent = `Stopped after ${result.loads.length} loads: ${result.stopReason}`;
    return result;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const settings = readForm(form);
    const errors = settingsErrors(settings, lab);
    errorsEl.textContent = errors.join('\n');
    if (errors.length) return;
    await load(settings, { capture: askedCapture() }).catch((err) => (errorsEl.textContent = err.message));
  });
  return {
    show,
    showAvailability,
    /** The page-load result the panel shows now. */
    get last() {
      return current;
    },
    /**
     * window.h2lab.loadPages: the panel's loads with `options` (the form's initial values for
     * what is not given); resolves the page-load result, throws on bad options or a failed load.
     * @param {Partial<PageLoadSettings>} [options]
     * @param {{ capture?: { whole: boolean } | null }} [more]  capture: each load's packets, on a network that sees them
     */
    async loadPages(options = {}, { capture = null } = {}) {
      const settings = { ...pageLoadDefaults(), ...options };
      const errors = settingsErrors(settings, lab);
      if (errors.length) throw new Error(errors.join('; '));
      return load(settings, { rethrow: true, capture });
    },
  };
}
