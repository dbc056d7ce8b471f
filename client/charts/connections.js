// Connections of one run per server, from its packet capture (run.capture.connections, lined up
// with the run's requests by common/report/connections.js): a row per connection on the run's clock, rows
// grouped by server. A row shows the connection's life (first to last packet), its handshake, each
// request's first to last byte with the first byte marked, and every packet the path dropped
// (loss model, full queue) or TCP sent again: "why was this run slow" is answered by looking.
// connectionView builds the rows and marks (no chart.js); drawConnections draws them.
import { axisTitle, baseOptions, Chart, formatMs, isNarrow, layoutWidth, mergeOptions, presetLabelOf, serversOf, styledLegendItems } from './setup.js';
import { failedColor, inkColor, serverColor, serverLabel, withAlpha } from './palette.js';
import { medianRun } from './waterfall.js';
import { runConnections } from '../../common/report/connections.js';
import { settingsLabel } from '../../common/setup/text.js';

/** @typedef {import('../../common/report/result.js').Result} Result */
/** @typedef {import('../../common/report/result.js').RunRecord} RunRecord */
/** @typedef {import('../../common/report/connections.js').ConnectionRow} ConnectionRow */
/** @typedef {'loss'|'queue'|'retransmission'} MarkKind */

/** How each kind of mark looks: colour, shape, and its legend's words. */
export const markStyles = Object.freeze({
  loss: { color: '#E00000', shape: /** @type {const} */ ('crossRot'), text: 'lost (loss model)' },
  queue: { color: '#6A3D9A', shape: /** @type {const} */ ('rect'), text: 'dropped (queue full)' },
  retransmission: { color: inkColor, shape: /** @type {const} */ ('triangle'), text: 'TCP resend' },
});

/**
 * One row of the view: a connection, or a server whose run has no connections to show.
 * @typedef {object} ViewRow
 * @property {number} y  the row's index, from the top
 * @property {string} server
 * @property {string} label  the y axis's text: "HTTP/1.1 · :37264 · 1 req"
 * @property {ConnectionRow|null} connection  null: the run was not captured (see note)
 * @property {string|null} note  why a server has no connections here
 */

/**
 * What the per-connection chart shows for `repeat` (default: each server's median run): its
 * rows, server by server in the result's order, each server's connections in the order of their
 * first packet; a server whose run is missing or has no capture gets one row saying so.
 * @param {Result} result
 * @param {{ repeat?: number|null, compact?: boolean }} [o]  compact: short labels, for a narrow canvas
 * @returns {{ rows: ViewRow[], runs: Array<{ server: string, run: RunRecord|null, groupStart: number, groupEnd: number }>, captured: number }}
 *   runs: each server's run and its rows [groupStart, groupEnd]; captured: how many runs had connections
 */
export function connectionView(result, { repeat = null, compact = false } = {}) {
  /** @type {ViewRow[]} */
  const rows = [];
  const runs = [];
  let captured = 0;
  for (const server of serversOf(result)) {
    const run = repeat == null ? medianRun(result, server) : (result.runs ?? []).find((r) => r.server === server && r.repeat === Number(repeat)) ?? null;
    const groupStart = rows.length;
    const name = serverLabel(server);
    const connections = run ? runConnections(run) : [];
    if (connections.length) captured++;
    for (const c of connections) {
      const n = c.requests.length;
      // A connection whose handshake the capture missed was opened before the run (a spare or one closing).
      // Compact (a narrow canvas): the server named on its first row only, shorter words.
      const carried = n ? `${n} req` : compact ? (c.handshake ? 'no req' : 'no req, earlier') : c.handshake ? 'no request' : 'no request, opened before';
      const who = compact && rows.length > groupStart ? '' : `${name} · `;
      rows.push({ y: rows.length, server, label: `${who}:${c.record.clientPort} · ${carried}`, connection: c, note: null });
    }
    if (!connections.length) {
      const why = !run ? `no repeat ${repeat}` : !run.capture ? 'not captured' : run.capture.connections?.error ?? run.capture.error ?? 'no connection captured';
      rows.push({ y: rows.length, server, label: `${name} · ${why}`, connection: null, note: why });
    }
    runs.push({ server, run, groupStart, groupEnd: rows.length - 1 });
  }
  return { rows, runs, captured };
}

/** True when some run of the result has a capture with connections to draw. @param {Result} result */
export const hasConnections = (result) => (result.runs ?? []).some((r) => (r.capture?.connections?.records.length ?? 0) > 0);

