import { describe, expect, it } from 'vitest';
import { floorMs } from './floor.js';
import { presetById } from '../setup/presets.js';

const base = { requests: 30, sizeBytes: 104_857, maxInFlight: 600 }; // 0.1 MiB, floored as the server does

describe('floorMs', () => {
  it('is bandwidth-bound for the classic Regular 2G point, whatever the protocol', () => {
    // 300 + 30 × 104,857 / 32,000 × 1000 = 300 + 98,303.4375; the latency bound is only 5 × 300.
    const preset = presetById('regular-2g');
    expect(floorMs({ ...base, preset, protocol: 'http/1.1' })).toBeCloseTo(98_603.4375, 6);
    expect(floorMs({ ...base, preset, protocol: 'h2' })).toBeCloseTo(98_603.4375, 6);
  });

  it('is latency-bound for many small requests, in rounds of the concurrency', () => {
    const preset = presetById('3g'); // 2,000 ms
    const o = { preset, requests: 600, sizeBytes: 0, maxInFlight: 600 };
    expect(floorMs({ ...o, protocol: 'http/1.1' })).toBe(100 * 2000); // six connections
    expect(floorMs({ ...o, protocol: 'h2' })).toBe(6 * 2000); // 100 streams
    expect(floorMs({ ...o, protocol: 'h2', maxStreams: 250 })).toBe(3 * 2000);
    expect(floorMs({ ...o, protocol: 'h2', maxInFlight: 50 })).toBe(12 * 2000); // the dispatch window limits
    expect(floorMs({ ...o, protocol: 'http/1.1', maxInFlight: 4 })).toBe(150 * 2000);
  });

  it('takes the larger of the two bounds', () => {
    const preset = presetById('wifi'); // 3,932,160 B/s, 2 ms
    const o = { preset, requests: 100, sizeBytes: 1024, maxInFlight: 600 };
    // bandwidth: 2 + 102,400 / 3,932,160 × 1000 = 28.0417 ms; latency: h1 17 rounds × 2, h2 1 round × 2
    expect(floorMs({ ...o, protocol: 'http/1.1' })).toBe(34);
    expect(floorMs({ ...o, protocol: 'h2' })).toBeCloseTo(2 + 102_400 / 3_932.16, 9);
  });

  it('uses the latency alone when only latency is throttled', () => {
    const preset = { downloadBps: -1, uploadBps: -1, latencyMs: 40 };
    expect(floorMs({ preset, requests: 100, sizeBytes: 10 ** 9, maxInFlight: 600, protocol: 'http/1.1' })).toBe(17 * 40);
  });

  it('is null without throttling and Infinity offline', () => {
    expect(floorMs({ ...base, preset: presetById('no-throttling'), protocol: 'h2' })).toBeNull();
    expect(floorMs({ ...base, preset: presetById('offline'), protocol: 'h2' })).toBe(Infinity);
  });

  it('refuses a protocol it has no model for', () => {
    expect(() => floorMs({ ...base, preset: presetById('dsl'), protocol: '' })).toThrow(/'http\/1\.1', 'h2' or 'h3'/);
  });

  it('takes HTTP/3 streams as HTTP/2 streams: the same slots, the same floor', () => {
    const o = { ...base, preset: presetById('slow-4g'), requests: 300, sizeBytes: 0, maxInFlight: 600, maxStreams: 100 };
    expect(floorMs({ ...o, protocol: 'h3' })).toBe(floorMs({ ...o, protocol: 'h2' }));
    expect(floorMs({ ...o, protocol: 'h3' })).toBeLessThan(floorMs({ ...o, protocol: 'http/1.1' }));
  });
});
