import { describe, expect, it } from 'vitest';
import { defaults, limits } from './settings.js';
import { classicSweeps, planSweep, sweepParams } from './sweep.js';

const base = { ...defaults, servers: [...defaults.servers] };
const values = (plan) => plan.points.map((p) => p.value);

describe('sweepParams', () => {
  it('labels every sweepable setting with its unit', () => {
    expect(sweepParams).toEqual({ requests: 'Requests', sizeMiB: 'Size (MiB)', delayMs: 'Delay (ms)', preset: 'Network preset', loss: 'Loss (%)' });
    expect(Object.keys(sweepParams)).toEqual(limits.sweep.params);
  });
});

describe('planSweep', () => {
  it('parses comma and space separated numbers in the given order', () => {
    const plan = planSweep('requests', '750, 6 30,150  3750', base);
    expect(plan.errors).toEqual([]);
    expect(values(plan)).toEqual([750, 6, 30, 150, 3750]);
    expect(plan.points.map((p) => p.label)).toEqual(['750', '6', '30', '150', '3,750']);
  });

  it('replaces only the swept field in a copy of the base settings', () => {
    const plan = planSweep('delayMs', '0, 40', { ...base, sweep: { param: 'delayMs', values: '0, 40' } });
    expect(plan.points[1].settings).toEqual({ ...base, delayMs: 40 });
    expect(plan.points[0].settings.servers).not.toBe(plan.points[1].settings.servers);
  });

  it('drops duplicates, by value', () => {
    expect(values(planSweep('sizeMiB', '0.5, .5, 1, 0.50, 1', base))).toEqual([0.5, 1]);
    expect(values(planSweep('preset', 'wifi, WiFi, DSL', base))).toEqual(['wifi', 'dsl']);
  });

  it('finds presets by id or label, case-insensitive', () => {
    const plan = planSweep('preset', 'Regular 2G, good-3g, WiFi; slow 4g', base);
    expect(plan.errors).toEqual([]);
    expect(values(plan)).toEqual(['regular-2g', 'good-3g', 'wifi', 'slow-4g']);
    expect(plan.points.map((p) => p.label)).toEqual(['Regular 2G', 'Good 3G', 'WiFi', 'Slow 4G']);
    expect(values(planSweep('preset', 'gprs dsl 3g', base))).toEqual(['gprs', 'dsl', '3g']);
  });

  it('reports each bad value with the bounds and keeps the good ones', () => {
    const plan = planSweep('requests', '6, 0, 2.5, abc, 10001, 30', base);
    expect(values(plan)).toEqual([6, 30]);
    expect(plan.errors.map((e) => e.value)).toEqual(['0', '2.5', 'abc', '10001']);
    expect(plan.errors[0]).toEqual({ field: 'sweep', value: '0', message: '"0": Requests must be an integer from 1 to 10,000' });
    expect(planSweep('sizeMiB', '65', base).errors[0].message).toBe('"65": Size must be a number from 0 to 64 MiB');
    expect(planSweep('delayMs', '-1', base).errors[0].message).toBe('"-1": Delay must be a number from 0 to 60,000 ms');
    expect(planSweep('preset', 'Regular 2G, LTE', base).errors.map((e) => e.value)).toEqual(['LTE']);
  });

  it('needs at least one value and a sweepable parameter', () => {
    expect(planSweep('requests', ' , ', base).errors).toHaveLength(1);
    expect(planSweep('repeats', '1, 2', base)).toEqual({ points: [], errors: [expect.objectContaining({ field: 'sweep', value: null })] });
  });

  it('allows at most 20 points', () => {
    const text = Array.from({ length: 25 }, (_, i) => i + 1).join(' ');
    const plan = planSweep('requests', text, base);
    expect(plan.points).toHaveLength(20);
    expect(plan.errors.map((e) => e.message)).toEqual(['A sweep has at most 20 points; this one has 25']);
    expect(planSweep('requests', text.split(' ').slice(0, 20).join(' '), base).errors).toEqual([]);
  });
});

describe('classicSweeps', () => {
  const expand = (id) => {
    const c = classicSweeps.find((s) => s.id === id);
    const plan = planSweep(c.param, c.values, { ...base, ...c.base });
    expect(plan.errors).toEqual([]);
    return plan.points.map((p) => p.settings);
  };
  const pick = (s) => ({ requests: s.requests, sizeMiB: s.sizeMiB, delayMs: s.delayMs, preset: s.preset, repeats: s.repeats });

  it('has the five grids of the classic experiment', () => {
    expect(classicSweeps.map((s) => s.id)).toEqual(['1', '2a', '2b', '3', '4']);
  });

  it('1: delay 0–40 ms at 100 × 0.1 MiB', () => {
    expect(expand('1').map(pick)).toEqual([0, 10, 20, 30, 40].map((delayMs) => (
      { requests: 100, sizeMiB: 0.1, delayMs, preset: 'no-throttling', repeats: 10 })));
  });

  it('2a and 2b: 6–3,750 requests at 10 and 30 ms', () => {
    for (const [id, delayMs] of [['2a', 10], ['2b', 30]]) {
      expect(expand(id).map(pick)).toEqual([6, 30, 150, 750, 3750].map((requests) => (
        { requests, sizeMiB: 0.1, delayMs, preset: 'no-throttling', repeats: 10 })));
    }
  });

  it('3: 0.2–2.0 MiB in steps of 0.2 at 30 requests', () => {
    const settings = expand('3');
    expect(settings.map((s) => s.sizeMiB)).toEqual([0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2]);
    for (const s of settings) expect(pick(s)).toMatchObject({ requests: 30, delayMs: 10, preset: 'no-throttling' });
  });

  it('4: six legacy presets at 30 × 0.1 MiB, delay 10 ms', () => {
    expect(expand('4').map(pick)).toEqual(['regular-2g', 'good-2g', 'regular-3g', 'good-3g', 'regular-4g', 'wifi'].map((preset) => (
      { requests: 30, sizeMiB: 0.1, delayMs: 10, preset, repeats: 10 })));
  });
});
