// A twin port: a TCP relay in front of one lab server whose bytes cross the link's shared path (server/path/).
// It sits below TLS, so the browser's handshake, every HTTP/2 frame and every HTTP/1.1
// connection pay the link, as on a real path. The browser's connect to this local port is
// instant, so the relay holds the connection's first bytes back for one round trip: the time
// TCP's SYN and SYN-ACK would have taken. It connects to the server when the handshake's last
// ACK would arrive there, half a round trip later, with the first bytes: as a real server, it
// accepts then, and its handshake and header timers allow for the link's delay.
import net from 'node:net';

/** @typedef {ReturnType<typeof import('../path/direction.js').createDirection>} Direction */

/**
 * Forwards `from` → `to` through one direction of the path, in slices. `from` is paused
 * while the path's queue is full or `to` cannot take more (a browser that stops reading
 * holds the server back, as TCP would), and resumed when both have room. The pieces belong to
 * `to`: when it closes, those still on the link leave it.
 * @param {net.Socket} from @param {net.Socket} to @param {Direction} direction
 */
function forward(from, to, direction) {
  /** @type {(() => void)|null} */
  let cancelWait = null;
  const maybeResume = () => {
    cancelWait = null;
    if (from.destroyed || to.destroyed || to.writableNeedDrain) return; // 'drain' calls again
    if (direction.hasRoom()) from.resume();
    else cancelWait = direction.whenRoom(maybeResume);
  };
  /** @param {Buffer} piece */
  const deliver = (piece) => () => {
    if (to.destroyed || to.writableEnded) return;
    if (!to.write(piece)) from.pause();
  };
  to.on('drain', maybeResume);
  // What `from` still sends has nowhere to go: it is read and dropped, as the closed socket's
  // peer would refuse it, until `from`'s own end or reset.
  to.on('close', () => {
    direction.drop(to);
    cancelWait?.();
    from.resume();
  });
  from.on('data', (chunk) => {
    if (to.destroyed) return;
    const size = direction.sliceBytes();
    let room = true;
    for (let i = 0; i < chunk.length; i += size) {
      const piece = chunk.subarray(i, i + size);
      room = direction.send(piece.length, deliver(piece), to);
    }
    if (!room && !cancelWait) {
      from.pause();
      cancelWait = direction.whenRoom(maybeResume);
    }
  });
  // An orderly end travels behind the data still on the link; so does a reset.
  from.on('end', () => direction.send(0, () => to.destroyed || to.end(), to));
  from.on('error', () => direction.send(0, () => to.destroyed || to.resetAndDestroy(), to));
  return () => cancelWait?.();
}

/**
 * Opens a twin port.
 * @param {object} o
 * @param {Pick<ReturnType<typeof import('../path/path.js').createPath>, 'down'|'up'>} o.path the link's path (server/path/path.js)
 * @param {() => number} o.rttMs the round trip now in force
 * @param {number} o.targetPort the lab server's port
 * @param {string} o.targetHost where that server listens (loopback when it listens everywhere)
 * @returns {net.Server & { pairs: Set<() => void> }} pairs: one teardown per open connection
 */
export function createRelay({ path, rttMs, targetPort, targetHost }) {
  /** @type {Set<() => void>} */
  const pairs = new Set();
  const server = net.createServer({ allowHalfOpen: true, noDelay: true, pauseOnConnect: true }, (client) => {
    const upstream = new net.Socket({ allowHalfOpen: true });
    upstream.setNoDelay(true);
    const connect = () => upstream.destroyed || upstream.connect(targetPort, targetHost);
    /** @type {Array<() => void>} */
    const stops = [];
    /** @type {NodeJS.Timeout|null} */
    let handshake = null;
    const teardown = () => {
      clearTimeout(handshake ?? undefined);
      for (const stop of stops) stop();
      client.destroy();
      upstream.destroy();
    };
    pairs.add(teardown);
    stops.push(forward(upstream, client, path.down));
    const startUpload = () => {
      handshake = null;
      // Ahead of the first bytes, so they find the connection open (a connecting socket buffers).
      path.up.send(0, connect, upstream);
      stops.push(forward(client, upstream, path.up));
      client.resume();
    };
    // The SYN / SYN-ACK round trip a real path would cost before the first byte (the ClientHello).
    const rtt = rttMs();
    if (rtt > 0) handshake = setTimeout(startUpload, rtt);
    else startUpload();
    let open = 2;
    for (const socket of [client, upstream]) {
      socket.on('error', () => {}); // forward() passes it on as a reset
      socket.on('close', () => {
        open -= 1;
        if (open === 0) {
          clearTimeout(handshake ?? undefined);
          for (const stop of stops) stop();
          pairs.delete(teardown);
        }
      });
    }
    // A browser that goes away during the handshake round trip leaves nothing to relay.
    client.on('close', () => handshake && teardown());
  });
  return Object.assign(server, { pairs });
}