/**
 * @typedef {{ y: number, x: number, _custom: { barStart: number, barEnd: number, start: number, end: number, min: number, max: number },
 *   color?: string, info: string[] }} Bar  chart.js's parsed floating bar, its colour and tooltip
 * @typedef {{ x: number, y: number, color?: string, info: string[] }} Point
 */

/** @param {number} y @param {number} start @param {number} end @param {string[]} info @param {Partial<Bar>} [extra] @returns {Bar} */
function bar(y, start, end, info, extra = {}) {
  const min = Math.min(start, end);
  const max = Math.max(start, end);
  return { y, x: max, _custom: { barStart: min, barEnd: max, start, end, min, max }, info, ...extra };
}

/** Pixels per row: 30 and more rows stay readable. */
export const rowPx = 22;
// The height the y axis's title needs along the axis (its 53 characters at the axis font).
const minTitledPx = 380;
// Title, subtitle, legend and the time axis, in CSS pixels.
const chromePx = 230;

/**
 * What the rows of connections draw, by kind: each connection's life, handshake, requests (waiting
 * for the first byte, then carrying the body) and first bytes, and its marks by kind and direction.
 * @param {ViewRow[]} rows
 */
function rowShapes(rows) {
  /** @type {Bar[]} */ const lives = [];
  /** @type {Bar[]} */ const handshakes = [];
  /** @type {Bar[]} */ const requests = [];
  /** @type {Bar[]} */ const waits = [];
  /** @type {Point[]} */ const firstBytes = [];
  /** @type {Record<string, Point[]>} by kind and direction */
  const marks = Object.fromEntries(Object.keys(markStyles).flatMap((k) => [[`${k}-down`, []], [`${k}-up`, []]]));

  for (const { y, server, connection: c } of rows) {
    if (!c) continue;
    const color = serverColor(server);
    const { record } = c;
    const port = `${record.transport.toUpperCase()} :${record.clientPort} → :${record.serverPort}`;
    const first = record.firstMs + c.offsetMs;
    const last = record.lastMs + c.offsetMs;
    lives.push(bar(y, first, last, [port, `first packet ${formatMs(first)}, last ${formatMs(last)}`, ...recordLines(c)]));
    if (c.handshake) {
      const { startMs, replyMs, doneMs } = c.handshake;
      const end = doneMs ?? replyMs ?? startMs;
      handshakes.push(
        bar(y, startMs, end, [
          `${record.transport === 'udp' ? 'Initial' : 'SYN'} at ${formatMs(startMs)}`,
          `answered after ${replyMs == null ? '–' : formatMs(replyMs - startMs)}`,
          doneMs == null ? 'handshake end not seen' : `handshake done after ${formatMs(doneMs - startMs)}`,
        ]),
      );
    }
    for (const q of c.requests) {
      const from = q.firstByteMs ?? q.startMs;
      const to = q.endMs ?? from;
      const info = [
        `request ${q.i}${q.failed ? ' (failed)' : ''}`,
        `sent ${formatMs(q.startMs)}, first byte ${q.firstByteMs == null ? '–' : formatMs(q.firstByteMs)}, last byte ${q.endMs == null ? '–' : formatMs(q.endMs)}`,
      ];
      requests.push(bar(y, from, to, info, { color: q.failed ? failedColor : color }));
      if (q.firstByteMs != null && q.firstByteMs > q.startMs) waits.push(bar(y, q.startMs, q.firstByteMs, info, { color }));
      if (q.firstByteMs != null) firstBytes.push({ x: q.firstByteMs, y, info });
    }
    for (const m of c.marks) {
      // Up (browser → server) above the row's middle, down below it (the axis runs downwards).
      marks[`${m.kind}-${m.dir}`]?.push({ x: m.atMs, y: y + (m.dir === 'down' ? 0.24 : -0.24), info: [`${markStyles[m.kind].text}, ${m.dir === 'down' ? 'down (server → browser)' : 'up (browser → server)'}`, `at ${formatMs(m.atMs)}`] });
    }
  }
  return { lives, handshakes, requests, waits, firstBytes, marks };
}

/**
 * Each shown run's last byte, one piece per row of its server: together a line across them.
 * @param {ReturnType<typeof connectionView>} view
 */
function runEnds({ rows, runs }) {
  /** @type {Bar[]} */
  const ends = [];
  for (const { server, run, groupStart, groupEnd } of runs) {
    if (!run || rows[groupStart].connection === null) continue;
    for (let y = groupStart; y <= groupEnd; y++) ends.push(bar(y, run.totalMs, run.totalMs, [`${serverLabel(server)}, repeat ${run.repeat}: the run's last byte at ${formatMs(run.totalMs)}`]));
  }
  return ends;
}

