import { afterEach, describe, expect, it } from 'vitest';
import { pageLoadFieldError } from '../report/page-load.js';
import { defaultServerCaps } from './server-caps.js';
import { serverIds } from './servers.js';
import { adoptServerLimits, defaults, fields, labelWithUnit, limits, settingsFromQuery, settingsToQuery, validateField, validateSettings, withLossSeed } from './settings.js';

const fieldsOf = (errors) => errors.map((e) => e.field);

describe('defaults and limits', () => {
  it('are the documented values', () => {
    expect(defaults).toEqual({
      requests: 100, sizeMiB: 0.1, delayMs: 10, repeats: 10, maxInFlight: 600,
      servers: serverIds.filter((id) => !id.startsWith('nginx-')), control: '', connections: 'cold', preset: 'no-throttling', network: 'devtools', loss: 0, lossSeed: undefined,
    });
    expect(limits.lossSeed).toMatchObject({ min: 0, max: 4294967295, integer: true });
    expect(limits.loss).toMatchObject({ min: 0, max: 50, unit: '%' });
    expect(limits.requests).toMatchObject({ min: 1, max: 10000, integer: true });
    expect(limits.sizeMiB).toMatchObject({ min: 0, max: 64, unit: 'MiB' });
    expect(limits.delayMs).toMatchObject({ min: 0, max: 60000, unit: 'ms' });
    expect(limits.repeats).toMatchObject({ min: 1, max: 100, integer: true });
    expect([limits.loss, limits.sizeMiB, limits.delayMs].some((l) => l.integer)).toBe(false);
    expect(limits.maxInFlight).toMatchObject({ min: 1, max: 10000, integer: true });
    expect(limits.maxInFlight.why).toMatch(/ERR_INSUFFICIENT_RESOURCES/);
    expect(limits.preset.oneOf).toContain('regular-2g');
  });

  it('are read from one declaration per setting: flag, query key, label and default', () => {
    for (const [name, f] of Object.entries(fields)) {
      expect(f, name).toMatchObject({ flag: expect.any(String), query: expect.any(String), label: expect.any(String) });
      expect(f.default, name).toEqual(defaults[name]);
    }
    expect([fields.sizeMiB.flag, fields.sizeMiB.query, labelWithUnit('sizeMiB')]).toEqual(['size', 'size', 'Size (MiB)']);
    expect(settingsToQuery({ ...defaults, maxInFlight: 5 })).toBe(`${fields.maxInFlight.query}=5`);
  });

  it('cannot be changed by a caller', () => {
    expect(() => { defaults.requests = 5; }).toThrow(TypeError);
    expect(() => defaults.servers.pop()).toThrow(TypeError);
  });
});

describe('the base seed of the losses', () => {
  it('is drawn fresh for each experiment on a network that loses packets, within its bounds, unless one is given', () => {
    const lossy = { ...defaults, network: 'packet', loss: 2 };
    const [a, b] = [withLossSeed(lossy).lossSeed, withLossSeed(lossy).lossSeed];
    expect(a).not.toBe(b);
    for (const seed of [a, b]) expect(validateField('lossSeed', seed)).toEqual({ value: seed });
    expect(withLossSeed({ ...lossy, lossSeed: 7 }).lossSeed).toBe(7);
    expect(withLossSeed({ ...lossy, lossSeed: 0 }).lossSeed).toBe(0);
    expect(withLossSeed({ ...defaults, network: 'link' }).lossSeed).toBeUndefined();
    expect(settingsFromQuery('network=packet&loss=1').settings.lossSeed).toBeUndefined(); // a link leaves it to the run
    expect(settingsFromQuery('network=packet&loss=1&lossSeed=42').settings.lossSeed).toBe(42);
  });
});

