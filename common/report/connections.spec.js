import { describe, expect, it } from 'vitest';
import { connectionTotals, connectionTotalsText, runConnections } from './connections.js';
import { connectionFields, connectionsCsv } from './csv.js';

const way = (down, up) => ({ down, up });

/** A capture's record of one connection (server/evidence/connections.js's shape). */
function record(transport, clientPort, extra = {}) {
  return {
    transport, serverPort: 443, clientPort, firstMs: 10, lastMs: 900,
    handshake: { startMs: 10, replyMs: 100, handshakeMs: 300 },
    packets: way(40, 30), bytes: way(50_000, 2_000), dropped: { loss: way(2, 1), queue: way(1, 0) },
    retransmissions: transport === 'tcp' ? way(3, 0) : null, longestStallMs: 250,
    marks: [{ atMs: 400, dir: 'down', kind: 'loss' }], marksCut: false, ...extra,
  };
}

const request = (i, clientPort, protocol = 'h2', extra = {}) => ({
  i, startMs: i, ttfbMs: 500, endMs: 800 + i, bytes: 1, protocol, connectionId: 1, clientPort, serverDelayMs: 0, error: null, ...extra,
});

// The capture's first packet came 5 ms after the run's first dispatch.
const run = {
  server: 'h2-node', protocol: 'h2', repeat: 1, totalMs: 900, valid: true, invalidReasons: [], failures: 0, connections: 1, startEpochMs: 1_000_000,
  requests: [request(0, 40000), request(1, 40000), request(2, 40001, 'h2', { error: 'HTTP 500' }), request(3, 40000, 'h3'), request(4, null)],
  capture: {
    files: { sent: 's', received: 'r', keys: null }, whole: false, packets: { sent: 70, received: 66, droppedByLoss: 3, droppedByQueue: 1 }, bytes: 1, cut: null, error: null,
    connections: { records: [record('tcp', 40000), record('tcp', 40001, { netlog: { resumed: true, zeroRtt: null } }), record('udp', 40000)], originEpochMs: 1_000_005, skipped: 0, error: null },
  },
};

describe('runConnections', () => {
  const rows = runConnections(/** @type {any} */ (run));

  it('puts the capture on the run clock by the two wall-clock origins', () => {
    expect(rows[0].offsetMs).toBe(5);
    expect(rows[0].handshake).toEqual({ startMs: 15, replyMs: 115, doneMs: 315 });
    expect(rows[0].marks).toEqual([{ atMs: 405, dir: 'down', kind: 'loss' }]);
  });

  it('gives each connection the requests of its client port and transport', () => {
    expect(rows.map((r) => r.requests.map((q) => q.i))).toEqual([[0, 1], [2], [3]]);
    expect(rows[0].requests[1]).toEqual({ i: 1, startMs: 1, firstByteMs: 501, endMs: 801, failed: false });
    expect(rows[1].requests[0].failed).toBe(true);
  });

  it('is empty without a readable capture or a start on the wall clock', () => {
    expect(runConnections(/** @type {any} */ ({ ...run, startEpochMs: undefined }))).toEqual([]);
    expect(runConnections(/** @type {any} */ ({ ...run, capture: { ...run.capture, connections: null } }))).toEqual([]);
  });
});

describe('connectionTotals', () => {
  it('adds up a server\'s connections and names the requests no connection carried', () => {
    const t = connectionTotals(/** @type {any} */ ([run]));
    expect(t).toMatchObject({ runs: 1, connections: 3, idle: 0, resent: { down: 6, up: 0 }, quic: null, lost: 9, queueDropped: 3, longestStallMs: 250, netlog: { connections: 1, resumed: 1, zeroRtt: 0 }, unmatched: 1 });
    expect(connectionTotalsText(t)).toBe('3 connections over 1 run · packets lost 9, dropped at the queue 3 · TCP segments resent 6 down / 0 up · longest stall 250 ms · TLS resumed on 1 of 1, 0-RTT accepted on 0 · 1 requests on no captured connection');
    expect(connectionTotals([])).toBeNull();
  });
});

describe('connectionsCsv', () => {
  it('writes one row per connection with its requests counted', () => {
    const text = connectionsCsv(/** @type {any} */ ({ id: 'x', settings: { preset: 'fast-4g', network: 'packet' }, runs: [run] }));
    const lines = text.trim().split('\r\n');
    expect(lines[0]).toBe(connectionFields.join(','));
    expect(lines).toHaveLength(4);
    expect(lines[1].startsWith('x,fast-4g,packet,h2-node,1,tcp,40000,443,2,15,115,315,15,905,40,30,50000,2000,2,1,1,0,3,0,250,,,')).toBe(true);
    expect(lines[3]).toContain(',udp,40000,443,1,');
  });
});
