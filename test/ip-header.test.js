// The packet network's IP header reading (server/packet/ip-header.js) and the emulator's step for
// each packet (server/packet/carry.js) against an outside review's corpus of hostile packets
// (issue 28): 0 and 1 bytes, version 15, IHL 0, 4 and 15, a total length of 65,535 and others
// that disagree with the bytes read, fragments whose payload starts with the UI's port, IPv6 with
// and without a Fragment header, truncated TCP headers, an outside address. None passes as the
// UI's traffic unless it is a whole TCP segment to or from the UI's port, and none makes the step
// throw, whatever the shaper does with it. test/packet-hostile.test.js sends the same corpus
// through a real packet network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fc from 'fast-check';
import { createPath } from '../server/path/path.js';
import { carryPacket, writeOrLose } from '../server/packet/carry.js';
import { presetConditions } from '../server/path/conditions.js';
import { isTcpPort, tcpPorts } from '../server/packet/ip-header.js';
import { createPacketDirection } from '../server/path/packets.js';
import { hostileCorpus, ipv4, ipv6, uiPort } from './packet/corpus.js';

fc.configureGlobal({ includeErrorInReport: true });

test('well-formed TCP to or from the UI port is the UI, over IPv4 (options and DF included) and IPv6; other ports and UDP are not', () => {
  assert.deepEqual(tcpPorts(ipv4({ source: 50000, destination: uiPort })), { source: 50000, destination: uiPort });
  assert.equal(isTcpPort(ipv4({ source: uiPort, destination: 50000 }), uiPort), true);
  assert.equal(isTcpPort(ipv4({ destination: uiPort, dontFragment: true }), uiPort), true);
  assert.equal(isTcpPort(ipv4({ destination: uiPort, ihl: 15 }), uiPort), true, '40 bytes of IP options, read past');
  assert.equal(isTcpPort(ipv4({ destination: uiPort, tcpWords: 15, payload: 100 }), uiPort), true, 'TCP options and a payload');
  assert.equal(isTcpPort(ipv4({ destination: uiPort, trailing: 6 }), uiPort), true, 'bytes past the total length (padding) are not the packet');
  assert.equal(isTcpPort(ipv6({ destination: uiPort }), uiPort), true);
  assert.equal(isTcpPort(ipv4({ destination: 8443 }), uiPort), false);
  assert.equal(isTcpPort(ipv4({ destination: uiPort, protocol: 17 }), uiPort), false);
  assert.equal(isTcpPort(ipv6({ destination: uiPort, nextHeader: 17 }), uiPort), false);
});

test('the review corpus: no malformed header, fragment or IPv6 extension header reads as UI traffic', () => {
  const corpus = hostileCorpus();
  assert.ok(corpus.length >= 20, `${corpus.length} packets`);
  // Not read as TCP at all, but for the one well-formed segment to another port.
  const readable = new Set(['TCP to another port']);
  for (const { name, packet, ui } of corpus) {
    assert.equal(isTcpPort(packet, uiPort), ui, `${name}: ${packet.subarray(0, 48).toString('hex')}`);
    if (!ui && !readable.has(name)) assert.equal(tcpPorts(packet), null, name);
  }
});

test('every packet of the corpus the reader before issue 28 took for UI traffic is measured now', () => {
  // The reader before the fix, verbatim: ports at IHL × 4 whatever the IHL, the length or the
  // fragment offset. These are the packets that went unshaped.
  const before = (packet) => {
    const version = packet[0] >> 4;
    let offset;
    if (version === 4 && packet.length >= 20 && packet[9] === 6) offset = (packet[0] & 0x0f) * 4;
    else if (version === 6 && packet.length >= 40 && packet[6] === 6) offset = 40;
    else return false;
    if (packet.length < offset + 4) return false;
    return packet.readUInt16BE(offset) === uiPort || packet.readUInt16BE(offset + 2) === uiPort;
  };
  const fooled = hostileCorpus().filter(({ packet, ui }) => !ui && before(packet)).map(({ name }) => name);
  // IHL 0 and 4, a non-first and a first fragment, a total length past the bytes, a truncated
  // TCP header at least: the review's findings.
  assert.ok(fooled.length >= 6, fooled.join(', '));
  for (const name of fooled) assert.equal(isTcpPort(hostileCorpus().find((c) => c.name === name).packet, uiPort), false, name);
});

