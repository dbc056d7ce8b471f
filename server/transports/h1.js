// HTTP/1.1 over TLS: https + express, ALPN offers only http/1.1 so TLS is not the difference.
import https from 'node:https';
import { expressApp, expressExchange } from './express-exchange.js';
import { expressClasses } from './express-classes.js';
import { errors } from '../http/errors.js';
import { sendTimeout } from './send-timeout.js';

/** @typedef {WeakMap<import('node:stream').Duplex, import('node:http').ServerResponse>} NewestResponses  a connection's newest response */

/** @param {import('../lab-servers.js').TransportOptions} o */
export function createServer({ tls, handler, tracker, limits }) {
  const app = expressApp(
    (req, res) =>
      expressExchange(req, res, {
        connectionId: tracker.idOf(req.socket),
        clientPort: req.socket.remotePort ?? 0,
        earlyHints(links) {
          if (res.headersSent || res.writableEnded) return false;
          res.writeEarlyHints({ link: links }); // Node joins them into one field
          return true;
        },
        rejectWith: req.headers.host === undefined && req.httpVersion === '1.1' ? errors.missingHost() : undefined,
      }),
    handler,
  );
  // Node's own Host check answers an empty 400; the exchange above answers it in the lab's JSON.
  const server = https.createServer(
    {
      ...tls,
      ...expressClasses(app),
      ALPNProtocols: ['http/1.1'],
      // Node's TLS servers choose by their own cipher order, which puts AES-256-GCM first; nginx
      // and node:http2 (h2Tls's order) end up with the browser's choice, AES-128-GCM. The same
      // cipher as theirs, so that a comparison compares the servers, not the ciphers.
      honorCipherOrder: false,
      requireHostHeader: false,
      handshakeTimeout: limits.handshakeTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      keepAliveTimeout: limits.idleTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    },
    app,
  );
  // Graceful shutdown: responses not yet started say "connection: close", responses under way
  // end their socket when done, idle sockets close now.
  const inFlight = new Set();
  // Each connection's newest response: a request that arrives before it is done was pipelined,
  // and an error behind pipelined requests waits for theirs.
  /** @type {NewestResponses} */
  const newestResponse = new WeakMap();
  const readFromStream = new WeakSet();
  let draining = false;
  server.on('request', (req, res) => {
    if (draining) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    const { socket } = req;
    const previous = newestResponse.get(socket);
    newestResponse.set(socket, res);
    // Pipelining: Node's HTTP parser reads a TLS socket straight from its handle, and pauses both
    // while queued responses exceed the socket's buffer; but the handle still delivers every 16 KiB
    // record it has already decrypted, so the paused parser fails with HPE_PAUSED (one write of
    // ~300 requests did). A 'data' listener makes Node feed the parser from the socket's stream
    // instead, whose pause holds the rest back until the client has read (test/robust/pipelining).
    // Only once a request arrives before the previous response has closed (the stream costs every
    // request ~10 µs of CPU, h2load, 1 KiB). Browsers do not pipeline, but their next request can
    // beat the previous response's write callback, so their connections switch too, mid-way.
    if (previous && inFlight.has(previous) && !readFromStream.has(socket)) {
      readFromStream.add(socket);
      socket.on('data', () => {});
      // The parser read the handle itself, so the stream still counts its very first read as under
      // way; if Node has paused the connection for a response's writes (as it does whenever the
      // switch comes with output waiting), resuming would then never read again. push('') ends that
      // read, as the stream docs describe, and the stream reads when resumed.
      socket.push('');
    }
  });
  function drain() {
    if (draining) return;
    draining = true;
    for (const res of inFlight) {
      const { socket } = res;
      if (!res.headersSent) res.shouldKeepAlive = false;
      else if (res.writableFinished) socket.end();
      else res.once('finish', () => socket.end());
    }
    server.closeIdleConnections();
  }
  server.on('secureConnection', (socket) => {
    tracker.add(socket, () => socket.destroy(), drain);
    sendTimeout(socket, limits, { destroy: () => socket.destroy() });
  });
  answerMalformed(server, handler, newestResponse);
  return server;
}

/**
 * Malformed HTTP gets the same JSON error shape as everything else instead of Node's bare 400,
 * after the responses to the requests before it: written at once, it would read as the answer
 * to the first of them, and they would never be answered.
 * https also reports TLS failures here (a handshake timeout, say): an HTTP answer cannot reach
 * such a socket, and ending it would wait for a handshake that never comes.
 * @param {import('node:https').Server} server @param {import('../lab-servers.js').TransportOptions['handler']} handler
 * @param {NewestResponses} newestResponse  each connection's newest response, kept by createServer
 */
function answerMalformed(server, handler, newestResponse) {
  const refused = new WeakSet();
  server.on('clientError', (/** @type {NodeJS.ErrnoException} */ err, socket) => {
    const fromHttp = err.code?.startsWith('HPE_') || err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (!fromHttp || !socket.writable || socket.destroyed) return socket.destroy();
    if (refused.has(socket)) return; // the parser repeats its error on every later read
    refused.add(socket);
    const answer = () => socket.writable && socket.end(handler.rawResponse(errors.malformed(err.code)));
    const pending = newestResponse.get(socket);
    if (pending && !pending.destroyed) pending.once('close', answer);
    else answer();
  });
}
