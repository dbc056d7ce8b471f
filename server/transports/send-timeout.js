// nginx's send_timeout, on all three servers: a connection with response bytes waiting to leave,
// of which the kernel takes none for sendTimeoutMs, is destroyed, and so is one whose peer is
// gone (reset) while bytes wait. node:http2 on Node 20 never notices that peer itself
// (nodejs/node#42710): its session, and every byte queued for it, stayed for good.
//
// Progress is read where bytes leave the process, on the TCP socket under TLS: bytes handed to
// the kernel are its bytesWritten less what libuv still queues. The TLS socket's own counters
// count bytes queued, not sent, and node:http2 writes past them natively. The kernel takes bytes
// in steps of about a third of the socket's send buffer, so a reader is seen to progress once
// per such step. Any progress restarts the clock: a slow reader keeps its connection. A
// connection with nothing waiting is left alone: idleness is keep-alive's and the session
// clock's business.

/**
 * The private fields read here: a TLS socket's _parent, the TCP socket it wraps, and a socket's
 * _handle, libuv's (Node's TCPWrap).
 * @typedef {{ bytesWritten: number, writeQueueSize: number, getpeername(out: object): number }} Handle
 * @typedef {import('node:net').Socket & { _parent?: Socket, _handle?: Handle|null }} Socket
 */

/**
 * @param {Socket} socket the connection's TLS socket (node:http2's session.socket will do)
 * @param {typeof import('../config.js').transportLimits} limits transportLimits: sendTimeoutMs, and timeoutCheckIntervalMs for how often to look
 * @param {{ destroy: () => void, waiting?: () => number }} o destroy ends the connection at once;
 *   waiting counts response bytes held above the socket (HTTP/2 streams' bodies not yet framed)
 */
export function sendTimeout(socket, limits, { destroy, waiting = () => 0 }) {
  const tcp = socket._parent ?? socket; // a TLS server socket wraps the accepted TCP socket
  let taken = -1;
  let since = 0;
  const check = () => {
    const handle = tcp._handle;
    if (!handle) return; // closing
    const now = performance.now();
    const nowTaken = handle.bytesWritten - handle.writeQueueSize;
    let queued;
    try {
      queued = handle.writeQueueSize + (socket._handle?.writeQueueSize ?? 0) + socket.writableLength + waiting();
    } catch {
      // node:http2's session.socket throws (ERR_HTTP2_SOCKET_UNBOUND) once its session is gone,
      // which can come before the socket's 'close': the connection is over, make sure of it.
      clearInterval(timer);
      return destroy();
    }
    if (nowTaken !== taken || queued === 0) {
      taken = nowTaken;
      since = now;
    }
    // getpeername fails (ENOTCONN) once the peer has reset the connection; the writes that fail
    // then look like progress, so this is asked whenever bytes wait.
    if (queued > 0 && (now - since >= limits.sendTimeoutMs || handle.getpeername({}) !== 0)) destroy();
  };
  const timer = setInterval(check, limits.timeoutCheckIntervalMs).unref();
  socket.once('close', () => clearInterval(timer));
}
