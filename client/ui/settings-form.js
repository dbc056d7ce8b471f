// The set-up form: fills itself from settings and reads back what the user typed, validated by
// the one settings module.
import { describePreset, presets } from '../../common/setup/presets.js';
import { defaultControlOf, serverLabel, servers, unavailableReason } from '../../common/setup/servers.js';
import { aimPercentField, fields, labelWithUnit, maxRepeatsField, untilDecided, validateSettings } from '../../common/setup/settings.js';
import { levelText, verdictLevel } from '../../common/stats/stats.js';
import { networkOf, networks } from '../../common/setup/networks.js';
import { traceBounds } from '../../common/setup/path-limits.js';
import { traceNameOf } from '../../common/setup/trace-name.js';
import { getTraces, uploadTrace } from '../lab/api.js';
import { browserName } from '../charts/png.js';

/** @typedef {ReturnType<import('../lab/devtools-preset.js').createPresetApplier>} PresetApplier */
/** @typedef {'requests'|'sizeMiB'|'delayMs'|'repeats'|'maxInFlight'} NumberInput */
/** @typedef {HTMLSelectElement & { value: import('../../common/setup/networks.js').NetworkId }} NetworkSelect  a "Throttled by" select: its options are the registry's */

/**
 * @typedef {HTMLFormElement & { elements: HTMLFormControlsCollection & Record<NumberInput|'loss'|'lossSeed'|'burst.p'|'burst.r'|'traceFile'|'capture'|'captureWhole'|'control'|'untilDecided'|'maxRepeats'|'aimPercent', HTMLInputElement>
 *   & Record<'connections'|'preset'|TraceSelect, HTMLSelectElement> & { network: NetworkSelect } }} SettingsFormElement  index.html's #settings
 */
/** @typedef {'traceDown'|'traceUp'} TraceSelect */

/**
 * Fills a <select> with every preset, current and legacy groups apart, labelled as DevTools does.
 * @param {HTMLSelectElement} select
 */
export function fillPresetSelect(select) {
  for (const group of ['current', 'legacy']) {
    const optgroup = Object.assign(document.createElement('optgroup'), {
      label: group === 'current' ? 'Current DevTools presets' : 'Legacy presets (the classic experiment)',
    });
    for (const p of presets.filter((x) => x.group === group)) optgroup.append(new Option(describePreset(p), p.id));
    select.append(optgroup);
  }
}


/**
 * What "DevTools" means in this browser: the lab applies the preset, or it is a label.
 * @param {PresetApplier} applier
 * @param {string} where
 */
function devtoolsWhy(applier, where) {
  if (applier.active) {
    const through = applier.port ? `this Chrome's DevTools port ${applier.port}, which you confirmed,` : "this Chrome's DevTools, through npm run chrome,";
    return `The lab applies the preset to ${where} through ${through} and clears it ` +
      'when the preset changes or the window closes. DevTools throttling is request-level. Leave the Network panel at No throttling: ' +
      'whichever sets throttling last wins.';
  }
  return `Label only: ${applier.refusal}, so the page cannot set DevTools throttling. Pick the same preset in DevTools → Network → ` +
    `throttling (for ${where}). After calibration the page warns when the measured network does not match the label.`;
}


/** How to get a network that runs a lab of its own, where this lab does not run on it. @param {import('../../common/setup/networks.js').Network} network */
const notInThisLab = (network) => `npm run chrome -- --network ${network.id} starts a lab on the ${network.title}, and this browser on its other side`;

/**
 * Why this browser cannot run under a network, or null. DevTools throttling is Chromium's: its
 * presets, applied through its DevTools (or by the person in DevTools, by name). Another browser's
 * DevTools has presets of its own, so its runs could not claim the lab's; the lab's own networks
 * work in any browser.
 * @param {string} networkId
 */
