// The Recorded page panel: a HAR the person chooses, replayed by the lab over each protocol in
// headless browsers of its own (POST /api/replays, as `npm run page-loads -- --har`), its progress
// a line at a time, then its report (findings first, in a sandboxed frame: the HAR's URLs are
// someone else's text) and its files to download.
import { fields } from '../../common/setup/settings.js';
import { familyOf } from '../../common/setup/servers.js';
import { replayHar } from '../lab/api.js';
import { download } from '../export/download.js';
import { fillPresetSelect } from './settings-form.js';
import { showRefusedField } from './refused.js';

/**
 * @typedef {HTMLFormElement & { elements: HTMLFormControlsCollection & Record<'har'|'loss'|'repeats'|'untilDecided', HTMLInputElement>
 *   & Record<'family'|'browser'|'metric'|'connections'|'network'|'preset'|'coalescing'|'bodies'|'think', HTMLSelectElement> }} ReplayFormElement
 *   index.html's #replay-form
 */

/**
 * The form as the replay's query: each setting under its flag's name (the lab checks them all).
 * @param {ReplayFormElement} form
 * @returns {{ har: File|null, query: Record<string, string>, loads: number }}  loads: at most, for the progress bar
 */
function readForm(form) {
  const e = form.elements;
  const protocols = [.../** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll('input[name=protocols]:checked'))].map((b) => b.value);
  const selects = /** @type {const} */ (['family', 'browser', 'metric', 'connections', 'network', 'preset', 'coalescing', 'bodies', 'think']);
  /** @type {Record<string, string>} */
  const query = { protocols: protocols.join(','), ...Object.fromEntries(selects.map((name) => [name, e[name].value])), loss: e.loss.value.trim() || '0' };
  if (e.untilDecided.checked) Object.assign(query, { repeats: 'auto', 'max-repeats': e.repeats.value.trim() });
  else query.repeats = e.repeats.value.trim();
  return { har: e.har.files?.[0] ?? null, query, loads: protocols.length * (Number(e.repeats.value) || 0) };
}

/**
 * @param {{ form: ReplayFormElement, errorsEl: HTMLElement, why: HTMLElement, log: HTMLElement, files: HTMLElement,
 *   exports: HTMLElement, frame: HTMLIFrameElement, lab: import('../lab/api.js').Lab,
 *   onProgress: (p: import('../lab/engine.js').Progress) => void,
 *   busy: (job: (signal: AbortSignal) => Promise<void>) => Promise<unknown> }} o
 */
export function createReplayView({ form, errorsEl, why, log, files, exports, frame, lab, onProgress, busy }) {
  const e = form.elements;
  fillPresetSelect(e.preset);
  e.preset.value = 'no-throttling';
  Object.assign(e.loss, { min: String(fields.loss.min), max: String(fields.loss.max) });
  Object.assign(e.repeats, { min: String(fields.repeats.min), max: String(fields.repeats.max) });
  showFamilies(e.family, lab, why);
  /** @type {import('../lab/api.js').ReplayOutcome['done']|null} */
  let shown = null;
  const stem = () => `h2lab-${(shown?.out ?? 'replay').split(/[\\/]/).at(-1)}`;
  /** @param {string} selector @param {() => [string, string, string]} file  name, content, type */
  const exportButton = (selector, file) => /** @type {HTMLButtonElement} */ (exports.querySelector(selector)).addEventListener('click', () => download(...file()));
  exportButton('#replay-report-file', () => [`${stem()}-report.html`, shown?.files['report.html'] ?? '', 'text/html']);
  exportButton('#replay-json', () => [`${stem()}.json`, JSON.stringify(shown?.data, null, 2), 'application/json']);
  exportButton('#replay-loads-csv', () => [`${stem()}-loads.csv`, shown?.files['loads.csv'] ?? '', 'text/csv']);
  exportButton('#replay-origins-csv', () => [`${stem()}-origins.csv`, shown?.files['origins.csv'] ?? '', 'text/csv']);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const { har, query, loads } = readForm(form);
    errorsEl.textContent = '';
    for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
    if (!har) return void (errorsEl.textContent = 'Choose a HAR file (HAR 1.2: npm run record, or exported by Chrome, Firefox, WebPageTest or sitespeed.io)');
    if (!query.protocols) return void (errorsEl.textContent = 'Choose at least one protocol');
    busy(async (signal) => {
      log.hidden = false;
      log.textContent = '';
      let done = 0;
      let total = loads;
      onProgress({ done, total, phase: `Sending ${har.name} to the lab` });
      const outcome = await replayHar(har, query, {
        signal,
        onPages: (pages) => {
          total = loads * pages.length;
          log.textContent = pages.map((p) => `${p.name}: ${p.url} · ${p.origins} origins, ${p.responses} recorded responses\n`).join('');
          onProgress({ done, total, phase: 'Replaying' });
        },
        onLine: (line) => {
          log.textContent += `${line}\n`;
          log.scrollTop = log.scrollHeight;
          if (/ · repeat \d+: /.test(line)) onProgress({ done: ++done, total: Math.max(total, done), phase: 'Replaying' });
        },
      }).catch((err) => {
        if (!showRefusedField(form, errorsEl, err, (field) => (field === 'max-repeats' ? 'repeats' : field))) errorsEl.textContent = /** @type {Error} */ (err).message;
        throw new Error(/** @type {Error} */ (err).message); // said here, under this form, not the run's
      });
      if (outcome.failed) throw new Error(`the replay failed: ${outcome.failed.error}`);
      shown = outcome.done ?? null;
      if (!shown) throw new Error('the lab answered no outcome');
      files.textContent = `Written to ${shown.out} (results.json, loads.csv, origins.csv, report.html)${shown.exitCode ? '; some loads were invalid: the report says why' : ''}.`;
      frame.srcdoc = shown.files['report.html'];
      frame.hidden = exports.hidden = false;
    });
  });
}

/**
 * A family none of whose servers the lab could start is offered as not available, saying why.
 * @param {HTMLSelectElement} select @param {import('../lab/api.js').Lab} lab @param {HTMLElement} why
 */
function showFamilies(select, lab, why) {
  const reasons = [];
  for (const option of select.options) {
    const described = lab.servers.filter((s) => familyOf(option.value).some((f) => f.id === s.id));
    const reason = described.length && described.every((s) => !s.available) ? described[0].unavailableReason ?? 'not started' : null;
    if (reason) reasons.push(`${option.text}: ${reason}`);
    Object.assign(option, { disabled: Boolean(reason), title: reason ?? '' });
  }
  if (select.selectedOptions[0]?.disabled) select.value = [...select.options].find((o) => !o.disabled)?.value ?? select.value;
  why.textContent = reasons.join('\n');
}
