// CoDel (server/path/codel.js) against its published behaviour (RFC 8289), fed packets on a fake
// clock through a link of the path's model (a FIFO served at a constant rate; the discipline
// decides each packet at the head); the `queue` setting of the conditions; and droptail unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '../common/setup/errors.js';
import { codelDefaults, createCodel } from '../server/path/codel.js';
import { parseConditions, publicConditions } from '../server/path/conditions.js';
import { createPacketDirection } from '../server/path/packets.js';
import { createPath } from '../server/path/path.js';
import { bufferHasRoom, queueDisciplines } from '../server/path/queue.js';

const { targetMs, intervalMs } = codelDefaults;
const packetBytes = 1_500;
const linkBytesPerMs = 1_500; // one packet a millisecond: 12 Mbit/s

/**
 * Packets arriving at `arrivals` (ms, in order) on the fake clock, each waiting for the link to
 * send those ahead of it; a dropped packet takes no link time. Returns each packet's head time,
 * sojourn and fate.
 */
function serve(discipline, arrivals) {
  let linkFreeAt = 0;
  return arrivals.map((arrival) => {
    const at = Math.max(arrival, linkFreeAt);
    const sojournMs = at - arrival;
    const dropped = discipline.drops({ at, sojournMs, aheadBytes: (at - arrival) * linkBytesPerMs });
    if (!dropped) linkFreeAt = at + packetBytes / linkBytesPerMs;
    return { arrival, at, sojournMs, dropped };
  });
}

/** `n` packets from `from` ms on, `perMs` a millisecond. */
const steady = (from, n, perMs) => Array.from({ length: n }, (_, i) => from + i / perMs);

test('a standing queue above target for more than an interval starts drops, at intervals shrinking as 1/sqrt(count)', () => {
  // 1.2 packets a millisecond into a link that sends one: the queue stands and grows for 2 s.
  const packets = serve(createCodel(), steady(1_000, 2_400, 1.2));
  const firstAbove = packets.find((p) => p.sojournMs >= targetMs && p.sojournMs * linkBytesPerMs > packetBytes);
  const drops = packets.filter((p) => p.dropped).map((p) => p.at);
  assert.ok(drops.length > 10, `${drops.length} drops`);
  assert.ok(drops[0] >= firstAbove.at + intervalMs, `the first drop (${drops[0]} ms) waits an interval above target (from ${firstAbove.at} ms)`);
  assert.ok(drops[0] < firstAbove.at + intervalMs + 1, `…and no longer (${drops[0]} ms)`);
  // The control law: after the count-th drop, the next is due interval / sqrt(count) later.
  for (let count = 1; count < drops.length; count++) {
    const gap = drops[count] - drops[count - 1];
    const law = intervalMs / Math.sqrt(count);
    assert.ok(Math.abs(gap - law) < 1, `drop ${count + 1}: ${gap.toFixed(2)} ms after the one before, not ${law.toFixed(2)}`);
  }
});

test('a queue whose sojourn falls under target stops dropping', () => {
  // The standing queue of 2 s, then half the link's rate: the queue drains and stays short.
  const packets = serve(createCodel(), [...steady(1_000, 2_400, 1.2), ...steady(3_000, 1_000, 0.5)]);
  const drained = packets.findIndex((p) => p.arrival >= 3_000 && p.sojournMs < targetMs);
  assert.ok(drained > 0 && packets.slice(drained).every((p) => p.sojournMs < targetMs), 'the queue drained');
  assert.ok(packets.slice(0, drained).some((p) => p.dropped), 'it dropped while the queue stood');
  assert.deepEqual(packets.slice(drained).filter((p) => p.dropped), [], 'and never once the sojourn fell under target');
});

test('a burst that drains within an interval is never dropped, however long it waits', () => {
  // 90 packets at once drain in 90 ms: the last waits 89 ms, far above target, under an interval.
  // Bursts every 150 ms with nothing between: each drains before the next.
  const bursts = [0, 150, 300, 450].flatMap((t) => Array.from({ length: 90 }, () => 1_000 + t));
  const packets = serve(createCodel(), bursts);
  assert.ok(Math.max(...packets.map((p) => p.sojournMs)) >= 89);
  assert.deepEqual(packets.filter((p) => p.dropped), []);
});

test('droptail is unchanged: it drops nothing at the head, and its buffer limit is the one it had', () => {
  const packets = serve(queueDisciplines.droptail(), steady(1_000, 2_400, 1.2));
  assert.deepEqual(packets.filter((p) => p.dropped), []);
  assert.ok(packets.at(-1).sojournMs > 300, 'the standing queue only grows');
  const limits = { queueBytes: 3_000, maxCostBytes: 10_000 };
  assert.equal(bufferHasRoom({ backlogBytes: 3_000, costBytes: 10_000 }, limits, 1), true);
  assert.equal(bufferHasRoom({ backlogBytes: 3_001, costBytes: 0 }, limits, 1), false);
  assert.equal(bufferHasRoom({ backlogBytes: 0, costBytes: 10_001 }, limits, 1), false);
  assert.equal(bufferHasRoom({ backlogBytes: 1_501, costBytes: 0 }, limits, 0.5), false, 'a held sender resumes at half');
});

test('the path takes its discipline from the conditions: CoDel drops a flood at the head, droptail only at a full buffer', () => {
  /** 300 packets of 1,000 bytes at once into 100 kB/s (10 ms each): what each discipline drops at the head. */
  const flood = (queue) => {
    const conditions = { rttMs: 0, downloadBps: 100_000, uploadBps: 100_000, queueBytes: 1_000_000, loss: 0, burst: null, queue };
    const path = createPath(conditions);
    const shaper = createPacketDirection(path.down, () => conditions);
    const fates = Array.from({ length: 300 }, () => shaper.carry(1_000, () => {}));
    path.clear();
    return fates.filter((fate) => fate === 'queue').length;
  };
  assert.equal(flood(undefined), 0);
  assert.equal(flood('droptail'), 0);
  // 3 s of queue: drops begin an interval after the sojourn passes target, then come ever faster.
  const dropped = flood('codel');
  assert.ok(dropped > 10 && dropped < 150, `${dropped} of 300 dropped`);
});

test('conditions: queue is droptail by default or codel where packets can be lost; anything else is refused, naming the field', () => {
  const codel = parseConditions({ preset: 'fast-4g', queue: 'codel' }, 'packet');
  assert.equal(codel.queue, 'codel');
  assert.equal(publicConditions(codel).queue, 'codel');
  // Droptail is left out, so conditions and results from before the setting read the same.
  assert.deepEqual(parseConditions({ preset: 'fast-4g', queue: 'droptail' }, 'packet'), parseConditions({ preset: 'fast-4g' }, 'packet'));
  assert.equal('queue' in publicConditions(parseConditions({ preset: 'fast-4g' }, 'link')), false);
  assert.equal(parseConditions({ preset: 'fast-4g', queue: 'droptail' }, 'link').queue, undefined);
  const bad = [
    [{ preset: 'fast-4g', queue: 'red' }, 'packet', /one of droptail, codel, got "red"/],
    [{ preset: 'fast-4g', queue: 7 }, 'packet', /one of droptail, codel/],
    [{ preset: 'fast-4g', queue: 'codel' }, 'link', /loses no packets/],
  ];
  for (const [body, network, message] of bad) {
    assert.throws(() => parseConditions(body, network), (err) => err instanceof InputError && err.field === 'queue' && message.test(err.message), JSON.stringify(body));
  }
});