/**
 * Sizes that follow the rows' height on the canvas (CSS pixels): a few rows get thick bars, many stay thin.
 * @param {number} n  rows
 */
function rowSizes(n) {
  /** Row height on the canvas (CSS pixels). @param {import('chart.js').ScriptableContext<'bar'>|import('chart.js').ScriptableContext<'scatter'>} ctx */
  const rowHeight = (ctx) => {
    const area = ctx.chart.chartArea;
    return area ? (area.bottom - area.top) / n : rowPx;
  };
  // any: chart.js resolves barThickness like any scriptable option, but its types allow only a number.
  /** @type {(share: number, minPx: number) => any} */
  const thickness = (share, minPx) => (/** @type {import('chart.js').ScriptableContext<'bar'>} */ ctx) => Math.max(minPx, rowHeight(ctx) * share);
  return { rowHeight, thickness };
}

// What every bar dataset and every point dataset of the chart shares.
const barCommon = { type: /** @type {const} */ ('bar'), parsing: /** @type {const} */ (false), grouped: false, minBarLength: 2, borderSkipped: false, legendStyle: /** @type {const} */ ('rect') };
const pointCommon = { type: /** @type {const} */ ('scatter'), parsing: /** @type {const} */ (false), indexAxis: /** @type {const} */ ('x'), showLine: false };

/** A bar's or point's own colour (a request's: its server's, or failed). @param {import('chart.js').ScriptableContext<'bar'>|import('chart.js').ScriptableContext<'scatter'>} ctx */
const ownColor = (ctx) => /** @type {Bar|Point} */ (ctx.raw)?.color ?? failedColor;

/**
 * The bars, from the back: connections' lives, the runs' last bytes, requests waiting, requests
 * carrying, handshakes.
 * @param {ReturnType<typeof rowShapes>} shapes
 * @param {Bar[]} ends
 * @param {ReturnType<typeof rowSizes>} sizes
 */
function barDatasets({ lives, waits, requests, handshakes }, ends, { thickness }) {
  return [
    { ...barCommon, label: 'connection open (first → last packet)', data: lives, backgroundColor: '#8a8a8a', borderWidth: 0, barThickness: thickness(0.12, 2), order: 6, legendColor: '#8a8a8a' },
    { ...barCommon, label: "the run's last byte", data: ends, backgroundColor: withAlpha(inkColor, 0.55), borderWidth: 0, barThickness: thickness(1, 4), minBarLength: 2, order: 5, legendStyle: 'line', legendColor: withAlpha(inkColor, 0.55) },
    { ...barCommon, label: 'request waiting (sent → first byte)', data: waits, backgroundColor: ownColor, borderWidth: 0, barThickness: thickness(0.14, 2), order: 5, legendColor: '#b0b0b0' },
    {
      ...barCommon,
      label: "request: first → last byte (server's colour)",
      data: requests,
      backgroundColor: (/** @type {any} */ ctx) => withAlpha(ownColor(ctx), 0.3),
      borderColor: ownColor,
      borderWidth: 1,
      barThickness: thickness(0.62, 4),
      order: 4,
      legendColor: withAlpha(inkColor, 0.25),
    },
    { ...barCommon, label: 'handshake (SYN or Initial → done)', data: handshakes, backgroundColor: withAlpha(inkColor, 0.8), borderWidth: 0, barThickness: thickness(0.38, 3), order: 3, legendColor: withAlpha(inkColor, 0.8) },
  ];
}

/**
 * The points, over the bars: first bytes, then each kind of mark in each direction.
 * @param {ReturnType<typeof rowShapes>} shapes
 * @param {ReturnType<typeof rowSizes>} sizes
 */
