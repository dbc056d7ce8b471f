// Per-connection records from a run's two capture files (server/evidence/connections.js): synthetic
// packets written through the emulator's own capture (server/packet/capture.js) at chosen times
// and read back; then real TCP through the packet network at 2 % loss, beside tshark's analysis
// (Wireshark's, where installed) of the same file.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createCapture, dropComments } from '../server/packet/capture.js';
import { launchPyArgs, packetNetworkMissing } from '../server/packet/launcher.js';
import { connectionsOf, maxMarks, readCaptureFiles } from '../server/evidence/connections.js';
import { browserSide, ipv4, serverSide } from './packet/corpus.js';
import { tsharkMissing } from './helpers/tshark.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ACK = 0x10;
const SYN = 0x02;
const FIN = 0x01;
const UDP = 17;
const scratches = [];
const scratch = () => scratches[scratches.push(fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-connections-'))) - 1];
after(() => scratches.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A TCP segment between the browser side's port 50000 and the server's 443; `seq` mod 2^32. */
const down = (seq, payload = 0, flags = ACK) => ({ packet: ipv4({ from: serverSide, to: browserSide, source: 443, destination: 50000, seq: seq >>> 0, flags, payload }), dir: 'down' });
const up = (seq, payload = 0, flags = ACK) => ({ packet: ipv4({ source: 50000, destination: 443, seq: seq >>> 0, flags, payload }), dir: 'up' });
/** A UDP datagram between port 40000 and 443 whose first payload byte says a QUIC long or short header. */
const quic = (dir, form) => {
  const ends = dir === 'down' ? { from: serverSide, to: browserSide, source: 443, destination: 40000 } : { source: 40000, destination: 443 };
  return { packet: ipv4({ ...ends, protocol: UDP, payload: 1200, firstByte: form === 'long' ? 0xc3 : 0x43 }), dir };
};

/**
 * Writes `events` through a real capture at their `at` (ms): `fate` 'onLink', 'loss', 'queue' for
 * the sent file, 'received' for the received one. The capture's clock is performance.now, set here.
 */
function capture(events, { whole = false } = {}) {
  const stem = path.join(scratch(), 'run');
  const own = Object.getOwnPropertyDescriptor(performance, 'now');
  let nowMs = 0;
  performance.now = () => nowMs;
  try {
    const c = createCapture({ stem, whole });
    for (const { at, fate = 'onLink', packet, dir } of events) {
      nowMs = at;
      if (fate === 'received') c.received(packet, dir);
      else c.sent(packet, dir, fate);
    }
    c.stop();
  } finally {
    if (own) Object.defineProperty(performance, 'now', own);
    else delete performance.now;
  }
  return stem;
}

const rounded = (ms) => (ms === null ? null : Math.round(ms));

// A TLS-like exchange over 100 ms of round trip whose sequence numbers wrap both ways: the client's
// ISN 10 below 2^32 (its ClientHello crosses the wrap), the server's 1,000 below (its second segment does).
const clientIsn = 2 ** 32 - 10;
const serverIsn = 2 ** 32 - 1000;
const at = (ms, fate, e) => ({ at: ms, fate, ...e });
const exchange = [
  at(0, 'onLink', up(clientIsn, 0, SYN)),
  at(50, 'received', up(clientIsn, 0, SYN)),
  at(50, 'onLink', down(serverIsn, 0, SYN | ACK)),
  at(100, 'received', down(serverIsn, 0, SYN | ACK)),
  at(100, 'onLink', up(clientIsn + 1)),
  at(100, 'onLink', up(clientIsn + 1, 200)),
  at(150, 'received', up(clientIsn + 1, 200)),
  at(150, 'onLink', down(serverIsn + 1, 1000)),
  at(151, 'loss', down(serverIsn + 1001, 1000)), // seq 1: past the wrap
  at(152, 'onLink', down(serverIsn + 2001, 1000)),
  at(153, 'queue', down(serverIsn + 3001, 1000)),
  at(200, 'received', down(serverIsn + 1, 1000)),
  at(202, 'received', down(serverIsn + 2001, 1000)), // beyond the hole: no progress yet
  at(210, 'loss', up(clientIsn + 201)),
  at(300, 'onLink', down(serverIsn + 1001, 1000)), // the two resends
  at(301, 'onLink', down(serverIsn + 3001, 1000)),
  at(302, 'onLink', down(serverIsn + 4001, 1000)),
  at(350, 'received', down(serverIsn + 1001, 1000)), // fills the hole: 150 ms after the last progress
  at(351, 'received', down(serverIsn + 3001, 1000)),
  at(352, 'received', down(serverIsn + 4001, 1000)),
].map((e) => ({ ...e, at: e.at + 1 })); // 1 ms on the clock: figures count from the sent file's first packet

test('a TCP connection: its handshake, bytes by length on the wire, drops by cause and resends across the sequence wrap', () => {
  const { connections, skipped, error } = connectionsOf(readCaptureFiles(capture(exchange)));
  assert.deepEqual([skipped, error, connections.length], [0, null, 1]);
  const [c] = connections;
  assert.deepEqual([c.transport, c.serverPort, c.clientPort, rounded(c.firstMs), rounded(c.lastMs)], ['tcp', 443, 50000, 0, 352]);
  assert.deepEqual(Object.fromEntries(Object.entries(c.handshake).map(([k, v]) => [k, rounded(v)])), { startMs: 0, replyMs: 100, handshakeMs: 200 });
  assert.deepEqual(c.packets, { down: 8, up: 4 });
  assert.deepEqual(c.bytes, { down: 7000, up: 200 }, 'payload by length on the wire: 128 bytes of each were kept');
  assert.deepEqual(c.dropped, { loss: { down: 1, up: 1 }, queue: { down: 1, up: 0 } });
  assert.deepEqual(c.retransmissions, { down: 2, up: 0 });
  assert.equal(rounded(c.longestStallMs), 150);
  assert.deepEqual(c.marks.map((m) => [rounded(m.atMs), m.dir, m.kind]), [
    [151, 'down', 'loss'], [153, 'down', 'queue'], [210, 'up', 'loss'], [300, 'down', 'retransmission'], [301, 'down', 'retransmission'],
  ]);
  assert.equal(c.marksCut, false);
});

test("a resent SYN is its connection's; a SYN with a new ISN on the same ports is the next connection; QUIC's handshake from its headers", () => {
  const stem = capture([
    at(0, 'loss', up(5, 0, SYN)),
    at(10, 'onLink', quic('up', 'long')),
    at(60, 'onLink', quic('down', 'long')),
    at(61, 'onLink', quic('down', 'short')),
    at(62, 'loss', quic('down', 'short')),
    at(110, 'received', quic('down', 'long')),
    at(111, 'received', quic('down', 'short')),
    at(500, 'onLink', quic('down', 'short')),
    at(550, 'received', quic('down', 'short')),
    at(1000, 'onLink', up(5, 0, SYN)),
    at(1050, 'onLink', down(77, 0, SYN | ACK)),
    at(1100, 'received', down(77, 0, SYN | ACK)),
    at(2000, 'onLink', up(6, 0, FIN | ACK)),
    at(2001, 'onLink', up(6, 0, FIN | ACK)),
    at(3000, 'onLink', up(999, 0, SYN)),
    at(3001, 'onLink', { packet: ipv4({ protocol: 1 }), dir: 'up' }), // ICMP: in no connection
  ]);
  const { connections, skipped } = connectionsOf(readCaptureFiles(stem));
  assert.equal(skipped, 1);
  assert.deepEqual(connections.map((c) => [c.transport, rounded(c.firstMs)]), [['tcp', 0], ['udp', 10], ['tcp', 3000]]);
  const [first, udp, second] = connections;
  assert.deepEqual(first.retransmissions, { down: 0, up: 2 }, 'the SYN and the FIN resent');
  assert.deepEqual([first.handshake.startMs, rounded(first.handshake.replyMs), first.handshake.handshakeMs], [0, 1100, null]);
  assert.deepEqual(second.packets, { down: 0, up: 1 });
  assert.deepEqual([udp.serverPort, udp.clientPort, udp.retransmissions], [443, 40000, null]);
  assert.deepEqual(Object.values(udp.handshake).map(rounded), [10, 100, 101]);
  assert.deepEqual(udp.dropped.loss, { down: 1, up: 0 });
  assert.deepEqual(udp.bytes, { down: 4 * 1200, up: 1200 });
  assert.equal(rounded(udp.longestStallMs), 439);
});

test('a connection keeps at most maxMarks marks and says it cut them', () => {
  const lost = Array.from({ length: maxMarks + 5 }, (_, i) => at(i, 'loss', down(1 + i * 100, 100)));
  const [c] = connectionsOf(readCaptureFiles(capture(lost))).connections;
  assert.deepEqual([c.marks.length, c.marksCut, c.dropped.loss.down], [maxMarks, true, maxMarks + 5]);
});

test('a cut or corrupt capture gives the connections read before the cut and an error, never a throw', () => {
  const stem = capture(exchange, { whole: true });
  const sentFile = `${stem}.sent.pcapng`;
  const bytes = fs.readFileSync(sentFile);
  fs.writeFileSync(sentFile, bytes.subarray(0, bytes.length - 1500)); // into the last resends
  const cut = connectionsOf(readCaptureFiles(stem));
  assert.match(cut.error, /the sent file is cut short or corrupt after \d+ packets/);
  assert.equal(cut.connections.length, 1);
  assert.ok(cut.connections[0].packets.down < 8 && cut.connections[0].handshake.replyMs !== null, 'what came before the cut is read');

  assert.match(connectionsOf(readCaptureFiles(path.join(scratch(), 'none'))).error, /none\.sent\.pcapng: ENOENT/);
  // Bytes changed at random, past the section header (a file that is not pcapng at all is an error, above).
  let seed = 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 300; round++) {
    const bad = Buffer.from(bytes);
    for (let i = 0; i < 8; i++) bad[28 + Math.floor(random() * (bad.length - 28))] = Math.floor(random() * 256);
    fs.writeFileSync(sentFile, bad);
    const { connections } = connectionsOf(readCaptureFiles(stem));
    assert.ok(Array.isArray(connections));
  }
});


/** tshark's fields of the packets of `file` that `filter` selects, one array per packet. */
const tshark = (file, filter, ...fields) =>
  execFileSync('tshark', ['-r', file, '-Y', filter, '-T', 'fields', '-E', 'separator=/t', ...fields.flatMap((f) => ['-e', f])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));

test('real TCP at 2 % loss: resends down per connection as tshark flags them (retransmission, fast retransmission, out-of-order), loss drops as their comments say', {
  skip: packetNetworkMissing() ?? tsharkMissing ?? false,
  timeout: 120_000,
}, async (t) => {
  const stem = path.join(scratch(), 'download');
  const { stdout } = await promisify(execFile)('python3', launchPyArgs(['--', process.execPath, 'test/packet/capture-download.js', stem]), { cwd: root });
  const { summary, read } = JSON.parse(stdout.trim().split('\n').at(-1));
  assert.deepEqual(read, [2, 2, 2].map((mib) => mib * 1024 * 1024), 'every download finished');
  const { connections, skipped, error } = connectionsOf(readCaptureFiles(stem));
  assert.deepEqual([connections.length, skipped, error], [3, 0, null]);
  const sentFile = summary.files.sent;
  // tshark 4.0 flags each resend as a retransmission (a fast one as both) or as out-of-order, never both: ours counts either.
  const resent = tshark(sentFile, 'tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order', 'frame.interface_name', 'tcp.dstport');
  const lost = tshark(sentFile, `frame.comment contains "${dropComments.loss}"`, 'frame.interface_name', 'tcp.srcport', 'tcp.dstport');
  const payload = tshark(sentFile, 'tcp.len > 0 && frame.interface_name == "down"', 'tcp.dstport', 'tcp.len');
  const figures = connections.map((c) => {
    const port = String(c.clientPort);
    const theirs = resent.filter(([dir, to]) => dir === 'down' && to === port).length;
    assert.ok(c.retransmissions.down > 0 && Math.abs(c.retransmissions.down - theirs) <= 0.1 * theirs, `port ${port}: ${c.retransmissions.down} resends down, tshark ${theirs}`);
    const lossDrops = lost.filter(([, from, to]) => from === port || to === port).length;
    assert.equal(c.dropped.loss.down + c.dropped.loss.up, lossDrops, `port ${port}: loss drops`);
    assert.equal(c.bytes.down, payload.filter(([to]) => to === port).reduce((n, [, len]) => n + Number(len), 0), `port ${port}: payload down`);
    // Each way, the path releases a piece up to 0.5 ms early (arrivals.js) and the sent file stamps
    // a packet before the path sees it (carry.js): one round trip takes at least 39 ms, two 78.
    assert.ok(c.handshake.replyMs >= 39 && c.handshake.handshakeMs >= 78, `port ${port}: SYN-ACK after ${c.handshake.replyMs} ms, first data after ${c.handshake.handshakeMs} ms (40 ms round trip)`);
    assert.ok(c.longestStallMs > 0);
    return { port, ours: c.retransmissions.down, theirs, lossDrops };
  });
  assert.equal(figures.reduce((n, f) => n + f.lossDrops, 0), summary.packets.droppedByLoss, 'every loss drop is in a connection');
  t.diagnostic(`resends down, ours and tshark's, and loss drops, by client port: ${JSON.stringify(figures)}`);
});
