// runner/browsers/watchdog.js: a call whose probe goes unanswered is given up with the reason; a call
// that finishes while probes answer is left alone, however long it takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { settlesWithin, whileAnswering } from '../runner/browsers/watchdog.js';

const silence = () => new Error('silent');

test('a long call with answered probes finishes with its value, each probe started after the last answered', async () => {
  let probes = 0;
  const value = await whileAnswering(sleep(200, 'done'), async () => void probes++, { everyMs: 20, deadlineMs: 50, silence });
  assert.equal(value, 'done');
  assert.ok(probes >= 3, `probed ${probes} times`);
});

test('a call that never ends, with a probe that never answers: rejected with the reason after about every + deadline', async () => {
  const started = performance.now();
  await assert.rejects(whileAnswering(new Promise(() => {}), () => new Promise(() => {}), { everyMs: 20, deadlineMs: 50, silence }), /silent/);
  assert.ok(performance.now() - started >= 70);
});

test("a call's own failure is its own, and a probe that fails still counts as an answer", async () => {
  await assert.rejects(whileAnswering(sleep(80).then(() => { throw new Error('own'); }), () => Promise.reject(new Error('probe')), { everyMs: 10, deadlineMs: 50, silence }), /own/);
});

test('settlesWithin: true once the work settles either way, false when it outlasts the deadline', async () => {
  assert.equal(await settlesWithin(sleep(10), 200), true);
  assert.equal(await settlesWithin(Promise.reject(new Error('x')), 200), true);
  assert.equal(await settlesWithin(new Promise(() => {}), 30), false);
});
