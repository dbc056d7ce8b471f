// Request timeouts for HTTP/2, which has none of its own: node:http2's session timeout and a
// socket timeout restart on any byte, so a peer trickling a header block (that never becomes a
// stream) keeps them alive for ever. This clock counts streams instead: a connection that opens
// no stream within headersTimeoutMs of its start, or none within idleTimeoutMs of its last
// stream ending, is closed. That is also what "idle" means for HTTP/1.1 keep-alive.
// `close` ends the connection politely (GOAWAY); if it is still there refuseLingerMs later (a
// peer in the middle of a frame keeps node:http2 waiting), `destroy` ends it.
/**
 * @param {import('node:events').EventEmitter & { destroy(): void, destroyed: boolean }} connection  an HTTP/2 session, or spdy's TLS socket
 * @param {typeof import('../config.js').transportLimits} limits
 * @param {() => void} close @param {() => void} [destroy]
 */
export function sessionClock(connection, limits, close, destroy = () => connection.destroy()) {
  let open = 0;
  const expire = () => {
    close();
    timer = setTimeout(destroy, limits.refuseLingerMs);
  };
  let timer = setTimeout(expire, limits.headersTimeoutMs);
  connection.once('close', () => clearTimeout(timer));
  return {
    /** Streams open now. */
    get open() {
      return open;
    },
    opened() {
      open += 1;
      clearTimeout(timer);
    },
    closed() {
      open -= 1;
      if (open === 0 && !connection.destroyed) timer = setTimeout(expire, limits.idleTimeoutMs);
    },
  };
}
