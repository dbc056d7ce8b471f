// The packet network's parts that need no namespace: the shaper's loss (random and
// Gilbert–Elliott) and droptail queue, the IP header reading that keeps the UI unshaped, and the
// one check of PUT /api/networks/<id>'s body (server/path/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPath } from '../server/path/path.js';
import { isTcpPort } from '../server/packet/ip-header.js';
import { parseConditions } from '../server/path/conditions.js';
import { createPacketDirection } from '../server/path/packets.js';
import { lossStreamSeeds, mulberry32, runLossSeed } from '../common/setup/seeds.js';

const instantLink = { hasRoom: () => true, send: (bytes, deliver) => deliver() };

/** Carries n packets; the losses, and the lengths of the runs of lost packets. */
function lossesOf(conditions, n = 200_000) {
  const shaper = createPacketDirection(instantLink, () => conditions, mulberry32(7) /* seeded: each run draws the same packets */);
  const bursts = [];
  let run = 0;
  for (let i = 0; i < n; i++) {
    const before = shaper.counters.droppedByLoss;
    shaper.carry(1500, () => {});
    if (shaper.counters.droppedByLoss > before) run += 1;
    else if (run) bursts.push(run), (run = 0);
  }
  return { ...shaper.counters, bursts };
}

const within = (k, n, p) => Math.abs(k - n * p) <= 3.29 * Math.sqrt(n * p * (1 - p)); // 99.9 %

test('random loss loses its share of packets, in runs as short as chance makes them', () => {
  const c = lossesOf({ loss: 2, burst: null });
  assert.equal(c.delivered + c.droppedByLoss, 200_000);
  assert.ok(within(c.droppedByLoss, 200_000, 0.02), `${c.droppedByLoss} lost of 200,000 at 2 %`);
  const mean = c.bursts.reduce((a, b) => a + b, 0) / c.bursts.length;
  assert.ok(mean < 1.1, `mean run ${mean}`);
});

test('Gilbert–Elliott loses p / (p + r) of packets in bursts of 1 / r on average', () => {
  const c = lossesOf({ loss: 0, burst: { p: 1, r: 25 } });
  const share = c.droppedByLoss / 200_000;
  assert.ok(Math.abs(share - 1 / 26) < 0.004, `lost ${share}`);
  const mean = c.bursts.reduce((a, b) => a + b, 0) / c.bursts.length;
  assert.ok(Math.abs(mean - 4) < 0.3, `mean burst ${mean} packets`);
});

test('a seed restarts the losses: the same seeds lose the same packets, whatever was drawn before; each direction and repeat its own', () => {
  /** Which of n packets a shaper loses after seeding it. */
  const lostAfterSeed = (shaper, seeds, n = 2_000) => {
    shaper.seedLoss(seeds);
    const lost = [];
    for (let i = 0; i < n; i++) if (shaper.carry(1500, () => {}) === 'loss') lost.push(i);
    return lost;
  };
  const conditions = { loss: 5, burst: { p: 1, r: 25 } };
  const shaper = createPacketDirection(instantLink, () => conditions);
  const run = runLossSeed(1, 3, conditions);
  const first = lostAfterSeed(shaper, lossStreamSeeds(run, 'down'));
  for (let i = 0; i < 123; i++) shaper.carry(1500, () => {}); // a warm-up's packets, and a burst left open
  assert.deepEqual(lostAfterSeed(shaper, lossStreamSeeds(run, 'down')), first);
  assert.deepEqual(lostAfterSeed(createPacketDirection(instantLink, () => conditions), lossStreamSeeds(run, 'down')), first, 'another shaper, the same losses');
  assert.notDeepEqual(lostAfterSeed(shaper, lossStreamSeeds(run, 'up')), first, 'the other direction draws its own');
  assert.notDeepEqual(lostAfterSeed(shaper, lossStreamSeeds(runLossSeed(1, 4, conditions), 'down')), first, 'the next repeat draws its own');
  // Random loss draws apart from the bursts: from the same run seed, without bursts it loses a subset of what it lost with them.
  const randomOnly = createPacketDirection(instantLink, () => ({ loss: 5, burst: null }));
  const subset = lostAfterSeed(randomOnly, lossStreamSeeds(run, 'down'));
  assert.ok(subset.length > 0 && subset.every((i) => first.includes(i)), 'the random losses are the same with bursts on or off');
});

