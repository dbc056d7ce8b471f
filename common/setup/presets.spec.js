import { describe, expect, it } from 'vitest';
import { defaultPresetId, describePreset, isOffline, isThrottled, presetById, presets } from './presets.js';

// Typed by hand from DevTools' own tables (devtools-frontend front_end/core/sdk/NetworkManager.ts
// for the current presets, the older NetworkConditionsSelector.js for the legacy ones), not from
// presets.js, so a slip in either shows.
const expected = {
  'no-throttling': ['No throttling', 'current', -1, -1, 0],
  '3g': ['3G', 'current', 50000, 50000, 2000],
  'slow-4g': ['Slow 4G', 'current', 180000, 84375, 562.5],
  'fast-4g': ['Fast 4G', 'current', 1012500, 168750, 165],
  offline: ['Offline', 'current', 0, 0, 0],
  gprs: ['GPRS', 'legacy', 6400, 2560, 500],
  'regular-2g': ['Regular 2G', 'legacy', 32000, 6400, 300],
  'good-2g': ['Good 2G', 'legacy', 57600, 19200, 150],
  'regular-3g': ['Regular 3G', 'legacy', 96000, 32000, 100],
  'good-3g': ['Good 3G', 'legacy', 196608, 96000, 40],
  'regular-4g': ['Regular 4G', 'legacy', 524288, 393216, 20],
  dsl: ['DSL', 'legacy', 262144, 131072, 5],
  wifi: ['WiFi', 'legacy', 3932160, 1966080, 2],
};

describe('presets', () => {
  it('holds exactly the presets of DevTools\' tables, with their numbers', () => {
    expect(presets.map((p) => p.id).sort()).toEqual(Object.keys(expected).sort());
    for (const p of presets) {
      const [label, group, downloadBps, uploadBps, latencyMs] = expected[p.id];
      expect({ id: p.id, label: p.label, group: p.group, downloadBps: p.downloadBps, uploadBps: p.uploadBps, latencyMs: p.latencyMs })
        .toEqual({ id: p.id, label, group, downloadBps, uploadBps, latencyMs });
      expect(p.source).toMatch(/NetworkManager\.ts|NetworkConditionsSelector\.js/);
    }
  });

  it('has unique kebab-case ids and unique labels', () => {
    const ids = presets.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(presets.map((p) => p.label.toLowerCase())).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('keeps the former names of renamed presets', () => {
    expect(presetById('3g').formerly).toBe('Slow 3G');
    expect(presetById('slow-4g').formerly).toBe('Fast 3G');
    expect(presetById('fast-4g')).not.toHaveProperty('formerly');
  });

  it('cannot be changed by a caller', () => {
    expect(() => { presetById('wifi').latencyMs = 0; }).toThrow(TypeError);
    expect(() => presets.push({})).toThrow(TypeError);
  });

  it('finds presets by id and nothing else', () => {
    expect(presetById('regular-2g').label).toBe('Regular 2G');
    expect(presetById('Regular 2G')).toBeUndefined();
    expect(presetById('nope')).toBeUndefined();
    expect(presetById(defaultPresetId).label).toBe('No throttling');
  });

  it('tells throttled from unthrottled and offline', () => {
    expect(isThrottled(presetById('no-throttling'))).toBe(false);
    expect(isThrottled(presetById('offline'))).toBe(false);
    expect(isThrottled(presetById('wifi'))).toBe(true);
    expect(isThrottled({ downloadBps: -1, uploadBps: -1, latencyMs: 40 })).toBe(true);
    expect(isOffline(presetById('offline'))).toBe(true);
    expect(isOffline(presetById('no-throttling'))).toBe(false);
  });

  it('describes presets in decimal units', () => {
    expect(describePreset(presetById('slow-4g'))).toBe('Slow 4G · 180 kB/s down · 84.4 kB/s up · 562.5 ms');
    expect(describePreset(presetById('3g'))).toBe('3G · 50 kB/s down · 50 kB/s up · 2,000 ms');
    expect(describePreset(presetById('fast-4g'))).toBe('Fast 4G · 1.01 MB/s down · 169 kB/s up · 165 ms');
    expect(describePreset(presetById('gprs'))).toBe('GPRS · 6.4 kB/s down · 2.56 kB/s up · 500 ms');
    expect(describePreset(presetById('wifi'))).toBe('WiFi · 3.93 MB/s down · 1.97 MB/s up · 2 ms');
    expect(describePreset(presetById('no-throttling'))).toBe('No throttling');
    expect(describePreset(presetById('offline'))).toBe('Offline · every request fails');
  });
});
