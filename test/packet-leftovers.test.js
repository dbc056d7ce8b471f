// The packet network's three leftovers (issue 40, item 6): its read after the emulator died, the
// packets a receiving TUN device refuses, and the page's own packets under a flood from the
// browser side. The end-to-end tests run test/packet/leftovers.js under launch.py and read its
// JSON line; skipped, saying why, where the packet network cannot run. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchPyArgs, packetNetworkMissing } from '../server/packet/launcher.js';
import { carryPacket, writeOrLose } from '../server/packet/carry.js';
import { createCapture } from '../server/packet/capture.js';
import { createPacketDirection } from '../server/path/packets.js';
import { createPath } from '../server/path/path.js';
import { presetConditions } from '../server/path/conditions.js';
import { ipv4 } from './packet/corpus.js';

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

test("packets the receiving TUN device refuses count as dropped by the receiver, not delivered, as many as its kernel dropped", { skip, timeout: 60_000 }, async () => {
  // Before: every refused write counted `delivered` (writeOrLose swallowed the error).
  const { sent, counted, kernelRxDropped } = await inside('refused', '25');
  assert.equal(kernelRxDropped, sent.refusable, 'the server side kernel refused each one');
  assert.deepEqual(counted, { delivered: sent.taken, droppedByReceiver: sent.refusable });
});

test('a refused write: the step counts it dropped by the receiver, the capture keeps it out of what was received', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-refused-'));
  const full = fs.openSync('/dev/full', 'w'); // every write fails (ENOSPC), as a device that refuses would
  try {
    const conditions = presetConditions('no-throttling'); // delivers at once, within the step
    const paths = createPath(conditions);
    const shaper = createPacketDirection(paths.up, () => conditions);
    const capture = createCapture({ stem: path.join(dir, 'run'), whole: true });
    const packet = ipv4({ protocol: 17, source: 40000, destination: 9 });
    carryPacket(packet, shaper, (p) => writeOrLose(full, p), { shaping: true, uiPort: 8080, capture }, 'up');
    // The lab UI's own traffic (unshaped) refused the same way.
    carryPacket(ipv4({ source: 50000, destination: 8080 }), shaper, (p) => writeOrLose(full, p), { shaping: true, uiPort: 8080, capture }, 'up');
    const summary = capture.stop();
    paths.clear();
    const { delivered, deliveredBytes, unshaped, droppedByReceiver } = shaper.counters;
    assert.deepEqual({ delivered, deliveredBytes, unshaped, droppedByReceiver }, { delivered: 0, deliveredBytes: 0, unshaped: 0, droppedByReceiver: 2 });
    assert.deepEqual([summary.packets.sent, summary.packets.received], [1, 0]);
  } finally {
    fs.closeSync(full);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