test('a full queue drops what arrives (droptail, in bytes), and what it took is delivered', async () => {
  const conditions = { rttMs: 0, downloadBps: 100_000, uploadBps: 100_000, queueBytes: 3_000, loss: 0, burst: null };
  const path = createPath(conditions);
  const shaper = createPacketDirection(path.down, () => conditions);
  let delivered = 0;
  for (let i = 0; i < 10; i++) shaper.carry(1_000, () => (delivered += 1));
  // Backlog 0, 1,000, 2,000 and 3,000 bytes had room; the six after found more than 3,000 queued.
  assert.deepEqual([shaper.counters.droppedByQueue, shaper.counters.onLink], [6, 4]);
  await new Promise((resolve) => setTimeout(resolve, 80)); // 4,000 bytes at 100 kB/s: 40 ms
  assert.deepEqual([delivered, shaper.counters.delivered, shaper.counters.deliveredBytes, shaper.counters.onLink], [4, 4, 4_000, 0]);
  path.clear();
});

test('unshaped packets pass at once and count apart', () => {
  const shaper = createPacketDirection({ hasRoom: () => false, send: () => assert.fail('not on the link') }, () => ({ loss: 50, burst: null }));
  let delivered = 0;
  shaper.carry(100, () => (delivered += 1), { shaped: false });
  assert.deepEqual([delivered, shaper.counters.unshaped, shaper.counters.droppedByQueue], [1, 1, 0]);
});

/** A well-formed TCP segment: its IP length fields and TCP data offset say what it holds (test/ip-header.test.js has the malformed ones). */
function tcpPacket(version, source, destination) {
  const header = version === 4 ? 20 : 40;
  const packet = Buffer.alloc(header + 20);
  packet[0] = version === 4 ? 0x45 : 0x60;
  packet[version === 4 ? 9 : 6] = 6;
  if (version === 4) packet.writeUInt16BE(packet.length, 2);
  else packet.writeUInt16BE(20, 4);
  packet.writeUInt16BE(source, header);
  packet.writeUInt16BE(destination, header + 2);
  packet[header + 12] = 5 << 4;
  return packet;
}

test('TCP to or from the UI port is told apart, over IPv4 and IPv6; UDP never is', () => {
  for (const v of [4, 6]) {
    assert.equal(isTcpPort(tcpPacket(v, 50000, 8080), 8080), true);
    assert.equal(isTcpPort(tcpPacket(v, 8080, 50000), 8080), true);
    assert.equal(isTcpPort(tcpPacket(v, 50000, 8443), 8080), false);
  }
  const udp = tcpPacket(4, 50000, 8080);
  udp[9] = 17;
  assert.equal(isTcpPort(udp, 8080), false);
  assert.equal(isTcpPort(Buffer.alloc(10), 8080), false);
});

test('PUT /api/networks/packet bodies: a preset with loss and burst, and every bad field named', () => {
  assert.deepEqual(parseConditions({ preset: 'fast-4g', loss: 2, burst: { p: 1, r: 25 } }, 'packet'), {
    preset: 'fast-4g', rttMs: 165, downloadBps: 1_012_500, uploadBps: 168_750, queueBytes: 167_063, queueDefault: true, loss: 2, burst: { p: 1, r: 25 }, traceDown: null, traceUp: null,
  });
  const bad = [
    [{ preset: 'fast-4g', loss: 51 }, 'loss', /0 to 50 %/],
    [{ preset: 'fast-4g', loss: '2' }, 'loss', /a number/],
    [{ preset: 'fast-4g', burst: { p: 1, r: 0 } }, 'burst.r', /1 to 100 %/],
    [{ preset: 'fast-4g', burst: { p: 60, r: 10 } }, 'burst.p', /0 to 50 %/],
    [{ preset: 'fast-4g', burst: 3 }, 'burst', /null or/],
    [{ preset: 'offline' }, 'preset', /Offline/],
    [{ preset: 'fast-4g', queueBytes: 0 }, 'queueBytes', /16,384/],
    [{ rttMs: 20, downloadBps: 0, uploadBps: 1000 }, 'downloadBps', /1 to/],
    [{ preset: 'fast-4g', jitter: 1 }, 'jitter', /unknown field/],
    [[], 'body', /JSON object/],
  ];
  for (const [body, field, message] of bad) {
    assert.throws(() => parseConditions(body, 'packet'), (err) => err.field === field && message.test(err.message), JSON.stringify(body));
  }
});
