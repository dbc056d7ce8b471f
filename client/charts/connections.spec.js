// The per-connection view: its rows (connectionView) from a real captured result (the packet
// network at Fast 4G with 2 % loss, 3 × 0.2 MiB, 2 repeats, captured with the NetLog), and the chart
// drawn by chart.js on a do-nothing canvas (as median-bars.spec.js draws). The browser tests look at the pixels.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { connectionView, drawConnections, hasConnections, rowPx } from './connections.js';
import { sampleResult } from '../../test/fixtures/sample-result.js';

const captured = JSON.parse(readFileSync(new URL('../../test/fixtures/captured-result.json', import.meta.url), 'utf8'));

/** A canvas-like object of a given CSS width whose context does nothing. */
function fakeCanvas(width = 1100) {
  const canvas = { width, height: 0, style: {} };
  const ctx = new Proxy({ canvas, measureText: (text) => ({ width: String(text).length * 6 }) }, { get: (o, key) => (key in o ? o[key] : () => {}), set: (o, key, value) => ((o[key] = value), true) });
  canvas.getContext = () => ctx;
  return canvas;
}

let charts = [];
beforeEach(() => vi.stubGlobal('document', { createElement: () => fakeCanvas(22) }));
afterEach(() => {
  for (const c of charts) c.destroy();
  charts = [];
  vi.unstubAllGlobals();
});
const draw = (result, o) => {
  const chart = drawConnections(fakeCanvas(), result, o);
  charts.push(chart);
  return chart;
};
const dataset = (chart, label) => chart.data.datasets.find((d) => d.label.startsWith(label));

describe('connectionView', () => {
  it("takes each server's median run, server by server, a row per connection with what it carried", () => {
    const { rows, runs, captured: n } = connectionView(captured);
    expect(n).toBe(3);
    expect(runs.map((r) => [r.server, r.run.repeat, r.groupStart, r.groupEnd])).toEqual([
      ['h1', 2, 0, 2],
      ['h2-node', 2, 3, 5],
      ['caddy-h3', 1, 6, 6],
    ]);
    expect(rows.map((r) => r.label)).toEqual([
      'HTTP/1.1 · :35916 · 1 req',
      'HTTP/1.1 · :35918 · 1 req',
      'HTTP/1.1 · :35924 · 1 req',
      // The connections of the runs before, seen only closing, are theirs: not shown.
      'HTTP/2 (node:http2) · :40816 · 3 req',
      // Chromium's spare sockets: opened, never used.
      'HTTP/2 (node:http2) · :40832 · no request',
      'HTTP/2 (node:http2) · :40838 · no request',
      'HTTP/3 (Caddy) · :33765 · 3 req',
    ]);
    expect(rows.map((r) => r.y)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('names the server on its first row only when compact (a narrow canvas)', () => {
    const labels = connectionView(captured, { compact: true }).rows.map((r) => r.label);
    expect(labels.slice(3, 6)).toEqual(['HTTP/2 (node:http2) · :40816 · 3 req', ':40832 · no req', ':40838 · no req']);
  });

  it('takes the chosen repeat of every server', () => {
    const { runs, rows } = connectionView(captured, { repeat: 1 });
    expect(runs.map((r) => r.run.repeat)).toEqual([1, 1, 1]);
    expect(rows).toHaveLength(7);
  });

  it('gives a server whose run is missing or not captured one row saying so', () => {
    const oneUncaptured = { ...captured, runs: captured.runs.map((r) => (r.server === 'h1' ? { ...r, capture: null } : r)) };
    const { rows, captured: n } = connectionView(oneUncaptured);
    expect(n).toBe(2);
    expect(rows[0]).toMatchObject({ server: 'h1', label: 'HTTP/1.1 · not captured', connection: null });
    expect(connectionView(captured, { repeat: 3 }).rows.map((r) => r.label)).toEqual(['HTTP/1.1 · no repeat 3', 'HTTP/2 (node:http2) · no repeat 3', 'HTTP/3 (Caddy) · no repeat 3']);
  });

  it('knows a result with captured connections', () => {
    expect(hasConnections(captured)).toBe(true);
    expect(hasConnections(sampleResult({ requests: 10, repeats: 1 }))).toBe(false);
  });
});

describe('drawConnections', () => {
  it('draws handshakes, requests with their first byte, and every drop and resend as a mark', () => {
    const chart = draw(captured);
    expect(chart.options.plugins.title.text).toBe("Connections · each server's median run · time in ms");
    const { rows } = connectionView(captured);
    const conns = rows.map((r) => r.connection);
    // One line per connection, a handshake where the capture saw one, a bar per request.
    expect(dataset(chart, 'connection open').data).toHaveLength(7);
    expect(dataset(chart, 'handshake').data).toHaveLength(conns.filter((c) => c.handshake).length);
    expect(dataset(chart, 'request: first').data).toHaveLength(9);
    expect(dataset(chart, 'first byte').data).toHaveLength(9);
    // Every mark of every shown connection, in the dataset of its kind and direction, on its row.
    const marks = conns.flatMap((c, y) => c.marks.map((m) => ({ ...m, y })));
    const drawn = chart.data.datasets.filter((d) => /^(lost|dropped|TCP resend)/.test(d.label)).flatMap((d) => d.data.map((p) => ({ ...p, label: d.label })));
    expect(drawn).toHaveLength(marks.length);
    const loss = marks.find((m) => m.kind === 'loss' && m.dir === 'down');
    expect(dataset(chart, 'lost (loss model) ↓ down').data).toContainEqual(expect.objectContaining({ x: loss.atMs, y: loss.y + 0.24 }));
    // The request bar runs from its first byte to its last.
    const q = conns[3].requests[0];
    expect(dataset(chart, 'request: first').data.find((b) => b.y === 3)._custom).toMatchObject({ start: q.firstByteMs, end: q.endMs });
  });

  it('grows with its rows and says what it shows', () => {
    const chart = draw(captured, { repeat: 1 });
    expect(chart.options.aspectRatio).toBeCloseTo(1100 / (7 * rowPx + 230));
    expect([chart.options.plugins.subtitle.text].flat().join(' · ')).toMatch(/7 connections \(\d+ carried no request\) · \d+ lost · \d+ dropped at the queue · \d+ TCP resends/);
    expect(chart.options.scales.x.title.text).toBe("Time since the run's first request was sent (ms)");
    expect(chart.legend.legendItems.map((l) => l.text)).toEqual(expect.arrayContaining(['handshake (SYN or Initial → done)', 'first byte', 'lost (loss model) ↓ down', 'TCP resend ↓ down']));
  });

  it('refuses a result without a capture, saying how to get one', () => {
    expect(() => drawConnections(fakeCanvas(), sampleResult({ requests: 10, repeats: 1 }))).toThrow(/has a packet capture: capture packets/);
  });
});