export function browserCannotApply(networkId) {
  // HeadlessChrome/, Chrome/ (Edge too), Chromium/: a Chromium.
  const userAgent = globalThis.navigator?.userAgent ?? '';
  if (networkOf(networkId).labSets || /Chrom(e|ium)\//.test(userAgent)) return null;
  const lab = networks.filter((n) => n.labSets).map((n) => `the ${n.title}`).join(' or ');
  return `${networkOf(networkId).title} throttling applies Chromium's presets through Chromium's DevTools, which ${browserName(userAgent) || 'this browser'} does not have: choose ${lab}`;
}

/**
 * Fills a "Throttled by" select from the network registry and keeps its "why" paragraph in step
 * with it and with who can apply a DevTools preset here (client/lab/devtools-preset.js).
 * @param {HTMLSelectElement} select
 * @param {HTMLElement} why
 * @param {PresetApplier} applier
 * @param {string} where  what the preset throttles, for people
 * @param {{ inLab?: readonly string[]|null }} [o] inLab: the networks this lab runs (/api/servers
 *   `networks`): one that runs a lab of its own (the packet network) is offered where the lab runs
 *   on it, else disabled with how to get it; null: such networks are not offered at all
 */
export function explainNetwork(select, why, applier, where, { inLab = null } = {}) {
  /** @type {HTMLOptionElement[]} */
  const browserOptions = [];
  for (const n of networks) {
    if (n.ownLab && inLab === null) continue;
    const here = !n.ownLab || /** @type {readonly string[]} not null for a network with a lab of its own */ (inLab).includes(n.id);
    const option = new Option(here ? n.option : `${n.option}: not in this lab`, n.id);
    option.disabled = !here || Boolean(browserCannotApply(n.id));
    if (!n.labSets) browserOptions.push(option);
    select.append(option);
  }
  const show = () => {
    for (const option of browserOptions) option.text = `${networkOf(option.value).option} ${browserCannotApply(option.value) ? '(Chromium only)' : applier.active ? '(the lab sets it)' : '(a label: you set it)'}`;
    const n = networkOf(select.value);
    const cannot = browserCannotApply(n.id);
    if (cannot) why.textContent = `${cannot}.`;
    else if (!n.labSets) why.textContent = devtoolsWhy(applier, where);
    else why.textContent = n.ownLab && !inLab?.includes(n.id) ? `${notInThisLab(n)}.` : n.why;
  };
  select.addEventListener('change', show);
  applier.onChange(show);
  show();
}

/**
 * One checkbox per server of the registry, in its order, each with a place for the reason it
 * cannot run here (the lab's, or the page's preflight's: common/setup/servers.js unavailableReason).
 * @param {HTMLFieldSetElement} fieldset
 */
function addServerBoxes(fieldset) {
  return servers.map((s) => {
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'servers', value: s.id });
    const why = Object.assign(document.createElement('span'), { className: 'why', id: `why-${s.id}`, hidden: true });
    box.setAttribute('aria-describedby', why.id);
    const label = document.createElement('label');
    label.append(box, ` ${s.label}`);
    fieldset.append(label, why);
    return { box, why };
  });
}

// The form's number inputs; their labels and bounds are the settings' own (common/setup/settings.js fields).
/** @type {NumberInput[]} */
const numberInputs = ['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight'];

/** @param {SettingsFormElement} form */
function labelNumberInputs(form) {
  for (const name of numberInputs) {
    const { min, max, integer } = /** @type {import('../../common/setup/settings.js').Field} */ (fields[name]);
    Object.assign(form.elements[name], { min: String(min), max: String(max), step: integer ? '1' : 'any' });
    /** @type {NodeListOf<HTMLLabelElement>} each input is in its label */ (form.elements[name].labels)[0].prepend(`${labelWithUnit(name)} `);
  }
}

/** An input's number, NaN when empty (for the settings' bounds to name). @param {HTMLInputElement} input */
function numberIn(input) {
  const text = input.value.trim();
  return text === '' ? NaN : Number(text);
}

const traceWhy =
  "Each way, the preset's constant rate or a trace in mahimahi's format: one line per millisecond at which a " +
  `${traceBounds.slotBytes.toLocaleString('en')}-byte packet may leave, repeated lines for more, the whole repeated. The preset still gives the ` +
  "round trip and the queue. The markov traces vary around a preset's rate every half second; a file of your own " +
  `(at most ${traceBounds.maxTextBytes / 1024 / 1024} MiB) is checked by the lab and kept while it runs.`;

/** What a capture holds, for every form that offers one. */
export const captureWhy =
  'Capture: the emulator writes each run as two pcapng files in the lab\'s capture folder (the run\'s result names them): ' +
  'what entered it, each drop marked with its cause, and what left it, with the browser\'s TLS keys of the run where the lab ' +
  'has them. Each packet\'s headers by default; whole packets (larger files) let Wireshark decrypt HTTP/2 and HTTP/3.';