describe('validateSettings', () => {
  it('fills missing fields with defaults and accepts good values, numbers or decimal text', () => {
    const { settings, errors } = validateSettings({ requests: '3750', sizeMiB: 1, delayMs: '0', preset: 'wifi', connections: 'warm' });
    expect(errors).toEqual([]);
    expect(settings).toEqual({ ...defaults, requests: 3750, sizeMiB: 1, delayMs: 0, preset: 'wifi', connections: 'warm' });
  });

  it('accepts the bounds themselves', () => {
    const edges = { requests: 10000, sizeMiB: 0, delayMs: 60000, repeats: 1, maxInFlight: 1, servers: ['h1'] };
    expect(validateSettings(edges).errors).toEqual([]);
  });

  it('reports each bad value with its bounds, never clamps, and keeps the default for it', () => {
    const { settings, errors } = validateSettings({
      requests: 0, sizeMiB: 64.5, delayMs: -1, repeats: 2.5, maxInFlight: NaN,
      servers: [], connections: 'hot', preset: 'Regular 2G',
    });
    expect(fieldsOf(errors)).toEqual(['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight', 'servers', 'connections', 'preset']);
    expect(errors.map((e) => e.message)).toEqual([
      'Requests must be an integer from 1 to 10,000',
      'Size must be a number from 0 to 64 MiB',
      'Delay must be a number from 0 to 60,000 ms',
      'Repeats must be an integer from 1 to 100',
      'Max in flight must be an integer from 1 to 10,000',
      `Servers must be one or more of ${serverIds.join(', ')}`,
      'Connections must be cold or warm',
      expect.stringMatching(/^Preset must be one of no-throttling, 3g, .*wifi$/),
    ]);
    expect(settings).toEqual({ ...defaults });
  });

  it('rejects text that is not a plain decimal', () => {
    for (const text of ['', ' ', '1e3', '0x10', '-5', '10abc', 'Infinity', '1,000']) {
      expect(validateField('requests', text).error?.field, text).toBe('requests');
    }
    expect(validateField('sizeMiB', ' 0.5 ')).toEqual({ value: 0.5 });
    expect(validateField('sizeMiB', '.5')).toEqual({ value: 0.5 });
  });

  it('puts servers in canonical order and refuses unknown ones', () => {
    expect(validateSettings({ servers: ['h2-node', 'h1', 'h1'] }).settings.servers).toEqual(['h1', 'h2-node']);
    expect(fieldsOf(validateSettings({ servers: ['h1', 'h3'] }).errors)).toEqual(['servers']);
    expect(fieldsOf(validateSettings({ servers: 'h1' }).errors)).toEqual(['servers']);
  });

  it('checks the sweep state', () => {
    const sweep = { param: 'requests', values: '6, 30' };
    expect(validateSettings({ sweep })).toEqual({ settings: { ...defaults, sweep }, errors: [] });
    expect(fieldsOf(validateSettings({ sweep: { param: 'servers', values: 'h1' } }).errors)).toEqual(['sweep']);
    expect(fieldsOf(validateSettings({ sweep: { param: 'requests', values: [6] } }).errors)).toEqual(['sweep']);
    expect(validateSettings({}).settings).not.toHaveProperty('sweep');
  });

  it('checks the cap of repeats until decided, naming it and its bounds', () => {
    expect(validateSettings({ maxRepeats: '12' })).toEqual({ settings: { ...defaults, maxRepeats: 12 }, errors: [] });
    expect(validateSettings({}).settings).not.toHaveProperty('maxRepeats');
    for (const bad of [3, 101, 6.5, NaN, 'ten']) {
      expect(validateSettings({ maxRepeats: bad }).errors).toEqual([{ field: 'maxRepeats', message: 'Until decided, at most must be an integer from 4 to 100 repeats (the first round alone runs 4)' }]);
    }
  });

  it('checks the difference aimed at, only with Until decided, naming it and its bounds', () => {
    expect(validateSettings({ maxRepeats: 20, aimPercent: '10' })).toEqual({ settings: { ...defaults, maxRepeats: 20, aimPercent: 10 }, errors: [] });
    expect(validateSettings({ maxRepeats: 20 }).settings).not.toHaveProperty('aimPercent');
    for (const bad of [0, 51, 7.5, NaN, 'ten']) {
      expect(validateSettings({ maxRepeats: 20, aimPercent: bad }).errors).toEqual([{ field: 'aimPercent', message: 'Aim (difference to find) must be an integer from 1 to 50 %' }]);
    }
    expect(validateSettings({ aimPercent: 10 }).errors).toEqual([{ field: 'aimPercent', message: 'Aim (difference to find) only with Until decided, which it stops' }]);
  });
});

