// The median-bar charts drawn for real by chart.js, on a canvas whose 2D context does nothing:
// without a DOM chart.js lays a chart out on its basic platform, so what a reader gets (bars,
// titles, axes, legend, tooltips) can be checked without pixels. demo.html shows the pixels.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampleResult } from './sample-result.js';
import { drawTotal } from './total.js';

/** A canvas-like object of a given CSS width; every context call is a no-op. */
function fakeCanvas(width = 900) {
  const canvas = { width, height: 0, style: {} };
  const ctx = new Proxy(
    { canvas, measureText: (text) => ({ width: String(text).length * 6 }) },
    { get: (o, key) => (key in o ? o[key] : () => {}), set: (o, key, value) => ((o[key] = value), true) },
  );
  canvas.getContext = () => ctx;
  return canvas;
}

let charts = [];
const draw = (fn, ...args) => {
  const chart = fn(fakeCanvas(), ...args);
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
    expect(tooltip(chart, 0, 0)).toEqual(['HTTP/1.1', expect.stringMatching(/^median .* \(n = 4\)$/), expect.stringMatching(/^95 % CI /)]);
  });

  it('names the server colours, the bar and the marks in the legend', () => {
    const chart = draw(drawTotal, result);
    expect(chart.legend.legendItems.map((l) => l.text)).toEqual([
      'HTTP/1.1',
      'HTTP/2 (spdy)',
      'HTTP/2 (node:http2)',
      'bar: median · whiskers: 95 % CI',
      'individual repeats',
      'invalid repeats (not in the median)',
    ]);
  });

  it('draws the physical floor under a preset', () => {
    const throttled = sampleResult({ requests: 30, sizeMiB: 0.01, repeats: 3, preset: 'regular-4g' });
    const chart = draw(drawTotal, throttled);
    const floor = chart.data.datasets.at(-1);
    expect(floor.label).toBe('physical floor (preset Regular 4G)');
    expect(floor.data.filter((p) => p.category === 0).map((p) => p.y)).toEqual([throttled.floorMsByServer.h1, throttled.floorMsByServer.h1]);
    expect(tooltip(chart, chart.data.datasets.length - 1, 0)[1]).toMatch(/^physical floor: /);
  });
});
