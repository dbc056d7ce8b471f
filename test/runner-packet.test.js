// `npm run experiments -- --network packet` as a person runs it: one line and exit 2 where the
// packet network cannot run; a run whose emulator dies fails with that reason; and nothing the
// run started (launcher, lab, emulator, Caddy, Chromium) outlives it, after a failure or Ctrl-C.
// Run under the browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { exitOf, repoRoot, runScript, startScript, waitFor } from './helpers/cli.js';
import { markEnv, markedWith as has, newMark, untilGone } from './helpers/processes.js';

const skip = packetNetworkMissing() ?? false;
const script = 'runner/experiments.js';
const args = (out) => ['--network', 'packet', '--servers', 'h2-node', '--requests', '1', '--size', '1', '--delay', '0', '--preset', 'fast-4g', '--repeats', '20', '--quiet', '--out', out];

function markedRun(runArgs) {
  const mark = newMark();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-packet-test-'));
  return { mark, dir, run: startScript(script, runArgs(dir), { env: markEnv(mark) }) };
}

test('where the packet network cannot run, one line names what is missing, exit 2', () => {
  const r = runScript(script, ['--network', 'packet'], { env: { PATH: '/nonexistent' } });
  assert.equal(r.status, 2);
  assert.deepEqual(r.lines, ['h2lab experiments: --network packet: the packet network needs python3 (its launcher uses only the standard library): apt-get install -y python3']);
});

test('the emulator dying mid-run fails the run with that reason, and nothing is left behind', { skip }, async () => {
  // Not quiet: the progress bar's first line says the page is loaded and the runs have begun.
  const { mark, dir, run } = markedRun((out) => args(out).filter((a) => a !== '--quiet'));
  try {
    // Mid-run: Chromium is on the browser side and fetching through the emulator.
    await waitFor(run, () => has(mark, 'server/packet/emulator.js') && /runs/.test(run.stderr), 40_000);
    await new Promise((r) => setTimeout(r, 3_000));
    process.kill(has(mark, 'server/packet/emulator.js').pid, 'SIGKILL');
    const { code } = await exitOf(run, 60_000);
    assert.equal(code, 1, run.stderr);
    assert.match(run.stderr, /h2lab experiments: stopped after \d+ of 20 runs \(the packet network's emulator exited \(signal SIGKILL\)\)/);
    assert.deepEqual(await untilGone(mark), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C ends the run with 130 and takes every process of it along', { skip }, async () => {
  const mark = newMark();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-packet-test-'));
  // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
  const child = spawn(process.execPath, [script, ...args(dir)], { cwd: repoRoot, detached: true, stdio: 'ignore', env: { ...process.env, ...markEnv(mark) } });
  try {
    const deadline = Date.now() + 30_000;
    while (!has(mark, '--host-resolver-rules') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(has(mark, 'server/packet/emulator.js'), 'the run started on the packet network');
    process.kill(-child.pid, 'SIGINT');
    const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
    assert.equal(code, 130);
    assert.deepEqual(await untilGone(mark), []);
  } finally {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
