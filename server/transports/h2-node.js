// HTTP/2 through node:http2's core API. Express cannot run on node:http2 (express 5 fails in
// IncomingMessage._read on the compatibility request: expressjs/express#6730), so the stream
// is turned into the handler's exchange directly.
import http2 from 'node:http2';
import { errors, headerListBytes } from '../http/errors.js';
import { refuse } from './refuse.js';
import { sessionClock } from './session-clock.js';
import { sendTimeout } from './send-timeout.js';
import { bodyLength, h2SliceFor, writeBody } from '../http/payload.js';
import { lazyAbort } from './lazy-abort.js';

/**
 * @param {import('node:http2').ServerHttp2Stream} stream
 * @param {import('node:http2').IncomingHttpHeaders} headers
 * @param {number} connectionId
 * @param {number} clientPort
 * @param {import('../http/errors.js').HttpError} [rejectWith]
 * @returns {import('../http/handler.js').Exchange}
 */
function exchange(stream, headers, connectionId, clientPort, rejectWith) {
  const abort = lazyAbort();
  stream.once('close', () => {
    if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR || !stream.writableFinished) abort.now();
  });
  // A client reset surfaces as an 'error' on the stream; 'close' above does the accounting.
  stream.on('error', () => {});
  return {
    method: /** @type {string} nghttp2 refuses a request without one */ (headers[':method']),
    target: headers[':path'] ?? '',
    origin: headers.origin,
    authority: headers[':authority'] ?? headers.host ?? '',
    requestHeaders: () =>
      /** @type {[string, string][]} */ (Object.entries(headers).filter(([name, value]) => name[0] !== ':' && value !== undefined).flatMap(([name, value]) => [value].flat().map((one) => [name, String(one)]))),
    connectionId,
    clientPort,
    get signal() {
      return abort.signal();
    },
    respond(status, responseHeaders, body) {
      return new Promise((resolve) => {
        if (stream.destroyed) return resolve(false);
        stream.once('close', () => resolve(stream.rstCode === http2.constants.NGHTTP2_NO_ERROR));
        stream.respond({ ':status': status, ...responseHeaders }, { endStream: body == null });
        if (body != null) writeBody(stream, body, h2SliceFor(bodyLength(body)));
      });
    },
    rejectWith,
    earlyHints(links) {
      if (stream.destroyed || stream.headersSent) return false;
      stream.additionalHeaders({ ':status': 103, link: links.join(', ') }); // one field, as the others
      return true;
    },
    push(path, pushHeaders, body) {
      // Chromium and Firefox send SETTINGS_ENABLE_PUSH = 0: nothing to push, count it refused.
      if (!stream.pushAllowed) return Promise.resolve(false);
      return new Promise((resolve) => {
        try {
          stream.pushStream({ ':path': path }, (err, pushed) => {
            if (err) return resolve(false);
            pushed.on('error', () => {});
            pushed.once('close', () => resolve(pushed.rstCode === http2.constants.NGHTTP2_NO_ERROR));
            pushed.respond({ ':status': 200, ...pushHeaders });
            writeBody(pushed, body, h2SliceFor(bodyLength(body)));
          });
        } catch {
          resolve(false); // the parent stream closed, or the client hit its stream limit
        }
      });
    },
  };
}

/**
 * A server's 'stream' listener: node passes the raw headers too, which @types/node's leaves out.
 * @typedef {(stream: import('node:http2').ServerHttp2Stream, headers: import('node:http2').IncomingHttpHeaders, flags: number, rawHeaders: string[]) => void} StreamListener
 */

/** @param {import('../lab-servers.js').TransportOptions} o */
export function createServer({ tls, handler, tracker, maxStreams, limits }) {
  const server = http2.createSecureServer({
    ...tls,
    allowHTTP1: false,
    handshakeTimeout: limits.handshakeTimeoutMs,
    maxSessionMemory: limits.maxSessionMemoryMB, // node counts in MB (10^6 bytes)
    maxSessionInvalidFrames: limits.maxSessionInvalidFrames,
    maxSessionRejectedStreams: limits.maxSessionRejectedStreams,
    settings: { maxConcurrentStreams: maxStreams, maxHeaderListSize: limits.maxHeaderBytes },
  });
  server.on('session', (session) => {
    // session.destroy() alone leaves a session whose peer stopped reading: no 'close', its socket
    // and every byte queued for it stay (nodejs/node#42710). Its TCP socket (the one under TLS,
    // which session.socket guards against being destroyed) takes all of it down.
    const tcp = /** @type {import('node:tls').TLSSocket & { _parent: import('node:net').Socket }} Node's private field */ (session.socket)._parent;
    const destroy = () => {
      session.destroy();
      tcp.destroy();
    };
    tracker.add(session, destroy, () => session.close());
    const clock = sessionClock(session, limits, () => session.close(), destroy);
    const streams = new Set();
    session.on('stream', (stream) => {
      clock.opened();
      streams.add(stream);
      stream.once('close', () => {
        streams.delete(stream);
        clock.closed();
      });
    });
    // Body bytes a stream holds back (flow control) count as waiting to be sent.
    const waiting = () => {
      let bytes = 0;
      for (const stream of streams) bytes += stream.writableLength;
      return bytes;
    };
    sendTimeout(session.socket, limits, { destroy, waiting });
    session.on('error', () => {}); // a broken peer ends its own session only
  });
  server.on('stream', /** @type {StreamListener} */ ((stream, headers, flags, rawHeaders) => {
    const tooLarge = headerListBytes(rawHeaders) > limits.maxHeaderBytes ? errors.headersTooLarge() : undefined;
    // A request body still to come is read (and dropped) to its end, as spdy does: node:http2
    // resets an unread stream once its response ends and ignores the rest, so a malformed
    // trailer or DATA that breaks content-length went unrefused whenever the lab answered first.
    if (!(flags & http2.constants.NGHTTP2_FLAG_END_STREAM)) stream.resume();
    handler.handle(exchange(stream, headers, tracker.idOf(stream.session), stream.session?.socket?.remotePort ?? 0, tooLarge));
  }));
  // A TLS client that negotiated no ALPN protocol: say that this server speaks h2 only.
  server.on('unknownProtocol', (socket) => refuse(socket, handler, limits.refuseLingerMs));
  return server;
}
