// The set-up form: fills itself from settings and reads back what the user typed, validated by
// the one settings module.
import { describePreset, presets } from '../../common/presets.js';
import { servers, unavailableReason } from '../../common/servers.js';
import { limits, validateSettings } from '../../common/settings.js';

/** Fills a <select> with every preset, current and legacy groups apart, labelled as DevTools does. */
export function fillPresetSelect(select) {
  for (const group of ['current', 'legacy']) {
    const optgroup = Object.assign(document.createElement('optgroup'), {
      label: group === 'current' ? 'Current DevTools presets' : 'Legacy presets (the classic experiment)',
    });
    for (const p of presets.filter((x) => x.group === group)) optgroup.append(new Option(describePreset(p), p.id));
    select.append(optgroup);
  }
}

const networkWhy = {
  devtools:
    'DevTools throttling is request-level and the page cannot set it: pick the same preset in DevTools → Network → throttling ' +
    '(for the Page load panel, in its window). The preset labels the result; "Measure network" records what the network really did.',
  link:
    'The lab link shapes every connection below TLS, handshakes included, with one bandwidth for all of them: the lab sets it to ' +
    'the preset for the run and puts it back afterwards. Nothing to set in DevTools (leave its throttling off).',
};

const networkLabels = { devtools: 'DevTools (you set it)', link: 'Lab link (the lab sets it)' };

/** Fills a "Throttled by" select and keeps its "why" paragraph in step with it. */
export function explainNetwork(select, why) {
  for (const [value, label] of Object.entries(networkLabels)) select.append(new Option(label, value));
  const show = () => (why.textContent = networkWhy[select.value]);
  select.addEventListener('change', show);
  show();
}

/**
 * One checkbox per server of the registry, in its order; a server this lab cannot run (Caddy not
 * installed, or gone) stays in the list, disabled, and one line under the list says why.
 */
function addServerBoxes(fieldset, lab) {
  const reasons = new Set();
  for (const s of servers) {
    const why = unavailableReason(lab, s.id);
    const box = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'servers', value: s.id, disabled: Boolean(why) });
    const label = Object.assign(document.createElement('label'), { title: why ?? '' });
    label.append(box, ` ${s.label}`);
    fieldset.append(label);
    if (why) reasons.add(why);
  }
  if (reasons.size) fieldset.append(Object.assign(document.createElement('p'), { className: 'why', id: 'servers-unavailable', textContent: [...reasons].join(' · ') }));
}

/** @param {object} lab GET /api/servers */
export function createSettingsForm(form, errorsEl, lab) {
  fillPresetSelect(form.elements.preset);
  addServerBoxes(form.querySelector('fieldset'), lab);
  explainNetwork(form.elements.network, form.querySelector('#preset-why'));
  form.querySelector('#max-in-flight-why').textContent = limits.maxInFlight.why;
  for (const field of ['sizeMiB', 'delayMs']) form.elements[field].max = limits[field].max;

  function write(settings) {
    for (const key of ['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight', 'connections', 'preset', 'network']) {
      form.elements[key].value = settings[key];
    }
    form.elements.network.dispatchEvent(new Event('change'));
    for (const box of form.querySelectorAll('input[name=servers]')) box.checked = !box.disabled && settings.servers.includes(box.value);
  }

  function read() {
    const raw = {};
    for (const key of ['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight']) {
      const text = form.elements[key].value.trim();
      raw[key] = text === '' ? NaN : Number(text);
    }
    raw.connections = form.elements.connections.value;
    raw.preset = form.elements.preset.value;
    raw.network = form.elements.network.value;
    raw.servers = [...form.querySelectorAll('input[name=servers]:checked')].map((b) => b.value);
    const { settings, errors } = validateSettings(raw);
    errorsEl.textContent = errors.map((e) => e.message).join('\n');
    return errors.length ? null : settings;
  }

  return { read, write };
}
