// spdy's DATA frames go out as views of the bytes written, not copies
// (server/transports/spdy-backpressure.js), and the socket sees exactly what spdy sent before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Duplex } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { frameBackpressure } from '../server/transports/spdy-backpressure.js';

const require = createRequire(import.meta.url);
const transport = createRequire(require.resolve('spdy'))('spdy-transport');

/** A server connection over a socket that records every write. */
function recordingConnection() {
  const writes = [];
  const socket = new Duplex({
    read() {},
    write(chunk, encoding, done) {
      writes.push(chunk);
      done();
    },
  });
  return { connection: transport.connection.create(socket, { protocol: 'http2', isServer: true }), writes };
}

/** Frames: more than one max-size frame, a short one, and an empty END_STREAM. */
async function send({ connection }, data) {
  const { framer } = connection._spdyState;
  await new Promise((resolve) => framer.dataFrame({ id: 1, priority: 0.5, fin: false, data }, resolve));
  await new Promise((resolve) => framer.dataFrame({ id: 1, priority: 0.5, fin: false, data: data.subarray(0, 100) }, resolve));
  await new Promise((resolve) => framer.dataFrame({ id: 1, priority: 0.5, fin: true, data: Buffer.alloc(0) }, resolve));
  await turn();
}

test('DATA frames: the same writes as spdy, the payload not copied', async () => {
  const data = Buffer.alloc(40_000, 'x');
  const spdys = recordingConnection();
  const ours = recordingConnection();
  frameBackpressure(ours.connection);
  await send(spdys, data);
  await send(ours, data);
  assert.deepEqual(ours.writes.map((w) => w.length), spdys.writes.map((w) => w.length), 'the same chunks');
  assert.deepEqual(Buffer.concat(ours.writes), Buffer.concat(spdys.writes), 'the same bytes');
  const views = (writes) => writes.filter((w) => w.buffer === data.buffer).length;
  assert.equal(views(spdys.writes), 0, 'spdy copied every frame');
  assert.equal(views(ours.writes), 4, 'three frames of 40,000 bytes and one of 100, as views of the data');
});
