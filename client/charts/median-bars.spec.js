// The median-bar charts drawn for real by chart.js, on a canvas whose 2D context does nothing:
// without a DOM chart.js lays a chart out on its basic platform, so what a reader gets (bars,
// titles, axes, legend, tooltips) can be checked without pixels. The browser tests look at the pixels.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { drawPageLoads } from './page-loads.js';
import { samplePageLoads, sampleResult } from '../../test/fixtures/sample-result.js';
import { drawTotal } from './total.js';

/** A canvas-like object of a given CSS width; its context only records the text written. */
function fakeCanvas(width = 900) {
  const canvas = { width, height: 0, style: {}, texts: [] };
  const ctx = new Proxy(
    { canvas, measureText: (text) => ({ width: String(text).length * 6 }), fillText: (text) => canvas.texts.push(String(text)) },
    { get: (o, key) => (key in o ? o[key] : () => {}), set: (o, key, value) => ((o[key] = value), true) },
  );
  canvas.getContext = () => ctx;
  return canvas;
}

let charts = [];
const draw = (fn, result, width) => {
  const chart = fn(fakeCanvas(width), result);
  charts.push(chart);
  return chart;
};
// The legend's error-bar icon is drawn on a canvas of its own.
beforeEach(() => vi.stubGlobal('document', { createElement: () => fakeCanvas(22) }));
afterEach(() => {
  for (const c of charts) c.destroy();
  charts = [];
  vi.unstubAllGlobals();
});

/** Tooltip lines of dataset d, element i, as the reader sees them. */
function tooltip(chart, d, i) {
  const { callbacks } = chart.options.plugins.tooltip;
  const item = { datasetIndex: d, dataIndex: i, raw: chart.data.datasets[d].data[i] };
  return [callbacks.title([item]), callbacks.label(item)].flat();
}

