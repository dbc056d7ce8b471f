// The emulator's reader (server/packet/tun-reader.js) on a FIFO, which epoll polls as it polls a
// TUN device: each read arrives whole, in memory of its own and exactly its length (a packet the
// shaper keeps holds no more than its bytes), and a descriptor that fails or ends is said once.
// test/packet-hostile.test.js and test/packet.test.js read real TUN devices through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readPackets } from '../server/packet/tun-reader.js';

function fifo(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-tun-reader-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'device');
  execFileSync('mkfifo', [file]);
  const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  return { reader, writer: fs.openSync(file, 'w') };
}

test('each read is one packet, in memory of its own exactly its length; the end of the descriptor is said once', async (t) => {
  const { reader, writer } = fifo(t);
  const packets = [];
  const failures = [];
  let next = () => {};
  readPackets(
    reader,
    (packet) => {
      packets.push(packet);
      next();
    },
    (why) => failures.push(why),
  );
  const sizes = [1, 28, 1_500, 4_096, ...Array(1_000).fill(28)];
  for (const [i, size] of sizes.entries()) {
    const arrived = new Promise((resolve) => (next = resolve));
    fs.writeSync(writer, Buffer.alloc(size, i % 256));
    await arrived;
  }
  assert.deepEqual(packets.map((p) => p.length), sizes);
  assert.ok(packets.every((p, i) => p.equals(Buffer.alloc(sizes[i], i % 256))));
  // No view of a shared slab: what a kept packet holds is its own bytes.
  assert.ok(packets.every((p) => p.byteOffset === 0 && p.buffer.byteLength === p.length));
  assert.equal(new Set(packets.map((p) => p.buffer)).size, packets.length);
  fs.closeSync(writer); // the FIFO's last writer gone: a read of 0 bytes
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(failures, [`fd ${reader} gave a read of 0 bytes`]);
});

test('a descriptor that cannot be read from the event loop is said at once', () => {
  const fd = fs.openSync(os.devNull, 'r');
  fs.closeSync(fd);
  const failures = [];
  readPackets(fd, () => assert.fail('no packet'), (why) => failures.push(why));
  assert.deepEqual(failures, [`fd ${fd} cannot be read from the event loop: EBADF`]);
});
