// The network measurement's failure names the origin it probed: fetch's own message does not.
import net from 'node:net';
import { expect, it } from 'vitest';
import { calibrate } from './calibrate.js';
import { freePort } from '../../server/fronts/ports.js';

it('a probe that cannot connect fails with the origin in the message', async () => {
  // A port that was free a moment ago: nothing listens there, so the connection is refused.
  const origin = `http://127.0.0.1:${await freePort(0, '127.0.0.1')}`;
  await expect(calibrate(origin)).rejects.toThrow(`measuring the network through ${origin} failed: `);
});

it('a stopped measurement rejects with the abort itself', async () => {
  const controller = new AbortController();
  controller.abort();
  await expect(calibrate('http://127.0.0.1:9', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
});

it('a probe whose server accepts and never answers fails after the probe bound, naming the origin', async () => {
  const sockets = new Set();
  const silent = net.createServer((socket) => sockets.add(socket)); // takes the connection, never says a word
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${silent.address().port}`;
  try {
    await expect(calibrate(origin, { probeTimeoutMs: 200 })).rejects.toThrow(`measuring the network through ${origin} failed: `);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
  }
});
