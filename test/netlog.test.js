// Chromium's NetLog per connection (runner/output/netlog.js): fixtures cut from real NetLogs
// (test/fixtures/netlog/README.md says how), joined with capture records by transport and ports,
// and files that are cut short or not NetLogs at all.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { netLogConnections, parseNetLog, readNetLog, withNetLog } from '../runner/output/netlog.js';

const fixtures = fileURLToPath(new URL('./fixtures/netlog/', import.meta.url));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-netlog-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** @param {string} name */
const fixture = (name) => {
  const { log, error } = readNetLog(path.join(fixtures, name));
  assert.equal(error, null);
  return log;
};
/** @param {{ connections: any[] }} result @param {number} port */
const byPort = (result, port) => result.connections.find((c) => c.clientPort === port);

test('TCP: the local port from TCP_CONNECT, ALPN, TLS version and resumption from SSL_CONNECT', () => {
  const log = fixture('tcp.json');
  const result = netLogConnections(log);
  assert.equal(result.error, null);
  assert.equal(result.connections.length, 2);
  const resumed = byPort(result, 48060);
  assert.deepEqual(
    { ...resumed, startEpochMs: undefined },
    { transport: 'tcp', clientPort: 48060, serverPort: 36569, startEpochMs: undefined, handshakeMs: 349, protocol: 'http/1.1', tlsVersion: 'TLS 1.3', resumed: true, zeroRtt: 'not-attempted', quic: null, error: null, sourceId: 463 },
  );
  // The tick clock placed on the epoch: timeTickOffset + the TCP_CONNECT begin's time.
  const begin = log.events.find((e) => e.source.id === 463 && e.type === log.constants.logEventTypes.TCP_CONNECT);
  assert.equal(resumed.startEpochMs, Number(log.constants.timeTickOffset) + Number(begin.time));
  assert.equal(byPort(result, 48082).resumed, false);
});

test('TCP: an early-data reason, where Chromium logged one, sorted as Chromium sorts it', () => {
  const log = fixture('tcp.json');
  const at = log.events.findIndex((e) => e.source.id === 463 && e.type === log.constants.logEventTypes.SSL_CONNECT && e.phase === 2);
  const reason = (early_data_reason) => ({ ...log.events[at], type: log.constants.logEventTypes.SSL_HANDSHAKE_EARLY_DATA_REASON, phase: 0, params: { early_data_reason } });
  for (const [value, expected] of [[2, 'accepted'], [4, 'rejected'], [6, 'rejected'], [5, 'not-attempted']]) {
    const events = [...log.events.slice(0, at + 1), reason(value), ...log.events.slice(at + 1)];
    assert.equal(byPort(netLogConnections({ ...log, events }), 48060).zeroRtt, expected, `reason ${value}`);
  }
});

test('QUIC: the port through the job and its UDP socket, 0-RTT, resumption, packets and close', () => {
  const result = netLogConnections(fixture('quic.json'));
  assert.equal(result.error, null);
  assert.deepEqual(result.connections.map((c) => [c.sourceId, c.clientPort, c.serverPort]), [[636, 40748, 35057], [718, 51696, 35057], [883, 40540, 35057]]);

  const idle = byPort(result, 51696);
  assert.deepEqual([idle.protocol, idle.tlsVersion, idle.handshakeMs, idle.resumed, idle.zeroRtt], ['h3', 'TLS 1.3', 602, false, 'not-attempted']);
  assert.deepEqual(idle.quic, {
    version: 'RFCv1', packetsSent: 19, packetsReceived: 12, packetsLost: 0, packetsRetransmitted: 10,
    retransmissionTypes: { PTO_RETRANSMISSION: 10 }, zeroRttPacketsSent: 0, serverPacketsMissing: 0, streamFramesResent: 0,
    closeReason: { error: 'QUIC_NETWORK_IDLE_TIMEOUT', details: 'No recent network activity after 29005606us. Timeout:29s', fromPeer: false },
  });

  // 0-RTT offered with a cached session, the server declined: a full handshake, not resumed.
  const rejected = byPort(result, 40540);
  assert.deepEqual([rejected.zeroRtt, rejected.resumed, rejected.handshakeMs], ['rejected', false, 602]);
  assert.deepEqual(rejected.quic.retransmissionTypes, { LOSS_RETRANSMISSION: 1, PTO_RETRANSMISSION: 4 });
  assert.equal(rejected.quic.packetsRetransmitted, 5);
  assert.equal(rejected.quic.zeroRttPacketsSent, 2);
  assert.equal(rejected.quic.closeReason.error, 'QUIC_PACKET_READ_ERROR');

  // Nothing ever came back: the port is known from its socket alone.
  const unanswered = byPort(result, 40748);
  assert.deepEqual([unanswered.zeroRtt, unanswered.resumed, unanswered.handshakeMs], ['unconfirmed', null, null]);
  assert.deepEqual([unanswered.quic.packetsSent, unanswered.quic.packetsReceived, unanswered.quic.version], [4, 0, null]);
});

