// A run's connections as its packet capture saw them (run.capture.connections), lined up with the
// requests each carried on the run's clock: what the per-connection view, connections.csv and the
// summary's per-server line read. A request finds its connection by the browser's source port the
// server saw (x-client-port) and its transport (HTTP/3 on UDP, the rest on TCP).
/** @typedef {import('./result.js').RunRecord} RunRecord */
/** @typedef {import('./result.js').ConnectionRecord} ConnectionRecord */

/**
 * One connection of one run, on the run's clock (ms after its first dispatch).
 * @typedef {object} ConnectionRow
 * @property {string} server
 * @property {number} repeat
 * @property {ConnectionRecord} record  as the capture saw it (its own clock)
 * @property {number} offsetMs  a record time + offsetMs = the same moment on the run's clock
 * @property {{ startMs: number, replyMs: number|null, doneMs: number|null }|null} handshake  on the
 *   run's clock: the first SYN or Initial, its answer, the first server data after the client's
 *   (TCP: TLS's server flight) or the first 1-RTT packet (QUIC); null when the capture missed it
 * @property {Array<{ i: number, startMs: number, firstByteMs: number|null, endMs: number|null, failed: boolean }>} requests
 *   the requests it carried, in request order
 * @property {Array<{ atMs: number, dir: 'down'|'up', kind: 'loss'|'queue'|'retransmission' }>} marks  on the run's clock
 */

/**
 * The connections of `run`, in the order of their first packet; [] without a capture that could
 * be read or a run that says when it started. A connection the capture saw only closing (opened
 * before it, no request of the run) is an earlier run's, ending as this one began: left out.
 * @param {RunRecord} run
 * @returns {ConnectionRow[]}
 */
export function runConnections(run) {
  const captured = run.capture?.connections;
  if (!captured || captured.originEpochMs == null || run.startEpochMs == null) return [];
  const offsetMs = captured.originEpochMs - run.startEpochMs;
  /** @param {number|null} ms */
  const shifted = (ms) => (ms == null ? null : ms + offsetMs);
  // Each request once under its connection's key, so matching is one lookup per connection.
  /** @type {Map<string, RunRecord['requests']>} */
  const byConnection = new Map();
  for (const r of run.requests) {
    const key = `${transportOf(r.protocol)} ${r.clientPort}`;
    byConnection.set(key, [...(byConnection.get(key) ?? []), r]);
  }
  const carried = (/** @type {ConnectionRecord} */ record) => byConnection.get(`${record.transport} ${record.clientPort}`) ?? [];
  return captured.records.filter((record) => record.handshake.startMs !== null || carried(record).length).map((record) => {
    const { startMs, replyMs, handshakeMs } = record.handshake;
    const start = shifted(startMs);
    return {
      server: run.server,
      repeat: run.repeat,
      record,
      offsetMs,
      handshake: start == null ? null : { startMs: start, replyMs: replyMs == null ? null : start + replyMs, doneMs: handshakeMs == null ? null : start + handshakeMs },
      requests: carried(record).map((r) => ({ i: r.i, startMs: r.startMs, firstByteMs: r.ttfbMs == null ? null : r.startMs + r.ttfbMs, endMs: r.endMs, failed: Boolean(r.error) })),
      marks: record.marks.map((m) => ({ ...m, atMs: m.atMs + offsetMs })),
    };
  });
}

/** @param {string} protocol a request's negotiated protocol @returns {'tcp'|'udp'} */
const transportOf = (protocol) => (protocol === 'h3' ? 'udp' : 'tcp');

/**
 * What a server's connections went through over its runs, for a line of the summary; null when
 * none of its runs has a readable capture.
 * @param {RunRecord[]} runs one server's
 */
export function connectionTotals(runs) {
  const rows = runs.flatMap(runConnections);
  if (!rows.length) return null;
  const sum = (/** @type {(r: ConnectionRecord) => number} */ f) => rows.reduce((n, row) => n + f(row.record), 0);
  const told = rows.filter((row) => row.record.netlog);
  const quic = told.flatMap((row) => row.record.netlog?.quic ?? []);
  const matched = new Set(rows.flatMap((row) => row.requests.map((q) => `${row.repeat} ${q.i}`)));
  return {
    runs: new Set(rows.map((row) => row.repeat)).size,
    connections: rows.length,
    // Connections the browser opened and used for nothing (HTTP/2's spare sockets, abandoned when the first one connected).
    idle: rows.filter((row) => !row.requests.length).length,
    resent: rows.some((row) => row.record.transport === 'tcp') ? { down: sum((r) => r.retransmissions?.down ?? 0), up: sum((r) => r.retransmissions?.up ?? 0) } : null,
    // QUIC's resends are encrypted in a capture: the client's NetLog counts the server's packets
    // that never came and the stream frames it sent again (and its own losses, apart).
    quic: quic.length ? {
      serverMissing: quic.reduce((n, q) => n + (q.serverPacketsMissing ?? 0), 0),
      framesResent: quic.reduce((n, q) => n + (q.streamFramesResent ?? 0), 0),
      clientLost: quic.reduce((n, q) => n + q.packetsLost, 0),
    } : null,
    lost: sum((r) => r.dropped.loss.down + r.dropped.loss.up),
    queueDropped: sum((r) => r.dropped.queue.down + r.dropped.queue.up),
    longestStallMs: Math.max(0, ...rows.map((row) => row.record.longestStallMs ?? 0)),
    // The NetLog's share (runner --netlog): of the connections it named, how many resumed a TLS session or sent 0-RTT.
    netlog: told.length ? { connections: told.length, resumed: told.filter((row) => row.record.netlog?.resumed).length, zeroRtt: told.filter((row) => row.record.netlog?.zeroRtt === 'accepted').length } : null,
    unmatched: runs.reduce((n, run) => n + run.requests.filter((r) => !matched.has(`${run.repeat} ${r.i}`)).length, 0),
  };
}

/** @param {ReturnType<typeof connectionTotals>} t  a server's totals, in words for summary.md */
export function connectionTotalsText(t) {
  if (!t) return '';
  const parts = [
    `${t.connections} connection${t.connections === 1 ? '' : 's'} over ${t.runs} run${t.runs === 1 ? '' : 's'}${t.idle ? ` (${t.idle} carried no request)` : ''}`,
    `packets lost ${t.lost}, dropped at the queue ${t.queueDropped}`,
  ];
  if (t.resent) parts.push(`TCP segments resent ${t.resent.down} down / ${t.resent.up} up`);
  if (t.quic) parts.push(`QUIC (the browser's NetLog): server packets that never came ${t.quic.serverMissing}, stream frames sent again ${t.quic.framesResent}, own packets lost ${t.quic.clientLost}`);
  parts.push(`longest stall ${Math.round(t.longestStallMs).toLocaleString('en-US')} ms`);
  if (t.netlog) parts.push(`TLS resumed on ${t.netlog.resumed} of ${t.netlog.connections}, 0-RTT accepted on ${t.netlog.zeroRtt}`);
  if (t.unmatched) parts.push(`${t.unmatched} requests on no captured connection`);
  return parts.join(' · ');
}