describe('URL state', () => {
  it('omits every default', () => {
    expect(settingsToQuery(defaults)).toBe('');
    // Every server is more than the default selection, which leaves nginx out (servers.js byDefault).
    expect(settingsToQuery({ ...defaults, servers: [...serverIds] })).toBe(`servers=${serverIds.join('%2C')}`);
  });

  it('takes an A/A control only among the chosen servers', () => {
    expect(validateSettings({ servers: ['caddy-h2', 'caddy-h3'], control: 'caddy-h2' })).toMatchObject({ settings: { control: 'caddy-h2' }, errors: [] });
    expect(validateSettings({ servers: ['caddy-h2'], control: 'h1' }).errors).toEqual([{ field: 'control', message: 'A/A control must be one of the chosen servers (caddy-h2), not h1' }]);
    expect(validateSettings({ control: 'nginx' }).errors[0].field).toBe('control');
    expect(settingsFromQuery('?servers=h1,h2-node&control=h1').settings.control).toBe('h1');
  });

  it('writes only what differs, under the short keys', () => {
    const q = new URLSearchParams(settingsToQuery({ ...defaults, sizeMiB: 2, servers: ['h1', 'h2-node'], preset: 'slow-4g' }));
    expect([...q]).toEqual([['size', '2'], ['servers', 'h1,h2-node'], ['preset', 'slow-4g']]);
  });

  it('round-trips every field and the sweep', () => {
    const settings = {
      requests: 3750, sizeMiB: 0.25, delayMs: 30, repeats: 5, maxInFlight: 100,
      servers: ['h1', 'h2-node'], control: 'h2-node', connections: 'warm', preset: 'regular-2g', network: 'packet', loss: 2, lossSeed: 7,
      sweep: { param: 'preset', values: 'Regular 2G, good-3g, WiFi' }, maxRepeats: 16, aimPercent: 10,
    };
    const query = settingsToQuery(settings);
    expect(settingsFromQuery(`?${query}`)).toEqual({ settings, errors: [] });
    expect(settingsFromQuery(new URLSearchParams(query)).settings).toEqual(settings);
  });

  it('refuses an unknown network, Offline through the lab link or the packet network, and loss out of bounds', () => {
    expect(validateSettings({ network: 'netem' }).errors).toEqual([{ field: 'network', message: 'Network must be devtools, link or packet' }]);
    expect(validateSettings({ network: 'link', preset: 'offline' }).errors[0]).toMatchObject({ field: 'preset', message: expect.stringMatching(/Offline.*lab link/) });
    expect(validateSettings({ network: 'packet', preset: 'offline' }).errors[0]).toMatchObject({ field: 'preset', message: expect.stringMatching(/Offline.*packet network/) });
    expect(validateSettings({ network: 'packet', loss: 51 }).errors).toEqual([{ field: 'loss', message: 'Loss must be a number from 0 to 50 %' }]);
    expect(validateSettings({ network: 'devtools', preset: 'offline' }).errors).toEqual([]);
  });

  it('gives defaults for an empty query and ignores unknown keys', () => {
    expect(settingsFromQuery('')).toEqual({ settings: { ...defaults }, errors: [] });
    expect(settingsFromQuery('?utm_source=x&requests=7')).toEqual({ settings: { ...defaults, requests: 7 }, errors: [] });
  });

  it('reports each bad value and uses the default for it', () => {
    const { settings, errors } = settingsFromQuery(
      '?requests=abc&size=1e999&delay=-3&repeats=0&maxInFlight=1.5&servers=h1,h9&connections=x&preset=nope&sweep=servers&maxRepeats=2',
    );
    expect(fieldsOf(errors)).toEqual(['requests', 'sizeMiB', 'delayMs', 'repeats', 'maxInFlight', 'servers', 'connections', 'preset', 'sweep', 'maxRepeats']);
    expect(settings).toEqual({ ...defaults });
  });

  it('reports repeated keys and sweepValues without sweep', () => {
    const { settings, errors } = settingsFromQuery('?size=1&size=2&sweepValues=1,2&delay=20');
    expect(errors).toEqual([
      { field: 'sizeMiB', message: 'size is given 2 times in the link; give it once' },
      { field: 'sweep', message: 'sweepValues needs sweep' },
    ]);
    expect(settings).toEqual({ ...defaults, delayMs: 20 });
  });
});

describe('bytes in flight', () => {
  it('rejects a set-up that would hold more than 1 GiB of bodies in flight, naming both fields', () => {
    const { errors } = validateSettings({ requests: 1000, sizeMiB: 64, maxInFlight: 600 });
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toMatch(/Max in flight × Size/);
    expect(validateSettings({ requests: 1000, sizeMiB: 1, maxInFlight: 600 }).errors).toEqual([]);
  });
});

describe('the running lab\'s caps', () => {
  afterEach(() => adoptServerLimits(defaultServerCaps));

  it('replace the defaults in every rule that depends on them', () => {
    adoptServerLimits({ maxSizeMiB: 8, maxDelayMs: 1000, maxAssets: 5, maxStreams: 100 });
    expect(validateField('sizeMiB', '10').error.message).toBe('Size must be a number from 0 to 8 MiB');
    expect(validateField('sizeMiB', '8').value).toBe(8);
    expect(validateField('delayMs', 1001).error.message).toBe('Delay must be a number from 0 to 1,000 ms');
    expect(pageLoadFieldError('assets', 6)).toBe('must be an integer from 1 to 5');
    expect(pageLoadFieldError('assetKiB', 8 * 1024 + 1)).toBe('must be a number from 0 to 8,192 KiB');
    expect(pageLoadFieldError('thinkMs', 1000)).toBeNull();
  });

  it('also allow more than the defaults when the servers do', () => {
    adoptServerLimits({ maxSizeMiB: 256 });
    expect(validateField('sizeMiB', '100').value).toBe(100);
  });

  it('ignore what is not a number', () => {
    adoptServerLimits({ maxSizeMiB: 'lots', maxDelayMs: null });
    expect(limits.sizeMiB.max).toBe(64);
    expect(limits.delayMs.max).toBe(60_000);
  });
});
