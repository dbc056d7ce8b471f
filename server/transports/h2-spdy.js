// HTTP/2 through the spdy package + express, as in the classic experiment. spdy 4.0.2 (2020)
// still runs on current Node for plain GETs; its limits are in the README.
import './spdy-warnings.js'; // before spdy: it drops the deprecation warnings spdy raises as it loads
import spdy from 'spdy';
import { expressApp, expressExchange } from './express-exchange.js';
import { expressClasses } from './express-classes.js';
import { spdySliceBytes, writeBody } from '../http/payload.js';
import { errors, headerListBytes } from '../http/errors.js';
import { refuse } from './refuse.js';
import { guardedConnection } from './spdy-guard.js';
import { sendTimeout } from './send-timeout.js';
import { frameBackpressure } from './spdy-backpressure.js';

// RFC 9113 §8.3.1: an https :path is an absolute path, or '*' for OPTIONS. spdy passes anything
// on (an absolute URL was served, an empty one reached express's HTML 404); node:http2 resets
// such a stream. The lab answers its 400 JSON instead, past express.
/** @param {import('spdy-transport').Stream} stream */
const validPath = (stream) => typeof stream.path === 'string' && (stream.path.startsWith('/') || (stream.path === '*' && stream.method === 'OPTIONS'));

/** @param {import('../lab-servers.js').TransportOptions} o */
export function createServer({ tls, handler, tracker, maxStreams, limits }) {
  /** @param {import('node:http').IncomingMessage} req @param {import('spdy').SpdyResponse} res */
  const toExchange = (req, res) => {
    const stream = res.spdyStream;
    const tooLarge = headerListBytes(Object.entries(stream.headers).flat()) > limits.maxHeaderBytes;
    return expressExchange(req, res, {
      // spdy's HTTP/1.1 parser shim turns methods it does not know into null (the handler's 405 then quotes "null")
      method: /** @type {string} */ (stream.method),
      sliceBytes: spdySliceBytes,
      connectionId: tracker.idOf(stream.connection.socket),
      clientPort: /** @type {import('node:net').Socket} spdy's socket is the TLS socket */ (stream.connection.socket).remotePort ?? 0,
      // stream.headers holds the pseudo-headers that req.rawHeaders lacks.
      rejectWith: tooLarge ? errors.headersTooLarge() : validPath(stream) ? undefined : errors.badPath(stream.path),
      // spdy's writeHead would treat a 1xx as the final response; the stream API sends an
      // informational HEADERS frame and leaves the real response to follow.
      earlyHints(links) {
        if (res.headersSent || res.writableEnded) return false;
        stream.respond(103, { link: links.join(', ') }); // one field, as the other two send
        return true;
      },
      push: (path, headers, body) =>
        new Promise((resolve) => {
          // spdy keeps a stream for a push the client refused, for the connection's lifetime, so
          // ask first. spdy 4.0.2 is frozen (2020): this private field will not move.
          if (stream.connection._spdyState.framer.pushEnabled === false) return resolve(false);
          const pushed = res.push(path, { request: { accept: '*/*' }, response: headers }, (err) => {
            if (err) return resolve(false);
            writeBody(/** @type {import('spdy-transport').Stream} made by now */ (pushed), body, spdySliceBytes);
          });
          if (!pushed) return resolve(false); // the request's stream has already ended
          pushed.on('error', () => resolve(false));
          pushed.once('finish', () => resolve(true));
          // spdy-transport emits 'close' just before 'finish'; a 'close' with no 'finish' in the
          // same turn is a reset by the client.
          pushed.once('close', () => setImmediate(() => resolve(false)));
        }),
    });
  };
  // express hands toExchange spdy's own responses (spdy makes them; express only adds methods).
  const app = expressApp(/** @type {Parameters<typeof expressApp>[0]} */ (toExchange), handler);

  const server = spdy.createServer(
    {
      ...tls,
      ...expressClasses(app), // spdy hands these to https.Server, which makes each stream's req/res
      handshakeTimeout: limits.handshakeTimeoutMs,
      spdy: {
        protocols: ['h2'], // ALPN offers h2 only
        plain: false,
        'x-forwarded-for': false,
      },
    },
    // Express cannot route a request without a usable path; those go to the handler directly.
    (req, res) => (validPath(res.spdyStream) ? app(req, res) : handler.handle(toExchange(req, res))),
  );
  // spdy would hand a TLS connection that negotiated no protocol to its HTTP/1.1 fallback; we
  // refuse it out loud, as node:http2 does, instead of serving HTTP/1.1 from an "HTTP/2" server.
  // For h2 the connection is made as spdy's server makes it, but kept hold of, so that the
  // guard can add the limits spdy lacks; spdy's _onStream still turns each stream into req/res.
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket) => {
    if (socket.alpnProtocol !== 'h2') return refuse(socket, handler, limits.refuseLingerMs);
    const connection = guardedConnection(socket, limits, maxStreams, (stream) => server._onStream(stream));
    frameBackpressure(connection);
    tracker.add(socket, () => socket.destroy(), () => connection.end());
    sendTimeout(socket, limits, { destroy: () => socket.destroy() });
  });
  return server;
}
