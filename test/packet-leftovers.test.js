// The packet network's three leftovers (issue 40, item 6): its read after the emulator died, the
// packets a receiving TUN device refuses, and the page's own packets under a flood from the
// browser side. The end-to-end tests run test/packet/leftovers.js under launch.py and read its
// JSON line; skipped, saying why, where the packet network cannot run. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchPyArgs, packetNetworkMissing } from '../server/packet/launcher.js';

const skip = packetNetworkMissing() ?? false;
const root = fileURLToPath(new URL('..', import.meta.url));

async function inside(...args) {
  const { stdout } = await promisify(execFile)('python3', launchPyArgs(['--', process.execPath, 'test/packet/leftovers.js', ...args]), { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

test('after its emulator died, GET /api/networks/packet answers 503 network-failed naming the exit, as its counters do', { skip, timeout: 60_000 }, async () => {
  // Before: 200 with the last conditions, while counters and PUT said 503.
  const { running, killed } = await inside('read-after-death');
  assert.deepEqual([running.network.status, running.counters.status], [200, 200]);
  for (const asked of [killed.network, killed.counters]) {
    assert.deepEqual([asked.status, asked.code], [503, 'network-failed']);
    assert.match(asked.error, /emulator exited \(signal SIGKILL\)/);
  }
});
