// The packet network against a hostile process on its browser side (issue 28, "bad input and
// faults"): root of launch.py's namespaces, it puts the review's corpus on its TUN device through
// raw sockets, then floods the device. Each test runs test/packet/hostile.js under launch.py
// (which starts the hostile process, test/packet/hostile-side.py) and reads its JSON line;
// skipped, saying why, where the packet network cannot run. No browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchPyArgs, packetNetworkMissing } from '../server/packet/launcher.js';

const skip = packetNetworkMissing() ?? false;
const root = fileURLToPath(new URL('..', import.meta.url));

async function hostile(...args) {
  const { stdout } = await promisify(execFile)('python3', launchPyArgs(['--', process.execPath, 'test/packet/hostile.js', ...args]), { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

const mb = (bytes) => (bytes / 1e6).toFixed(0);

test('the review corpus from the browser side: the emulator survives it, crafted fragments and headers aimed at the UI port are shaped, the lab still answers', { skip, timeout: 60_000 }, async () => {
  const { refused, expected, counted, sent, uiThroughDevice, uiOnServerSide, emulator } = await hostile('corpus');
  // AF_PACKET puts every packet of the corpus on the device but the empty one; a raw IP socket
  // has no route to 198.19.0.0/16 (neither side has a route anywhere but the other side).
  assert.deepEqual(refused.map((r) => `${r.name} (${r.via}): ${r.error}`).sort(), [
    '0 bytes (device): Invalid argument',
    'TCP to the UI port at an outside address (raw): Network is unreachable',
    'UDP to an outside address (raw): Network is unreachable',
  ]);
  assert.ok(sent >= 40, `${sent} packets crossed`);
  // Only whole TCP segments to or from the UI port passed unshaped; before issue 28's fix, 25
  // more of these did (fragments, IHL 0 and 4, lengths past the bytes, truncated TCP headers).
  assert.deepEqual(counted, expected);
  assert.deepEqual([uiThroughDevice.status, uiOnServerSide.status], [200, 200]);
  assert.equal(emulator.failure, null);
  assert.ok(emulator.cpuMs > 0, 'the emulator answers');
});

// The emulator's RSS over its idle RSS. At the flood's conditions its upload queue reaches its
// bound, pathLimits.maxInFlightBytes, counted as each packet's bytes + 512 (~31,000 packets of
// 28 bytes; config.js measured ~26 MB of RSS for such a queue); the download direction, which
// carries the server side's ICMP answers, has the same bound; V8's young generation under this
// churn takes up to 2 × 16 MB more. Seen: 49–55 MB within 10 s, flat once the queue is full (after
// 60 s: 62 MB, V8's heap sizing; server/packet/carry.js keeps a kept packet from pinning 8 KiB).
const rssSlackBytes = 100e6;

test('a 10 s flood of the browser side: the emulator stays within 100 MB of its idle RSS, and the lab answers during and after', { skip, timeout: 120_000 }, async () => {
  const { flood, emulatorRss, carried, uiThroughDevice, uiOnServerSide, afterThroughDevice, afterOnServerSide, emulator } = await hostile('flood', '10');
  const figures = `${flood.sent.toLocaleString('en')} packets sent at ${Math.round(flood.packetsPerSecond).toLocaleString('en')}/s, ${carried.shaped.toLocaleString('en')} read by the emulator; RSS ${mb(emulatorRss.idle)} MB idle, ${mb(emulatorRss.hwm)} MB at the peak`;
  assert.ok(carried.shaped > 10_000, `the flood reached the emulator: ${figures}`);
  assert.ok(emulatorRss.hwm - emulatorRss.idle < rssSlackBytes, figures);
  assert.equal(emulator.failure, null);
  // The lab itself (loopback, beside the flooded path) answers every time, at once.
  assert.equal(uiOnServerSide.ok, uiOnServerSide.count, JSON.stringify(uiOnServerSide.failed));
  assert.ok(uiOnServerSide.maxMs < 2_000, `the UI on the server side: at most ${uiOnServerSide.maxMs.toFixed(0)} ms`);
  // From the browser side: until issue 40 the UI's packets met the flood in that side's device
  // queue (10,000 packets), which drops what the emulator has not read (answers in 0.3–3.3 s, 3
  // GETs of 7 timed out after 5 s); they take the UI link now (server/packet/ui-link.js), and
  // test/packet-leftovers.test.js holds every GET to a second. When the flood ends, it answers at once.
  assert.ok(uiThroughDevice.count >= 1, `the UI was asked through the device during the flood: ${JSON.stringify(uiThroughDevice)}`);
  assert.deepEqual([afterThroughDevice.status, afterOnServerSide.status], [200, 200]);
  assert.ok(afterThroughDevice.ms < 2_000, `after the flood, through the device: ${afterThroughDevice.ms.toFixed(0)} ms`);
});

test('launch.py whose launcher dies before its prctl, under a subreaper, runs nothing', { skip, timeout: 30_000 }, async () => {
  // The orphan's new parent is the subreaper (systemd --user, tini), not pid 1: the check before
  // issue 28 (getppid() == 1) let it run the command, which nothing would then stop.
  const { stdout } = await promisify(execFile)('python3', ['test/packet/subreaper.py', ...launchPyArgs([])], { cwd: root });
  assert.doesNotMatch(stdout, /the command ran/);
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)), { exitCode: 1 });
});
