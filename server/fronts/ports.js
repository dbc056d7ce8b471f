// Ports for a front: the front binds them itself, so the lab checks them first (a clear message
// naming the flag, as for the lab's own servers) and picks free ones for port 0. Caddy binds TCP
// on an HTTP/3 port too (caddyserver/caddy#5227), so an HTTP/3 port must be free for both.
import dgram from 'node:dgram';
import { once } from 'node:events';
import net from 'node:net';

/** @param {number} port @param {string} host */
async function bindTcp(port, host) {
  const server = net.createServer();
  server.listen({ port, host, exclusive: true });
  await once(server, 'listening'); // rejects on 'error'
  const { port: bound } = /** @type {net.AddressInfo} */ (server.address()); // a TCP listener's, never a pipe's path
  return { port: bound, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** @param {number} port @param {string} host */
async function bindUdp(port, host) {
  const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  socket.bind({ port, address: host, exclusive: true });
  await once(socket, 'listening'); // rejects on 'error'
  return { port: socket.address().port, close: () => /** @type {Promise<void>} */ (new Promise((resolve) => socket.close(() => resolve()))) };
}

/**
 * A port on host held bound (TCP, and UDP too when `udp`) until release(): `port` itself, or for 0
 * one the OS picks. Held, so that nothing else the lab binds meanwhile (another front's port, a
 * link relay on port 0) can take it before the front does. Rejects with the bind error
 * (EADDRINUSE…) when `port` is taken.
 * @param {number} port @param {string} host @param {{ udp?: boolean }} [o]
 * @returns {Promise<{ port: number, release: () => Promise<void> }>}
 */
export async function reservePort(port, host, { udp = false } = {}) {
  for (let attempt = 0; ; attempt++) {
    const tcp = await bindTcp(port, host);
    try {
      const twin = udp ? await bindUdp(tcp.port, host) : null;
      return { port: tcp.port, release: () => Promise.all([tcp.close(), twin?.close()]).then(() => {}) };
    } catch (err) {
      await tcp.close();
      // A free TCP port whose UDP twin is taken: only worth another try when the OS picked it.
      if (port !== 0 || attempt >= 20) throw err;
    }
  }
}

/**
 * A port on host that is free now (reservePort's, released at once).
 * @param {number} port @param {string} host @param {{ udp?: boolean }} [options]
 */
export async function freePort(port, host, options) {
  const reserved = await reservePort(port, host, options);
  await reserved.release();
  return reserved.port;
}