test('QUIC: an accepted 0-RTT and packets declared lost (no real log had either: added to a copy)', () => {
  const log = fixture('quic.json');
  const T = log.constants.logEventTypes;
  const events = log.events.map((e) => (e.source.id === 883 && e.type === T.QUIC_SESSION_ZERO_RTT_STATE ? { ...e, params: { state: 'AttemptedAndSucceeded' } } : e));
  const sent = events.find((e) => e.source.id === 883 && e.type === T.QUIC_SESSION_PACKET_SENT);
  events.push({ ...sent, type: T.QUIC_SESSION_PACKET_LOST, params: { packet_number: 1 } }, { ...sent, type: T.QUIC_SESSION_PACKET_LOST, params: { packet_number: 2 } });
  const record = byPort(netLogConnections({ ...log, events }), 40540);
  assert.equal(record.zeroRtt, 'accepted');
  assert.equal(record.quic.packetsLost, 2);
});

test("QUIC: the server's 1-RTT packets that never came and the stream frames it sent again (added to a copy)", () => {
  const log = fixture('quic.json');
  const T = log.constants.logEventTypes;
  const base = log.events.find((e) => e.source.id === 883);
  const header = (n) => ({ ...base, type: T.QUIC_SESSION_UNAUTHENTICATED_PACKET_HEADER_RECEIVED, params: { header_format: 'IETF_QUIC_SHORT_HEADER_PACKET', packet_number: n } });
  const frame = (offset, length) => ({ ...base, type: T.QUIC_SESSION_STREAM_FRAME_RECEIVED, params: { stream_id: 0, offset, length, fin: false } });
  // Packets 10–19 with 13 and 16 missing; bytes 0–3,000 of stream 0 with 1,000–2,000 coming again after 2,000–3,000.
  const events = [...log.events, ...[10, 11, 12, 14, 15, 17, 18, 19].map(header), frame(0, 1000), frame(2000, 1000), frame(1000, 1000), frame(3000, 0)];
  const { quic } = byPort(netLogConnections({ ...log, events }), 40540);
  assert.equal(quic.serverPacketsMissing, 2);
  assert.equal(quic.streamFramesResent, 1);
});

test('withNetLog joins by transport and both ports; a reused port by the start nearest before', () => {
  const { connections } = netLogConnections(fixture('quic.json'));
  const record = (transport, clientPort, serverPort, firstMs = 0) => ({ transport, clientPort, serverPort, firstMs, handshake: { startMs: firstMs } });
  const joined = withNetLog([record('udp', 40540, 35057), record('tcp', 40540, 35057), record('udp', 40540, 443)], connections);
  assert.equal(joined[0].netlog.sourceId, 883);
  assert.deepEqual(joined.slice(1).map((r) => r.netlog), [null, null]);
  assert.equal(joined[0].clientPort, 40540, 'the record is kept as it was');

  // The same ports used twice in the session, 30 s apart.
  const first = connections.find((c) => c.sourceId === 883);
  const later = { ...first, sourceId: 9999, startEpochMs: first.startEpochMs + 30_000 };
  const both = [first, later];
  const origin = first.startEpochMs - 5; // the capture's first packet, ms since the epoch
  assert.equal(withNetLog([record('udp', 40540, 35057, 7)], both, origin)[0].netlog.sourceId, 883);
  assert.equal(withNetLog([record('udp', 40540, 35057, 30_006)], both, origin)[0].netlog.sourceId, 9999);
  assert.equal(withNetLog([record('udp', 40540, 35057, 7)], both)[0].netlog, null, 'ambiguous without the capture origin');
});

test('a NetLog cut mid-event (Chromium killed) is read up to its last complete event', () => {
  const text = fs.readFileSync(path.join(fixtures, 'quic.json'), 'utf8');
  const cutAt = text.indexOf('\n', Math.floor(text.length * 0.6)) + 40; // inside an event line
  const file = path.join(scratch, 'cut.json');
  fs.writeFileSync(file, text.slice(0, cutAt));
  const { log, error } = readNetLog(file);
  const complete = text.slice(0, cutAt).split('\n').slice(2, -1).length; // event lines before the cut one
  assert.equal(log.events.length, complete);
  assert.match(error, new RegExp(`cut short after ${complete} complete events`));
  const whole = readNetLog(path.join(fixtures, 'quic.json')).log;
  assert.deepEqual(log.events, whole.events.slice(0, complete));
  assert.doesNotThrow(() => netLogConnections(log));

  // Cut after the events' `]` (in what Chromium writes after them): every event is kept.
  const closed = parseNetLog(text.replace(/\]\}\s*$/, '], "polledData": {"x": ['));
  assert.equal(closed.log.events.length, whole.events.length);
  assert.match(closed.error, /cut short after its events/);
});

test('what is not a NetLog gives an error, never a throw', () => {
  const notJson = path.join(scratch, 'not.json');
  fs.writeFileSync(notJson, 'GET / HTTP/1.1\r\n\r\n');
  for (const result of [readNetLog(notJson), readNetLog(path.join(scratch, 'missing.json')), parseNetLog('{"events": []}'), parseNetLog(''), parseNetLog('{"constants": {"a": 1')]) {
    assert.equal(result.log, null);
    assert.equal(typeof result.error, 'string');
  }
  assert.match(readNetLog(path.join(scratch, 'missing.json')).error, /cannot read/);
  for (const log of [null, { constants: {}, events: [] }, { constants: { logEventTypes: {}, logSourceType: {}, logEventPhase: {} }, events: [] }]) {
    const result = netLogConnections(log);
    assert.deepEqual(result.connections, []);
    assert.equal(typeof result.error, 'string');
  }
});
