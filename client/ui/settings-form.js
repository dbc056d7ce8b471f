// The set-up form: fills itself from settings and reads back what the user typed, validated by
// the one settings module.
import { describePreset, presets } from '../../common/presets.js';
import { limits, validateSettings } from '../lab/settings.js';

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

export function createSettingsForm(form, errorsEl) {
  fillPresetSelect(form.elements.preset);
  form.querySelector('#max-in-flight-why').textContent = limits.maxInFlight.why;
  for (const field of ['sizeMiB', 'delayMs']) form.elements[field].max = limits[field].max;

  function write(settings) {
    for (const key of ['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight', 'connections', 'preset']) {
      form.elements[key].value = settings[key];
    }
    for (const box of form.querySelectorAll('input[name=servers]')) box.checked = settings.servers.includes(box.value);
  }

  function read() {
    const raw = {};
    for (const key of ['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight']) {
      const text = form.elements[key].value.trim();
      raw[key] = text === '' ? NaN : Number(text);
    }
    raw.connections = form.elements.connections.value;
    raw.preset = form.elements.preset.value;
    raw.servers = [...form.querySelectorAll('input[name=servers]:checked')].map((b) => b.value);
    const { settings, errors } = validateSettings(raw);
    errorsEl.textContent = errors.map((e) => e.message).join('\n');
    return errors.length ? null : settings;
  }

  return { read, write };
}