const untilDecidedWhy =
  `Until decided: the servers run ${untilDecided.firstRoundRepeats} repeats, then ${untilDecided.roundRepeats} more at a time, until every verdict is ` +
  'decided (faster, slower or no meaningful difference; the A/A control holds none back) or the cap is reached. Each look at the runs ' +
  `needs a higher level than ${levelText(verdictLevel)}, and a look whose runs cannot decide anything spends none of the rate, so that over ` +
  `all looks and all comparisons of the experiment a false faster or slower stays within ${levelText(1 - verdictLevel)}; the verdicts say the level they needed. ` +
  `${aimPercentField.label}, in %: a point also stops once every open verdict could have found a difference that large with 80 % power; empty, none.`;

/**
 * The "Until decided" choice: its cap's and its aim's inputs labelled and bounded by the settings,
 * shown (and Repeats set aside) only while it is ticked.
 * @param {SettingsFormElement} form
 */
function untilDecidedChoice(form) {
  const { untilDecided: box, maxRepeats: cap, aimPercent: aim, repeats } = form.elements;
  // The aim's label names its unit, %: a number alone there could read as a ratio.
  for (const [input, field, label] of /** @type {const} */ ([[cap, maxRepeatsField, maxRepeatsField.label], [aim, aimPercentField, `${aimPercentField.label} (%)`]])) {
    Object.assign(input, { min: String(field.min), max: String(field.max), step: '1' });
    /** @type {NodeListOf<HTMLLabelElement>} the input is in its label */ (input.labels)[0].prepend(`${label} `);
  }
  /** @type {HTMLElement} */ (form.querySelector('#until-decided-why')).textContent = untilDecidedWhy;
  const show = () => {
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll('.until-decided-only'))) el.hidden = !box.checked;
    repeats.disabled = box.checked;
  };
  box.addEventListener('change', show);
  return {
    /** @param {number|undefined} maxRepeats @param {number|undefined} aimPercent */
    write(maxRepeats, aimPercent) {
      box.checked = maxRepeats != null;
      cap.value = String(maxRepeats ?? maxRepeatsField.default);
      aim.value = aimPercent == null ? '' : String(aimPercent);
      show();
    },
    /** The cap while ticked (NaN when empty, for the settings' bounds to name), else undefined. */
    read: () => (box.checked ? numberIn(cap) : undefined),
    /** The aim while ticked and given, else undefined (empty: none). */
    readAim: () => (box.checked && aim.value.trim() !== '' ? numberIn(aim) : undefined),
  };
}

// The option that asks for a file: not a name a trace can have (common/setup/trace-name.js).
const uploadChoice = ':upload';

/**
 * The two "rate" selects of a network the lab sets: the preset's rate, a trace the lab knows (GET
 * /api/traces), or a file uploaded to it (POST /api/traces), which is then chosen where it was asked for.
 * @param {SettingsFormElement} form
 * @param {(message: string) => void} say  shows a problem under the form
 */
function createTraceChoice(form, say) {
  /** @type {TraceSelect[]} */
  const names = ['traceDown', 'traceUp'];
  const selects = names.map((name) => form.elements[name]);
  const file = form.elements.traceFile;
  /** @type {{ select: HTMLSelectElement, previous: string }|null} the select that asked for a file */
  let asking = null;

  /** @param {import('../lab/api.js').TraceListing[]} traces */
  function fill(traces) {
    for (const select of selects) {
      const chosen = select.value;
      select.replaceChildren(new Option("the preset's rate", ''));
      for (const t of traces) select.append(Object.assign(new Option(t.name, t.name), { title: t.description }));
      select.append(new Option('Upload a trace file…', uploadChoice));
      select.value = traces.some((t) => t.name === chosen) ? chosen : '';
    }
  }
  const refresh = () => getTraces().then(({ traces }) => fill(traces));

  for (const select of selects) {
    let previous = '';
    select.addEventListener('focus', () => (previous = select.value));
    select.addEventListener('change', () => {
      if (select.value !== uploadChoice) return void (previous = select.value);
      asking = { select, previous };
      file.value = '';
      file.click();
    });
  }
  const giveUp = () => {
    if (asking) asking.select.value = asking.previous;
    asking = null;
  };
  file.addEventListener('cancel', giveUp);
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    const target = asking;
    if (!chosen || !target) return giveUp();
    try {
      const { name } = await uploadTrace(traceNameOf(chosen.name), await chosen.text());
      await refresh();
      target.select.value = name;
      say('');
    } catch (err) {
      say(`Trace ${chosen.name}: ${/** @type {Error} */ (err).message}`);
      target.select.value = target.previous;
    }
    asking = null;
  });
  fill([]);
  refresh().catch((err) => say(`The lab's traces: ${err.message}`));

  /** A trace's name per direction, null for the preset's rate. */
  return () => ({
    traceDown: form.elements.traceDown.value || null,
    traceUp: form.elements.traceUp.value || null,
  });
}

