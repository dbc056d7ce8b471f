// The path model's parts that need no network (server/path/): traces read strictly, the rate a
// trace gives, the synthetic generator's mean, conditions naming traces, and a change of rate
// re-timing what is queued. The packet network's end-to-end checks are in test/packet.test.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { traceBounds } from '../common/setup/path-limits.js';
import { parseConditions, presetConditions, publicConditions } from '../server/path/conditions.js';
import { createPath } from '../server/path/path.js';
import { constantRate, traceRate } from '../server/path/rate.js';
import { parseTrace } from '../server/path/trace.js';
import { markovTrace } from '../server/path/trace-generator.js';
import { createTraceLibrary } from '../server/path/traces.js';

const read = (text) => parseTrace(text, { name: 't', field: '--trace-down' });

test('a trace that is empty, decreasing, not numbers, too long a gap or too large is refused naming the line', () => {
  const cases = [
    ['', /empty/],
    ['\n', /line 1: "" is not a whole number/],
    ['1\n2\nx\n', /line 3: "x" is not a whole number/],
    ['1\n2.5\n', /line 2: "2.5"/],
    ['-1\n', /line 1/],
    ['5\n3\n', /line 2: 3 comes after 5/],
    ['0\n', /last line must be above 0/],
    ['1\n50000\n', /line 2: 49,999 ms without a slot/],
    ['46000\n46001\n', /line 1: 46,000 ms without a slot/],
    [`${'1\n'.repeat(traceBounds.maxLines + 1)}`, /lines, over 2,000,000/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => read(text), (err) => err.field === '--trace-down' && err.code === 'invalid-field' && message.test(err.message), JSON.stringify(text.slice(0, 20)));
  }
  assert.throws(() => read('1\n'.repeat(5_000_000)), /over 8,388,608 bytes/);
});

test('a trace of one slot per millisecond is 12.03 Mbit/s; repeated lines are several slots, and the trace repeats', () => {
  const one = read('1\n');
  assert.equal(one.meanBps, 1_504_000);
  assert.match(one.sha256, /^[0-9a-f]{64}$/);
  assert.equal(read('2\n2\n4\n').meanBps, (3 * 1504 * 1000) / 4);
  // 8 MiB at one slot per ms: ⌈8,388,608 / 1,504⌉ = 5,578 slots, so the last leaves at 5,578 ms.
  const rate = traceRate(one.slots, 0);
  assert.equal(rate.finishAt(0, 8 * 1024 * 1024), 5_578);
  // Room a piece leaves in its slot goes to the next piece at that time; unused room is lost.
  const r = traceRate(read('10\n').slots, 0);
  assert.deepEqual([r.finishAt(0, 1_000), r.finishAt(10, 504), r.finishAt(10, 1)], [10, 10, 20]);
  assert.equal(r.finishAt(35, 1_504), 40, 'a piece that starts between slots waits for the next');
  assert.deepEqual([r.bytesBetween(0, 30), r.bytesBetween(5, 9)], [3 * 1504, 0]);
  assert.equal(r.timeBefore(40, 3_000), 20, 'two slots before 40 ms: from 20 ms on');
  assert.equal(constantRate(1_000).finishAt(5, 500), 505);
});

test('the synthetic generator: its mean is the mean asked for, to a slot, and it varies', () => {
  for (const meanBps of [1_012_500, 180_000, 50_000]) {
    const t = read(markovTrace({ meanBps, seed: 3 }));
    assert.ok(Math.abs(t.meanBps - meanBps) <= (2 * 1504 * 1000) / t.periodMs, `${t.meanBps} for ${meanBps}`);
    // Slots per second: the quietest second is well under the busiest.
    const perSecond = new Array(60).fill(0);
    for (const ms of t.slots.offsetsMs) perSecond[Math.min(59, Math.floor(ms / 1000))] += 1;
    assert.ok(Math.max(...perSecond) > 2.5 * Math.min(...perSecond), perSecond.join(','));
  }
  assert.equal(markovTrace({ meanBps: 1e6, seed: 1 }), markovTrace({ meanBps: 1e6, seed: 1 }), 'the same seed, the same trace');
});

test('conditions name a trace per direction: the preset keeps its round trip, the rate is the trace\'s mean, results name it with its hash', () => {
  const traces = createTraceLibrary();
  const c = parseConditions({ preset: 'fast-4g', traceDown: 'markov-fast-4g-down', traceUp: 'constant-12mbit' }, 'packet', { traces });
  assert.equal(c.rttMs, 165);
  assert.ok(Math.abs(c.downloadBps - 1_012_500) < 100, String(c.downloadBps));
  assert.equal(c.uploadBps, 1_504_000);
  const shown = publicConditions(c);
  assert.equal(shown.traceDown.name, 'markov-fast-4g-down');
  assert.match(shown.traceDown.sha256, /^[0-9a-f]{64}$/);
  assert.equal(shown.traceUp.meanBps, 1_504_000);
  // No preset: no added delay unless rttMs says so.
  assert.equal(parseConditions({ traceDown: 'constant-12mbit', traceUp: 'constant-12mbit' }, 'link', { traces }).rttMs, 0);
  const bad = [
    [{ preset: 'fast-4g', traceDown: 'nothing-like-it' }, 'traceDown', /no trace "nothing-like-it"/],
    [{ rttMs: 10, downloadBps: 1000, uploadBps: 1000, traceDown: 'constant-12mbit' }, 'traceDown', /not both/],
    [{ traceDown: 'constant-12mbit' }, 'uploadBps', /a number/],
    [{ preset: 'fast-4g', traceUp: 7 }, 'traceUp', /the name of a trace/],
  ];
  for (const [body, field, message] of bad) {
    assert.throws(() => parseConditions(body, 'packet', { traces }), (err) => err.field === field && message.test(err.message), JSON.stringify(body));
  }
  assert.throws(() => traces.add('x', '5\n3\n', 'trace'), /line 2/);
  assert.equal(traces.add('mine', '1\n2\n').meanBps, 1_504_000);
  assert.ok(traces.list().some((t) => t.name === 'mine' && !t.builtIn));
});

test('switching from a trace to a constant rate mid-run re-times what is queued, as a rate change does', async () => {
  const traces = createTraceLibrary();
  traces.add('slow', '1000\n'); // one slot a second
  const path = createPath(parseConditions({ traceDown: 'slow', uploadBps: 1e6 }, 'link', { traces }));
  const arrived = [];
  const t0 = performance.now();
  for (let i = 0; i < 3; i++) path.down.send(1_504, () => arrived.push(performance.now() - t0));
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(arrived, [], 'under the trace the first slot is a second away');
  path.set({ ...presetConditions('no-throttling'), rttMs: 0, downloadBps: 1_504_000, uploadBps: 1e6 });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(arrived.length, 3, 'at 1.5 MB/s the three pieces leave within milliseconds');
  assert.ok(arrived.every((ms) => ms < 100), arrived.join(', '));
  path.clear();
});
