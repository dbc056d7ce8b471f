// The processes a test's command started, found by a mark in their environment (every child
// inherits it: Chromium's helpers, Caddy, the packet launcher and its namespaces' processes), to
// check that none outlives the command.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

export const newMark = () => Math.random().toString(36).slice(2);
export const markEnv = (mark) => ({ H2LAB_TEST_MARK: mark });

/** Processes whose environment carries `mark`: { pid, cmd }[]. */
export function marked(mark) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`H2LAB_TEST_MARK=${mark}`)) found.push({ pid: Number(pid), cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The marked processes still there after up to 5 s. */
export async function untilGone(mark) {
  for (let i = 0; i < 50 && marked(mark).length; i++) await new Promise((r) => setTimeout(r, 100));
  return marked(mark);
}

/** The marked process whose command line contains `part`, if any. */
export const markedWith = (mark, part) => marked(mark).find((p) => p.cmd.includes(part));

/** Gone: no such process, or (reparented to an init that does not reap) a zombie. */
export function isGone(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code === 'ESRCH') return true;
    throw err;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z';
  } catch {
    return true;
  }
}

/** Polls until check() is true; fails naming `what` after timeoutMs. */
export async function until(check, timeoutMs, what) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
