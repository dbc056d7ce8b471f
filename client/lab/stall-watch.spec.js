// The run's stall watch: the bound counts from the last sign of life of any request, a Stop passes
// through without being taken for a stall, and an ended run is never aborted.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { watchStall } from './stall-watch.js';

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
afterEach(() => vi.useRealTimers());

it('aborts with a TimeoutError once the run has made no progress for the bound', () => {
  const watch = watchStall(1_000);
  vi.advanceTimersByTime(999);
  expect(watch.signal.aborted).toBe(false);
  vi.advanceTimersByTime(1);
  expect(watch.stalled()).toBe(true);
  expect(watch.signal.reason.name).toBe('TimeoutError');
});

it('counts the bound from the last progress, however late in the run', () => {
  const watch = watchStall(1_000);
  for (let i = 0; i < 5; i++) {
    vi.advanceTimersByTime(900);
    watch.progress();
  }
  vi.advanceTimersByTime(999);
  expect(watch.stalled()).toBe(false);
  vi.advanceTimersByTime(1);
  expect(watch.stalled()).toBe(true);
});

it('passes a Stop through without calling it a stall', () => {
  const stop = new AbortController();
  const watch = watchStall(1_000, stop.signal);
  stop.abort();
  expect(watch.signal.aborted).toBe(true);
  expect(watch.stalled()).toBe(false);
});

it('never aborts a run that has ended', () => {
  const watch = watchStall(1_000);
  watch.end();
  vi.advanceTimersByTime(10_000);
  expect(watch.signal.aborted).toBe(false);
});
