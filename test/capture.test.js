// The packet network's capture files (server/packet/capture.js, pcapng.js): what the emulator's
// step writes for each packet's fate, read back by the lab's own reader and by tshark (Wireshark's,
// where installed), which must open them as any capture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCapture, dropComments, keptBytes } from '../server/packet/capture.js';
import { readPcapng } from '../server/packet/pcapng.js';
import { packetLimits } from '../server/config.js';
import { ipv4 } from './packet/corpus.js';
import { tsharkMissing } from './helpers/tshark.js';


const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-capture-'));

/** Three packets down (one lost, one dropped at the queue), one up; two of them received. */
function writeSample(dir, whole) {
  const capture = createCapture({ stem: path.join(dir, 'run'), whole });
  const big = ipv4({ source: 443, destination: 50000, payload: 1400 });
  const ack = ipv4({ source: 50000, destination: 443 });
  capture.sent(big, 'down', 'onLink');
  capture.sent(big, 'down', 'loss');
  capture.sent(big, 'down', 'queue');
  capture.sent(ack, 'up', 'onLink');
  capture.received(big, 'down');
  capture.received(ack, 'up');
  return { summary: capture.stop(), big, ack };
}

test('a capture writes what entered and what left, each drop with its cause, headers only unless whole packets are asked for', () => {
  const dir = scratch();
  const { summary, big } = writeSample(dir, false);
  assert.deepEqual(summary.packets, { sent: 4, received: 2, droppedByLoss: 1, droppedByQueue: 1 });
  assert.equal(summary.cut, null);
  assert.equal(summary.error, null);
  const sent = readPcapng(fs.readFileSync(summary.files.sent));
  assert.deepEqual(sent.interfaces, ['down', 'up']);
  assert.equal(sent.truncated, false);
  assert.deepEqual(sent.packets.map((p) => [p.interfaceId, p.comment]), [[0, null], [0, dropComments.loss], [0, dropComments.queue], [1, null]]);
  assert.equal(sent.packets[0].data.length, packetLimits.captureHeaderBytes, 'a header capture keeps the first bytes');
  assert.equal(sent.packets[0].length, big.length, 'and says how long the packet was');
  const received = readPcapng(fs.readFileSync(summary.files.received));
  assert.equal(received.packets.length, 2);
  assert.ok(received.packets[0].timeUs >= sent.packets[0].timeUs && Math.abs(received.packets[0].timeUs - Date.now() * 1000) < 60e6, 'epoch microseconds');
  assert.equal(summary.bytes, fs.statSync(summary.files.sent).size + fs.statSync(summary.files.received).size);

  const whole = writeSample(scratch(), true).summary;
  assert.ok(readPcapng(fs.readFileSync(whole.files.sent)).packets[0].data.equals(big));
});

test('a capture cut short gives its whole blocks and says so; a file that is not pcapng is refused', () => {
  const { summary } = writeSample(scratch(), true);
  const bytes = fs.readFileSync(summary.files.sent);
  const cut = readPcapng(bytes.subarray(0, bytes.length - 10));
  assert.equal(cut.truncated, true);
  assert.equal(cut.packets.length, 3);
  assert.throws(() => readPcapng(Buffer.from('GET / HTTP/1.1\r\n\r\n')), /not a little-endian pcapng file/);
  // A packet block whose kept length runs past its block: read up to it, as a cut.
  let firstPacket = 0;
  while (bytes.readUInt32LE(firstPacket) !== 6) firstPacket += bytes.readUInt32LE(firstPacket + 4);
  const bad = Buffer.from(bytes);
  bad.writeUInt32LE(0xffff, firstPacket + 20); // its captured length
  assert.deepEqual([readPcapng(bad).packets.length, readPcapng(bad).truncated], [0, true]);
});

test('a write that fails (a full disk) stops the capture and names the file', (t) => {
  const dir = scratch();
  const failing = createCapture({ stem: path.join(dir, 'run'), whole: true });
  // Every write refused with ENOSPC, as a full disk does (a link to /dev/full cannot stand in for
  // the file: the capture creates its files exclusively and follows no link).
  t.mock.method(fs, 'writeSync', () => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
  const packet = ipv4({ source: 443, destination: 50000, payload: 1400 });
  for (let i = 0; i < 1000; i++) failing.sent(packet, 'down', 'onLink');
  const summary = failing.stop();
  assert.match(summary.error, /writing .*run\.sent\.pcapng failed: ENOSPC/);
  assert.ok(summary.packets.sent < 1000, `recording stopped at the failure: ${summary.packets.sent}`);
});

test('tshark opens both files: the drops by their comment, the packets on their interfaces', { skip: tsharkMissing ?? false }, () => {
  const { summary } = writeSample(scratch(), false);
  const fields = (file, ...args) =>
    execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'frame.interface_name', '-e', 'tcp.srcport', '-e', 'frame.comment', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'));
  assert.deepEqual(fields(summary.files.sent), [
    ['down', '443', ''],
    ['down', '443', dropComments.loss],
    ['down', '443', dropComments.queue],
    ['up', '50000', ''],
  ]);
  assert.deepEqual(fields(summary.files.sent, '-Y', 'frame.comment contains "loss"').length, 1);
  assert.equal(fields(summary.files.received).length, 2);
});

test('a capture of headers keeps control whole and cuts bulk: every packet up, a TLS handshake record or a QUIC long header down', () => {
  const cutAt = packetLimits.captureHeaderBytes;
  const down = (o) => keptBytes(ipv4({ source: 443, destination: 50000, payload: 1400, ...o }), 'down');
  assert.equal(keptBytes(ipv4({ payload: 1400 }), 'up'), 0, 'a request, whole');
  assert.equal(down({ firstByte: 0x16 }), 0, 'the ServerHello, whole');
  assert.equal(down({ firstByte: 0x17 }), cutAt, 'application data, cut');
  assert.equal(down({ protocol: 17, firstByte: 0xc3 }), 0, 'a QUIC Initial or Handshake packet, whole');
  assert.equal(down({ protocol: 17, firstByte: 0x43 }), cutAt, 'a QUIC 1-RTT packet, cut');
  assert.equal(down({ cut: 30 }), cutAt, 'a packet too short to tell, cut');
});