function pointDatasets({ firstBytes, marks }, { rowHeight }) {
  return [
    {
      ...pointCommon,
      label: 'first byte',
      data: firstBytes,
      pointStyle: 'line',
      rotation: 90,
      radius: (/** @type {any} */ ctx) => Math.max(3, rowHeight(ctx) * 0.36),
      hoverRadius: (/** @type {any} */ ctx) => Math.max(3, rowHeight(ctx) * 0.36),
      borderColor: inkColor,
      borderWidth: 2,
      order: 2,
      legendStyle: 'line',
      legendColor: inkColor,
    },
    ...Object.entries(markStyles).flatMap(([kind, style]) =>
      ['down', 'up'].map((dir) => ({
        ...pointCommon,
        label: `${style.text} ${dir === 'down' ? '↓ down' : '↑ up'}`,
        data: marks[`${kind}-${dir}`],
        pointStyle: style.shape,
        // A resend's triangle points its way; up-and-down marks also sit above or below the row's middle.
        rotation: kind === 'retransmission' && dir === 'down' ? 180 : 0,
        radius: kind === 'loss' ? 4.5 : 4,
        hoverRadius: 6,
        borderWidth: kind === 'loss' ? 2 : 1.5,
        borderColor: style.color,
        backgroundColor: kind === 'retransmission' && dir === 'up' ? '#ffffff' : style.color,
        // Queue drops come in bursts among losses: drawn last, on top.
        order: { queue: -1, loss: 0, retransmission: 1 }[kind],
        legendStyle: style.shape,
      })),
    ),
  ];
}

/**
 * The subtitle: the settings, which repeat each server's run is, and what the connections carried,
 * lost, dropped and sent again.
 * @param {Result} result
 * @param {ReturnType<typeof connectionView>} view
 * @param {number|null} repeat
 */
