// The charts' pure parts: the synthetic result, shared bins, palette and the footer texts.
// Drawn charts are checked in median-bars.spec.js (chart.js on a do-nothing canvas) and, as pixels, in
// the browser tests (test/lab.test.js).
import { describe, expect, it } from 'vitest';
import { sharedBins, durationsByServer } from './distribution.js';
import { servers } from '../../common/setup/servers.js';
import { connectionColor, connectionPalette, modeColors, serverColors } from './palette.js';
import { browserName, pageLoadSettingsText, settingsText, sweepSettingsText } from './png.js';
import { samplePageLoads, sampleResult } from '../../test/fixtures/sample-result.js';
import { medianRun } from './waterfall.js';
import { pointsInAxisOrder, repeatsOf } from './setup.js';

describe('sampleResult', () => {
  const r = sampleResult({ requests: 100, repeats: 3 });

  it('follows the result schema', () => {
    expect(r.settings).toMatchObject({ requests: 100, repeats: 3, servers: ['h1', 'h2-spdy', 'h2-node'] });
    expect(r.runs).toHaveLength(9);
    for (const run of r.runs) {
      expect(run.requests).toHaveLength(100);
      expect(run.totalMs).toBe(Math.max(...run.requests.map((q) => q.endMs)));
      for (const q of run.requests) expect(q.endMs).toBeGreaterThan(q.startMs);
    }
    expect(Object.keys(r.summary)).toEqual(['h1', 'h2-spdy', 'h2-node']);
    expect(r.comparisons.map((c) => c.server)).toEqual(['h2-spdy', 'h2-node']);
    expect(r.floorMsByServer).toBeNull();
    expect(r.environment.preset.label).toBe('No throttling');
  });

  it('uses six HTTP/1.1 connections and one HTTP/2 connection, with fresh ids per cold repeat', () => {
    const h1 = r.runs.filter((x) => x.server === 'h1');
    expect(h1.map((x) => x.connections)).toEqual([6, 6, 6]);
    expect(new Set(h1[1].requests.map((q) => q.connectionId))).toEqual(new Set([7, 8, 9, 10, 11, 12]));
    expect(r.runs.filter((x) => x.server !== 'h1').every((x) => x.connections === 1)).toBe(true);
  });

  it('gives floors below every run under a preset', () => {
    const t = sampleResult({ requests: 30, sizeMiB: 0.01, repeats: 3, preset: 'regular-4g' });
    expect(Object.keys(t.floorMsByServer)).toEqual(['h1', 'h2-spdy', 'h2-node']);
    for (const run of t.runs) expect(run.totalMs).toBeGreaterThanOrEqual(t.floorMsByServer[run.server]);
  });

  it('marks failures and invalid runs', () => {
    const t = sampleResult({ repeats: 4, failures: 2, invalidRuns: 1 });
    expect(t.runs.every((x) => x.failures === 2)).toBe(true);
    expect(t.runs.filter((x) => !x.valid).map((x) => [x.server, x.repeat])).toEqual([['h2-spdy', 4]]);
    expect(t.summary['h2-spdy'].n).toBe(3);
  });
});

describe('sharedBins', () => {
  it('puts every value, the largest included, into a bin', () => {
    const values = sampleResult({ repeats: 2 }).runs.flatMap((x) => x.requests.map((q) => q.endMs - q.startMs));
    const b = sharedBins(values);
    expect(b.count).toBeGreaterThanOrEqual(8);
    expect(b.count).toBeLessThanOrEqual(61);
    expect(b.lo).toBeLessThanOrEqual(Math.min(...values));
    expect(b.hi).toBeGreaterThan(Math.max(...values));
  });

  it('sends a far tail into one overflow bin', () => {
    const values = [...Array.from({ length: 200 }, (_, i) => 10 + (i % 20)), 5000];
    const b = sharedBins(values);
    expect(b.overflowFrom).not.toBeNull();
    expect(b.hi).toBeLessThan(100);
  });

  it('copes with no values and with identical values', () => {
    expect(sharedBins([]).count).toBe(1);
    const b = sharedBins([7, 7, 7]);
    expect(b.lo).toBeLessThan(7);
    expect(b.hi).toBeGreaterThan(7);
  });

  it('takes only successful requests of valid runs', () => {
    const t = sampleResult({ repeats: 2, failures: 5, invalidRuns: 1 });
    const d = durationsByServer(t);
    expect(d.h1.values).toHaveLength(2 * 95);
    expect(d['h2-spdy'].values).toHaveLength(95);
  });
});