/** The emulator's step for one direction, at Fast 4G, with the packets its shaper delivered. */
function direction(conditions) {
  const path = createPath(conditions);
  const shaper = createPacketDirection(path.up, () => conditions);
  const written = [];
  return {
    shaper,
    written,
    clear: () => path.clear(),
    /** As emulator.js does with each packet tun-reader.js reads. */
    read: (packet) => carryPacket(packet, shaper, (p) => written.push(p), { shaping: true, uiPort }),
  };
}

test("the emulator's step carries the whole corpus without throwing: the UI's packets unshaped, every other one shaped", () => {
  // No throttling delivers at once, so every packet's delivery runs here too.
  const way = direction(presetConditions('no-throttling'));
  const corpus = hostileCorpus();
  for (const { packet } of corpus) way.read(packet);
  const ui = corpus.filter((c) => c.ui).length;
  assert.deepEqual([way.shaper.counters.unshaped, way.shaper.counters.delivered], [ui, corpus.length - ui]);
  assert.deepEqual(way.written.map((p) => p.toString('hex')).sort(), corpus.map((c) => c.packet.toString('hex')).sort());
  way.clear();
});

test("the step before any conditions are set passes everything unshaped, as emulator.js always has", () => {
  const path = createPath(presetConditions('no-throttling'));
  const shaper = createPacketDirection(path.up, () => ({ loss: 0, burst: null }));
  for (const { packet } of hostileCorpus()) carryPacket(packet, shaper, () => {}, { shaping: false, uiPort });
  assert.equal(shaper.counters.unshaped, hostileCorpus().length);
});

test('a device that refuses a packet (or a descriptor gone) loses it without throwing', () => {
  const full = fs.openSync('/dev/full', 'w'); // every write fails with ENOSPC
  try {
    for (const { packet } of hostileCorpus()) writeOrLose(full, packet);
  } finally {
    fs.closeSync(full);
  }
  writeOrLose(full, Buffer.from([0x45])); // EBADF now
});

test('property: any bytes, and any IPv4 header whatever its fields, carry without throwing; fragments, IHL under 5 and lengths past the bytes are never the UI', () => {
  const way = direction({ ...presetConditions('fast-4g'), loss: 10, burst: { p: 1, r: 25 } });
  const header = fc.record({
    version: fc.constantFrom(4, 4, 4, 6, 0, 15),
    ihl: fc.integer({ min: 0, max: 15 }),
    totalLength: fc.oneof(fc.integer({ min: 0, max: 65_535 }), fc.constant(null)),
    flags: fc.integer({ min: 0, max: 7 }),
    fragmentOffset: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0x1fff })),
    protocol: fc.constantFrom(6, 6, 17, 44),
    ports: fc.constant(uiPort),
    tcpWords: fc.integer({ min: 0, max: 15 }),
    length: fc.integer({ min: 0, max: 140 }),
    noise: fc.uint8Array({ minLength: 140, maxLength: 140 }),
  });
  fc.assert(
    fc.property(fc.oneof(fc.uint8Array({ maxLength: 100 }).map((b) => Buffer.from(b)), header.map(craft)), (packet) => {
      way.read(packet);
      if (!isTcpPort(packet, uiPort)) return;
      // Read as the UI's: then it is an IPv4 or IPv6 packet the kernel would take as whole TCP.
      if (packet[0] >> 4 === 6) return;
      const ihl = packet[0] & 0x0f;
      const total = packet.readUInt16BE(2);
      assert.ok(ihl >= 5, `IHL ${ihl}`);
      assert.equal(packet.readUInt16BE(6) & 0x3fff, 0, 'not a fragment');
      assert.ok(total <= packet.length && total >= ihl * 4 + 20, `total length ${total} of ${packet.length} bytes`);
    }),
    { numRuns: 20_000 },
  );
  way.clear();
});

/** A packet from random header fields over noise, the UI's port where a reader might look for ports. */
function craft({ version, ihl, totalLength, flags, fragmentOffset, protocol, ports, tcpWords, length, noise }) {
  const packet = Buffer.from(noise.subarray(0, length));
  if (length > 0) packet[0] = (version << 4) | ihl;
  if (length >= 4) packet.writeUInt16BE(totalLength ?? length, 2);
  if (length >= 8) packet.writeUInt16BE((flags << 13) | fragmentOffset, 6);
  if (length >= 10) packet[9] = protocol;
  for (const at of [0, 16, 20, 24, 40, 60]) if (length >= at + 4) packet.writeUInt16BE(ports, at + 2);
  if (ihl >= 5 && ihl * 4 + 12 < length) packet[ihl * 4 + 12] = tcpWords << 4;
  return packet;
}