/**
 * The fields only some networks have, shown only under those (common/setup/networks.js), with their
 * notes and bounds.
 * @param {SettingsFormElement} form
 */
function networkFields(form) {
  /**
   * The fields of `selector`, shown only under a network `has`.
   * @param {string} selector
   * @param {(network: import('../../common/setup/networks.js').Network) => boolean} has
   */
  const showUnder = (selector, has) => {
    const fieldsThere = /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll(selector));
    form.elements.network.addEventListener('change', () => fieldsThere.forEach((el) => (el.hidden = !has(networkOf(form.elements.network.value)))));
  };
  showUnder('.packet-only', (n) => n.carries.loss); // the loss fields
  showUnder('.lab-sets-only', (n) => n.labSets); // the rate choices: DevTools has no traces
  showUnder('.captures-only', (n) => n.capturesPackets);
  /** @type {HTMLElement} */ (form.querySelector('#trace-why')).textContent = traceWhy;
  /** @type {HTMLElement} */ (form.querySelector('#capture-why')).textContent = captureWhy;
  form.elements.loss.max = String(fields.loss.max);
  form.elements.lossSeed.max = String(fields.lossSeed.max);
  /** @type {HTMLElement} */ (form.querySelector('#loss-seed-why')).textContent = fields.lossSeed.why;
}

/**
 * The servers' boxes and the A/A control.
 * @param {SettingsFormElement} form
 * @param {import('../lab/api.js').Lab} lab
 */
function serverChoice(form, lab) {
  const boxes = addServerBoxes(/** @type {HTMLFieldSetElement} */ (form.querySelector('fieldset')));
  // The servers the person (or the link) asked for: one that cannot run is unticked, and ticked
  // again when a later check finds it back.
  /** @type {Set<string>} */
  let wanted = new Set();
  for (const { box } of boxes) box.addEventListener('change', () => (box.checked ? wanted.add(box.value) : wanted.delete(box.value)));

  /**
   * Unticks and disables what cannot run here with its reason beside it (once after a row of
   * servers with the same reason, such as the Caddy family without Caddy); re-enables what came back.
   */
  function showAvailability() {
    const reasons = boxes.map(({ box }) => unavailableReason(lab, box.value, form.elements.network.value));
    boxes.forEach(({ box, why }, i) => {
      box.disabled = Boolean(reasons[i]);
      box.checked = !reasons[i] && wanted.has(box.value);
      why.textContent = reasons[i] ?? '';
      why.hidden = !reasons[i] || reasons[i + 1] === reasons[i];
    });
  }

  // The A/A control's server: the one a link or a loaded result named, while it is chosen; else
  // the default for the chosen servers (common/setup/servers.js defaultControlOf).
  let namedControl = '';
  const controlWhy = /** @type {HTMLElement} */ (form.querySelector('#control-why'));
  /** @param {string[]} chosen */
  const controlOf = (chosen) => (!chosen.length ? '' : chosen.includes(namedControl) ? namedControl : defaultControlOf(chosen));
  const chosenServers = () => boxes.filter(({ box }) => box.checked).map(({ box }) => box.value);
  function explainControl() {
    const control = controlOf(chosenServers());
    controlWhy.textContent = control
      ? `${form.elements.control.checked ? 'Measures' : 'Would measure'} ${serverLabel(control)} a second time in every repeat, as a server of its own: its ratio to the first is the noise of this set-up, and a difference inside it is not a finding.`
      : '';
  }

  return {
    showAvailability,
    explainControl,
    /**
     * Wants the settings' servers and names their control, for showAvailability and explainControl to show.
     * @param {import('../../common/report/result.js').Settings} settings
     */
    write(settings) {
      wanted = new Set(settings.servers);
      namedControl = settings.control ?? '';
      form.elements.control.checked = Boolean(settings.control);
    },
    /** The servers ticked, and the control's server ('' without one). */
    read() {
      const chosen = chosenServers();
      return { servers: chosen, control: form.elements.control.checked ? controlOf(chosen) : '' };
    },
    noneCanRun: () => boxes.every(({ box }) => box.disabled),
  };
}