describe('drawTotal', () => {
  const result = sampleResult({ repeats: 4, invalidRuns: 1, failures: 2 });

  it('puts a bar with whiskers at each server median', () => {
    const chart = draw(drawTotal, result);
    expect(chart.options.plugins.title.text).toBe('Total time per server');
    expect(chart.options.scales.y.title.text).toBe('Total time (ms)');
    expect(chart.data.labels).toEqual(['HTTP/1.1', 'HTTP/2 (spdy)', 'HTTP/2 (node:http2)']);
    expect(chart.data.datasets[0].data).toEqual(
      ['h1', 'h2-spdy', 'h2-node'].map((id) => ({ y: result.summary[id].median, yMin: result.summary[id].ci95[0], yMax: result.summary[id].ci95[1] })),
    );
    expect(chart.options.plugins.subtitle.text).toContain('4/3/4 valid of 4 repeats per server');
  });

  it('shows every repeat: valid ones as dots, the invalid one as a cross with its reason', () => {
    const chart = draw(drawTotal, result);
    const [, dots, crosses] = chart.data.datasets;
    expect(dots.data).toHaveLength(11);
    expect(crosses.label).toBe('invalid repeats (not in the median)');
    expect(crosses.data).toHaveLength(1);
    expect(tooltip(chart, 2, 0)).toEqual(['HTTP/2 (spdy)', expect.stringMatching(/^repeat 4: .* ms \(2 failed; invalid: /)]);
    expect(tooltip(chart, 0, 0)).toEqual(['HTTP/1.1', expect.stringMatching(/^median .* \(n = 4\)$/), expect.stringMatching(/^87 % CI /)]);
  });

  it('names the server colours, the bar and the marks in the legend', () => {
    const chart = draw(drawTotal, result);
    expect(chart.legend.legendItems.map((l) => l.text)).toEqual([
      'HTTP/1.1',
      'HTTP/2 (spdy)',
      'HTTP/2 (node:http2)',
      'bar: median · whiskers: 87 % / 75 % CI of the median', // one server lost a run: 3 repeats, 75 %
      'individual repeats',
      'invalid repeats (not in the median)',
    ]);
  });

  it('draws the physical floor under a preset', () => {
    const throttled = sampleResult({ requests: 30, sizeMiB: 0.01, repeats: 3, preset: 'regular-4g' });
    const chart = draw(drawTotal, throttled);
    const floor = chart.data.datasets.at(-1);
    expect(floor.label).toBe('physical floor (preset Regular 4G via DevTools)');
    expect(floor.data.filter((p) => p.category === 0).map((p) => p.y)).toEqual([throttled.floorMsByServer.h1, throttled.floorMsByServer.h1]);
    expect(tooltip(chart, chart.data.datasets.length - 1, 0)[1]).toMatch(/^physical floor: /);
  });
});

describe('drawPageLoads', () => {
  const result = samplePageLoads({ repeats: 6 }); // Push refused, as in Chrome and Firefox
  const row = (mode) => result.summary.find((r) => r.mode === mode);

  it('says what is measured, in which unit, under which set-up', () => {
    const chart = draw(drawPageLoads, result);
    expect(chart.options.plugins.title.text).toBe('Page load time per mode');
    expect(chart.options.scales.x.title.text).toBe('Mode');
    expect(chart.options.scales.y.title.text).toBe('Page load time (ms)');
    const subtitle = [chart.options.plugins.subtitle.text].flat().join(' · ');
    expect(subtitle).toMatch(/^HTTP\/2 \(node:http2\) · 4 assets × 290 KiB · think time 300 ms · cold connections · 6 loads per mode · /);
    expect(subtitle).toContain(`Early Hints ${row('hints').vsRequested.ratio.toFixed(2)}× Requested (${row('hints').vsRequested.verdict})`);
    expect(subtitle).not.toMatch(/Push \d/);
  });

  it('puts one bar at the median of each measured mode, with every load as a dot', () => {
    const chart = draw(drawPageLoads, result);
    const bars = chart.data.datasets[0].data;
    expect(chart.data.labels).toEqual(['Requested', 'Preload', 'Push (refused by browser)', 'Early Hints']);
    for (const [i, mode] of ['requested', 'preload', 'hints'].map((m) => [['requested', 'preload', 'push', 'hints'].indexOf(m), m])) {
      expect(bars[i]).toEqual({ y: row(mode).median, yMin: row(mode).ci95[0], yMax: row(mode).ci95[1] });
    }
    const dots = chart.data.datasets[1].data;
    expect(dots).toHaveLength(3 * 6);
    expect(dots.filter((d) => d.category === 3).map((d) => d.y).sort()).toEqual(result.loads.filter((l) => l.mode === 'hints').map((l) => l.loadMs).sort());
    expect(tooltip(chart, 0, 3)).toContain(`Early Hints ${row('hints').vsRequested.ratio.toFixed(2)}× Requested (${row('hints').vsRequested.verdict})`);
  });

  it('draws no bar and no dots for a Push the browser refused, and says why', () => {
    const chart = draw(drawPageLoads, result);
    expect(chart.data.datasets[0].data[2]).toEqual({ y: null, yMin: null, yMax: null });
    expect(chart.getDatasetMeta(0).data[2].height > 0).toBe(false);
    expect(chart.data.datasets.flatMap((d) => d.data).some((p) => p.category === 2)).toBe(false);
    expect(tooltip(chart, 0, 2)).toEqual(['Push (refused by browser)', 'no loads']);
    // The note is written in the Push column, wrapped to its width.
    expect(chart.canvas.texts.join(' ')).toContain('No number: the browser refused all 24 pushes, so these 6 loads were plain pages');
  });

  it('writes the short note where the long one does not fit', () => {
    const chart = draw(drawPageLoads, result, 400);
    expect(chart.data.labels[2]).toEqual(['Push', '(refused by browser)']);
    expect(chart.canvas.texts.join(' ')).toContain('No number: no push happened');
    expect(chart.canvas.texts.join(' ')).not.toContain('plain pages');
  });

  it('gives a push that happened its bar, and HTTP/1.1 push none', () => {
    const accepted = draw(drawPageLoads, samplePageLoads({ repeats: 3, pushRefused: false }));
    expect(accepted.data.labels[2]).toBe('Push');
    expect(accepted.data.datasets[0].data[2].y).toBeGreaterThan(0);
    const h1 = draw(drawPageLoads, samplePageLoads({ repeats: 3, server: 'h1' }));
    expect(h1.data.labels[2]).toBe('Push (none on HTTP/1.1)');
    expect(h1.data.datasets[0].data[2].y).toBeNull();
  });

  it('names each measured mode\'s colour and the marks in the legend', () => {
    const chart = draw(drawPageLoads, result);
    const items = chart.legend.legendItems;
    expect(items.map((l) => l.text)).toEqual(['Requested', 'Preload', 'Early Hints', 'bar: median · whiskers: 96 % CI of the median', 'individual loads']);
    expect(new Set(items.slice(0, 3).map((l) => l.strokeStyle)).size).toBe(3);
  });
});