describe('palette', () => {
  it('has a distinct colour per server and twelve connection colours that repeat', () => {
    expect(new Set(Object.values(serverColors)).size).toBe(servers.length);
    expect(new Set(connectionPalette).size).toBe(12);
    expect(connectionColor(13)).toBe(connectionColor(1));
    expect(connectionColor(null)).not.toBe(connectionColor(1));
  });

  it('has four distinct mode colours, none a server colour', () => {
    expect(Object.keys(modeColors)).toEqual(['requested', 'preload', 'push', 'hints']);
    expect(new Set([...Object.values(modeColors), ...Object.values(serverColors)]).size).toBe(4 + servers.length);
  });
});

describe('footer texts', () => {
  it('describes a run on one line', () => {
    expect(settingsText(sampleResult({ repeats: 10 }))).toBe(
      'h2lab · 100 × 0.1 MiB · delay 10 ms · 10 repeats · cold · No throttling · Chrome 156 · 2026-11-21',
    );
    expect(settingsText(sampleResult({ requests: 3750, maxInFlight: 500, repeats: 1, preset: 'regular-3g' }))).toBe(
      'h2lab · 3,750 × 0.1 MiB · delay 10 ms · ≤ 500 in flight · 1 repeat · cold · Regular 3G via DevTools · Chrome 156 · 2026-11-21',
    );
  });

  it('describes a sweep by what varied', () => {
    const sweep = {
      param: 'delayMs',
      paramLabel: 'Delay (ms)',
      points: [0, 10].map((d) => ({ value: d, label: String(d), result: sampleResult({ delayMs: d }) })),
    };
    expect(sweepSettingsText(sweep)).toBe('h2lab · Delay (ms): 0, 10 · 100 × 0.1 MiB · 3 repeats · cold · No throttling · Chrome 156 · 2026-11-21');
  });

  it('leaves the swept loss out of what the points share', () => {
    const onPackets = (loss) => {
      const r = sampleResult({ preset: 'fast-4g' });
      r.settings = { ...r.settings, network: 'packet', loss };
      return { value: loss, label: String(loss), result: r };
    };
    const sweep = { param: 'loss', paramLabel: 'Loss (%)', points: [0, 2].map(onPackets) };
    expect(sweepSettingsText(sweep)).toBe('h2lab · Loss (%): 0, 2 · 100 × 0.1 MiB · delay 10 ms · 3 repeats · cold · Fast 4G via the packet network · Chrome 156 · 2026-11-21');
    expect(settingsText(onPackets(2).result)).toContain('Fast 4G via the packet network, 2 % loss');
    // Bursts alone are loss too: the network's conditions say them.
    const bursts = onPackets(0).result;
    bursts.environment = { ...bursts.environment, packet: { conditions: { loss: 0, burst: { p: 0.51, r: 25 } } } };
    expect(settingsText(bursts)).toContain('Fast 4G via the packet network, 0 % loss, bursts 0.51 % → bad, 25 % → good');
  });

  it('lists swept values as the axis draws them, in increasing order, and the spread of repeats of points run until decided', () => {
    const point = (loss, repeats) => {
      const r = sampleResult({ preset: 'fast-4g', repeats });
      r.settings = { ...r.settings, network: 'packet', loss };
      return { value: loss, label: String(loss), result: r };
    };
    const sweep = { param: 'loss', paramLabel: 'Loss (%)', points: [point(0, 4), point(5, 12), point(1, 12), point(2, 8)] };
    expect(sweepSettingsText(sweep)).toBe('h2lab · Loss (%): 0, 1, 2, 5 · 100 × 0.1 MiB · delay 10 ms · 4–12 repeats · cold · Fast 4G via the packet network · Chrome 156 · 2026-11-21');
    expect(pointsInAxisOrder(sweep).map((p) => p.value)).toEqual([0, 1, 2, 5]);
    // Presets keep the order given (the table's): the axis is not a number.
    const presets = { param: 'preset', points: [{ value: 'slow-4g' }, { value: 'fast-4g' }] };
    expect(pointsInAxisOrder(presets).map((p) => p.value)).toEqual(['slow-4g', 'fast-4g']);
    expect(repeatsOf([{ settings: { repeats: 1 } }])).toBe('1 repeat');
  });

  it('describes page loads without claiming a preset', () => {
    expect(pageLoadSettingsText(samplePageLoads({ repeats: 10 }))).toBe(
      'h2lab · page loads · HTTP/2 (node:http2) · 4 assets × 290 KiB · think time 300 ms · 10 repeats · cold · Chrome 156 · 2026-11-21',
    );
    expect(pageLoadSettingsText(samplePageLoads({ server: 'h1', assets: 1, repeats: 1 }))).toMatch(/^h2lab · page loads · HTTP\/1\.1 · 1 asset × 290 KiB · think time 300 ms · 1 repeat · cold · /);
  });

  it('names the preset a page-load run recorded', () => {
    const result = samplePageLoads({ repeats: 10 });
    result.settings.preset = 'fast-4g';
    result.environment = { preset: { id: 'fast-4g', label: 'Fast 4G' } };
    expect(pageLoadSettingsText(result)).toContain('think time 300 ms · Fast 4G via DevTools · 10 repeats');
    result.settings.network = 'link';
    expect(pageLoadSettingsText(result)).toContain('think time 300 ms · Fast 4G via the lab link · 10 repeats');
  });

  it('says when the lab link carried a run, throttled or not', () => {
    const linked = sampleResult({ repeats: 1 });
    linked.settings.network = 'link';
    expect(settingsText(linked)).toContain('· cold · No throttling via the lab link ·');
  });

  it('names common browsers', () => {
    expect(browserName('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')).toBe('Firefox 140');
    expect(browserName('Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15')).toBe('Safari 18');
    expect(browserName('… Chrome/150.0.0.0 Safari/537.36 Edg/150.0.0.0')).toBe('Edge 150');
    expect(browserName('… HeadlessChrome/156.0.0.0 Safari/537.36')).toBe('Chrome 156 (headless)');
  });
});

describe('samplePageLoads', () => {
  it('follows the shape runPageLoads returns, with Push refused by default', () => {
    const r = samplePageLoads({ repeats: 3 });
    expect(r.settings).toMatchObject({ server: 'h2-node', assets: 4, assetKiB: 290, thinkMs: 300, repeats: 3, modes: ['requested', 'preload', 'push', 'hints'] });
    expect(r.loads).toHaveLength(12);
    expect(r.summary.map((x) => [x.mode, x.n, x.refusedAll])).toEqual([['requested', 3, false], ['preload', 3, false], ['push', 3, true], ['hints', 3, false]]);
    expect(r.summary.find((x) => x.mode === 'hints').vsRequested.ratio).toBeLessThan(1);
  });
});

describe('medianRun', () => {
  it('picks the valid run with the median total time', () => {
    const t = sampleResult({ repeats: 5 });
    const totals = t.runs.filter((x) => x.server === 'h1').map((x) => x.totalMs).sort((a, b) => a - b);
    expect(medianRun(t, 'h1').totalMs).toBe(totals[2]);
  });
});