/**
 * @param {SettingsFormElement} form
 * @param {HTMLElement} errorsEl  where what is wrong is said
 * @param {import('../lab/api.js').Lab} lab GET /api/servers
 * @param {PresetApplier} applier
 */
export function createSettingsForm(form, errorsEl, lab, applier) {
  fillPresetSelect(form.elements.preset);
  const serverInputs = serverChoice(form, lab);
  form.elements.network.addEventListener('change', serverInputs.showAvailability); // the link has its own checks
  const inLab = lab.networks ?? [];
  explainNetwork(form.elements.network, /** @type {HTMLElement} */ (form.querySelector('#preset-why')), applier, 'this tab', { inLab });
  networkFields(form);
  const chosenTraces = createTraceChoice(form, (message) => (errorsEl.textContent = message));
  /** @type {HTMLElement} */ (form.querySelector('#max-in-flight-why')).textContent = fields.maxInFlight.why;
  labelNumberInputs(form);
  const untilDecidedInputs = untilDecidedChoice(form);
  form.addEventListener('change', serverInputs.explainControl);

  /** @param {import('../../common/report/result.js').Settings} settings */
  function write(settings) {
    for (const key of /** @type {const} */ ([...numberInputs, 'connections', 'preset', 'network', 'loss'])) {
      form.elements[key].value = String(settings[key]);
    }
    form.elements.lossSeed.value = settings.lossSeed === undefined ? '' : String(settings.lossSeed); // empty: fresh each run
    untilDecidedInputs.write(settings.maxRepeats, settings.aimPercent);
    serverInputs.write(settings);
    form.elements.network.dispatchEvent(new Event('change'));
    serverInputs.explainControl();
  }

  /** @returns {ReturnType<typeof validateSettings>['settings']|null} null when something is wrong (said under the form) */
  function read() {
    /** @type {{ [field: string]: unknown, network?: string }} what validateSettings checks */
    const raw = {};
    for (const key of numberInputs) raw[key] = numberIn(form.elements[key]);
    raw.connections = form.elements.connections.value;
    raw.preset = form.elements.preset.value;
    raw.network = form.elements.network.value;
    // Only a network that carries loss loses packets: under any other, the field is hidden and means nothing.
    const network = networkOf(raw.network);
    raw.loss = network.carries.loss ? numberIn(form.elements.loss) : 0;
    // Left empty, the seed is drawn when the run starts (main.js): a link or a reload draws anew.
    if (network.carries.loss && form.elements.lossSeed.value.trim() !== '') raw.lossSeed = numberIn(form.elements.lossSeed);
    Object.assign(raw, serverInputs.read());
    raw.maxRepeats = untilDecidedInputs.read();
    raw.aimPercent = untilDecidedInputs.readAim();
    const { settings, errors } = validateSettings(raw);
    const messages = errors.map((e) => e.message);
    const missing = network.ownLab && !inLab.includes(network.id);
    if (missing) messages.unshift(`This lab runs without the ${network.title}: ${notInThisLab(network)}`);
    const cannot = browserCannotApply(network.id);
    if (cannot) messages.unshift(cannot);
    if (serverInputs.noneCanRun()) messages.unshift('No server can run in this browser: see Servers above');
    errorsEl.textContent = messages.join('\n');
    return errors.length || missing || cannot ? null : settings;
  }

  /**
   * The packet network's bursty loss: null with both fields empty, else { p, r } as typed (an
   * empty one is null), for the lab to check (PUT /api/network answers 400 naming the field).
   */
  function burst() {
    const [p, r] = /** @type {const} */ (['burst.p', 'burst.r']).map((name) => form.elements[name].value.trim());
    if (p === '' && r === '') return null;
    /** @param {string} text */
    const value = (text) => (text === '' ? null : Number(text));
    return { p: value(p), r: value(r) };
  }

  /** The traces chosen per direction, for a network the lab sets; none under any other. */
  function traces() {
    return networkOf(form.elements.network.value).labSets ? chosenTraces() : { traceDown: null, traceUp: null };
  }

  /** Each run's packets captured, whole or headers only; null when not asked for or the network sees no packets. */
  function capture() {
    if (!networkOf(form.elements.network.value).capturesPackets || !form.elements.capture.checked) return null;
    return { whole: form.elements.captureWhole.checked };
  }

  return { read, write, burst, traces, capture, showAvailability: serverInputs.showAvailability };
}