function connectionsSubtitle(result, { rows, runs }, repeat) {
  const s = result.settings ?? {};
  const shown = runs.filter((r) => r.run);
  const all = rows.flatMap((r) => (r.connection ? [r.connection] : []));
  const sum = (/** @type {(c: ConnectionRow) => number} */ f) => all.reduce((t, c) => t + f(c), 0);
  const idle = all.filter((c) => !c.requests.length).length;
  return [
    settingsLabel(s),
    presetLabelOf(result),
    // Which repeat was each server's median, in parts a narrow title can wrap between.
    ...(repeat != null ? [] : new Set(shown.map((r) => r.run?.repeat)).size === 1 ? [`repeat ${shown[0].run?.repeat}`] : shown.map((r) => `${serverLabel(r.server)} repeat ${r.run?.repeat}`)),
    `${all.length} connection${all.length === 1 ? '' : 's'}${idle ? ` (${idle} carried no request)` : ''}`,
    `${sum((c) => c.record.dropped.loss.down + c.record.dropped.loss.up)} lost`,
    `${sum((c) => c.record.dropped.queue.down + c.record.dropped.queue.up)} dropped at the queue`,
    `${sum((c) => (c.record.retransmissions?.down ?? 0) + (c.record.retransmissions?.up ?? 0))} TCP resends`,
    'each run on its own clock',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The time axis across, from the earliest packet, and the rows down, each labelled.
 * @param {ViewRow[]} rows
 * @param {Bar[]} lives
 * @param {boolean} narrow
 * @returns {{ x: import('chart.js').ScaleOptions<'linear'>, y: import('chart.js').ScaleOptions<'linear'> }}
 */
function connectionAxes(rows, lives, narrow) {
  const n = rows.length;
  return {
    x: {
      type: 'linear',
      min: Math.min(0, ...lives.map((b) => b._custom.min)),
      title: axisTitle("Time since the run's first request was sent (ms)"),
      ticks: { callback: (v) => Number(v).toLocaleString('en-US') },
    },
    y: {
      type: 'linear',
      reverse: true,
      min: -0.5,
      max: n - 0.5,
      offset: false,
      grid: { display: false },
      // Said only where the rows are tall enough to hold it: a few rows would cut it off.
      title: { ...axisTitle('Connection (server · browser port · requests carried)'), display: !narrow && n * rowPx >= minTitledPx },
      afterBuildTicks: (scale) => {
        scale.ticks = rows.map((r) => ({ value: r.y }));
      },
      ticks: {
        autoSkip: false,
        font: { size: 11 },
        callback: (v) => rows[Number(v)]?.label ?? '',
        // Rows with nothing carried read grey.
        color: (/** @type {any} */ ctx) => (rows[ctx.tick?.value]?.connection?.requests.length ? inkColor : '#777777'),
      },
    },
  };
}

/**
 * Legend entries in the colour a dataset names for its legend (legendColor), where its own is a function.
 * @param {import('chart.js').Chart} chart
 */
const legendItemsInColor = (chart) =>
  styledLegendItems(chart).map((item) => {
    const color = /** @type {{ legendColor?: string }} */ (chart.data.datasets[/** @type {number} */ (item.datasetIndex)])?.legendColor;
    return color ? { ...item, fillStyle: color, strokeStyle: color, lineWidth: item.pointStyle === 'line' ? 2 : item.lineWidth } : item;
  });

/**
 * Draws one row per connection of every server's run with that repeat (default: each server's
 * median run). Throws when no such run was captured: there is nothing to draw.
 * @param {HTMLCanvasElement} canvas
 * @param {Result} result
 * @param {{ repeat?: number|null, chartOptions?: object }} [o]
 * @returns {import('./setup.js').AnyChart}
 */
export function drawConnections(canvas, result, { repeat = null, chartOptions = {} } = {}) {
  const narrow = isNarrow(canvas);
  const view = connectionView(result, { repeat, compact: narrow });
  if (!view.captured) {
    throw new RangeError(`no ${repeat == null ? 'median run' : `run of repeat ${repeat}`} in this result has a packet capture: capture packets (the packet network's "Capture packets", the runner's --capture) to see its connections`);
  }
  const { rows } = view;
  const shapes = rowShapes(rows);
  const sizes = rowSizes(rows.length);
  /** @type {any[]} bar and scatter datasets of one chart (chart.js's types take one type per chart) */
  const datasets = [...barDatasets(shapes, runEnds(view), sizes), ...pointDatasets(shapes, sizes)].filter((d) => d.data.length);
  const which = repeat == null ? "each server's median run" : `repeat ${repeat} of each server`;
  const title = `Connections · ${which} · time in ms`;

  // The canvas grows with its rows: its width is the page's, its height the rows' and the chart's chrome.
  const aspectRatio = layoutWidth(canvas) / (rows.length * rowPx + chromePx);
  const options = baseOptions(
    { canvas, title, subtitle: connectionsSubtitle(result, view, repeat), aspectRatio },
    {
      indexAxis: 'y',
      scales: connectionAxes(rows, shapes.lives, narrow),
      plugins: {
        legend: { labels: { usePointStyle: true, generateLabels: legendItemsInColor } },
        tooltip: {
          mode: 'nearest',
          intersect: true,
          callbacks: {
            title: (items) => (items[0] ? rows[Math.round(/** @type {Bar} */ (items[0].raw).y)]?.label ?? '' : ''),
            label: (it) => /** @type {Bar|Point} */ (it.raw).info,
          },
        },
      },
    },
  );
  return new Chart(canvas, { type: 'bar', data: { datasets }, options: mergeOptions(options, chartOptions), plugins: [serverBands(view.runs)] });
}

/** @param {ConnectionRow} c  the tooltip's lines of a connection's record */
function recordLines(c) {
  const r = c.record;
  const lines = [`${r.packets.down} packets down, ${r.packets.up} up · lost ${r.dropped.loss.down} / ${r.dropped.loss.up} · queue drops ${r.dropped.queue.down} / ${r.dropped.queue.up}`];
  if (r.retransmissions) lines.push(`TCP resends ${r.retransmissions.down} down / ${r.retransmissions.up} up`);
  if (r.longestStallMs != null) lines.push(`longest stall ${formatMs(r.longestStallMs)}`);
  if (!c.handshake) lines.push('handshake not seen (the connection began before the capture)');
  if (r.netlog?.resumed) lines.push('TLS session resumed');
  if (r.netlog?.quic) lines.push(`QUIC: ${r.netlog.quic.packetsLost} packets declared lost, ${r.netlog.quic.packetsRetransmitted} sent again`);
  if (r.marksCut) lines.push('more marks than kept: the first 2,000 are drawn');
  return lines;
}

/**
 * A light band of the server's colour behind each server's rows, and a line between servers.
 * @param {Array<{ server: string, groupStart: number, groupEnd: number }>} groups
 * @returns {import('chart.js').Plugin<'bar'>}
 */
const serverBands = (groups) => ({
  id: 'h2labServerBands',
  beforeDatasetsDraw(chart) {
    const { ctx, chartArea: area, scales } = chart;
    const y = scales.y;
    ctx.save();
    for (const [k, g] of groups.entries()) {
      const top = y.getPixelForValue(g.groupStart - 0.5);
      const bottom = y.getPixelForValue(g.groupEnd + 0.5);
      ctx.fillStyle = withAlpha(serverColor(g.server), 0.12);
      ctx.fillRect(area.left, top, area.right - area.left, bottom - top);
      if (k) {
        ctx.strokeStyle = '#9a9a9a';
        ctx.lineWidth = 1;
        ctx.beginPath();
        ctx.moveTo(area.left, Math.round(top) + 0.5);
        ctx.lineTo(area.right, Math.round(top) + 0.5);
        ctx.stroke();
      }
    }
    ctx.restore();
  },
});
