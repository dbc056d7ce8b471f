// A throttled TCP link for Node clients, so the push lab can compare push under a network
// preset: a local port that forwards to the server with a one-way delay and a bandwidth per
// direction. It works below TLS, so every byte of the real HTTP/2 connection — handshake,
// frames, pushed streams — queues for the same link, as on a slow network. DevTools throttles
// per request instead (README, Limitations), so the two agree in spirit, not to the millisecond.
import net from 'node:net';
import { once } from 'node:events';

// Slices keep the pacing smooth: at Fast 4G's 1,012,500 B/s a 16 KiB slice takes 16 ms.
const sliceBytes = 16 * 1024;
// Past this much in flight on the link the sender is paused, as a full TCP window would.
const maxQueuedBytes = 1024 * 1024;

/**
 * Forwards `from` to `to` at `bytesPerSecond` (≤ 0: not limited) after `delayMs`, in order.
 * @returns {() => void} stops its timer
 */
function pace(from, to, bytesPerSecond, delayMs) {
  const queue = []; // { at, piece } or { at, end: true }, `at` rising
  let linkFreeAt = 0;
  let queuedBytes = 0;
  let timer = null;

  const schedule = () => {
    if (timer === null && queue.length) timer = setTimeout(flush, Math.max(0, queue[0].at - performance.now()));
  };
  function flush() {
    timer = null;
    const now = performance.now();
    while (queue.length && queue[0].at <= now) {
      const item = queue.shift();
      if (item.end) {
        to.end();
        continue;
      }
      queuedBytes -= item.piece.length;
      if (!to.destroyed) to.write(item.piece);
    }
    if (from.isPaused() && queuedBytes <= maxQueuedBytes / 2) from.resume();
    schedule();
  }
  from.on('data', (chunk) => {
    for (let i = 0; i < chunk.length; i += sliceBytes) {
      const piece = chunk.subarray(i, i + sliceBytes);
      const sent = Math.max(performance.now(), linkFreeAt) + (bytesPerSecond > 0 ? (piece.length / bytesPerSecond) * 1000 : 0);
      linkFreeAt = sent;
      queue.push({ at: sent + delayMs, piece });
      queuedBytes += piece.length;
    }
    if (queuedBytes > maxQueuedBytes) from.pause();
    schedule();
  });
  from.on('end', () => {
    queue.push({ at: Math.max(performance.now() + delayMs, queue.at(-1)?.at ?? 0), end: true });
    schedule();
  });
  return () => clearTimeout(timer);
}

/**
 * Opens a link on a free loopback port.
 * @param {{ port: number, host?: string, latencyMs: number, downloadBps: number, uploadBps: number }} o
 *   latencyMs: the round trip, half of it each way; *Bps: bytes per second, ≤ 0 = not limited
 *   (the units of client/lab/presets.js)
 * @returns {Promise<{ port: number, close(): Promise<void> }>}
 */
export async function openThrottledLink({ port, host = '127.0.0.1', latencyMs, downloadBps, uploadBps }) {
  const teardowns = new Set(); // one per client connection: resets both of its sides
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    const stops = [pace(client, upstream, uploadBps, latencyMs / 2), pace(upstream, client, downloadBps, latencyMs / 2)];
    // An error on either side resets both; an orderly end travels through the link behind the
    // data still on it, and the pair is forgotten when both sides are closed.
    const teardown = () => {
      stops.forEach((stop) => stop());
      client.destroy();
      upstream.destroy();
    };
    teardowns.add(teardown);
    let open = 2;
    for (const socket of [client, upstream]) {
      socket.on('error', teardown);
      socket.on('close', () => {
        open -= 1;
        if (open === 0) {
          stops.forEach((stop) => stop());
          teardowns.delete(teardown);
        }
      });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    async close() {
      const closed = once(server, 'close');
      server.close();
      for (const teardown of teardowns) teardown();
      await closed;
    },
  };
}
