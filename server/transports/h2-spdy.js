// HTTP/2 through the spdy package + express, as in the classic experiment. spdy 4.0.2 (2020)
// still runs on current Node for plain GETs; its limits are in the README.
import spdy from 'spdy';
import { expressApp, expressExchange, rawErrorResponse } from './express-exchange.js';
import { writeBody } from '../http/payload.js';

export const id = 'h2-spdy';
export const label = 'HTTP/2 (spdy)';
export const protocol = 'h2';
export const capabilities = {
  push: true,
  earlyHints: true,
  earlyHintsNote:
    'spdy has no 103 API: the 103 HEADERS frame is sent through spdy-transport\'s stream.respond(), the layer spdy itself uses',
};

export function createServer({ tls, handle, tracker, maxStreams }) {
  const app = expressApp((req, res) => {
    const stream = res.spdyStream;
    return expressExchange(req, res, {
      method: stream.method, // spdy's HTTP/1.1 parser shim turns methods it does not know into null
      connectionId: tracker.idOf(stream.connection.socket),
      // spdy's writeHead would treat a 1xx as the final response; the stream API sends an
      // informational HEADERS frame and leaves the real response to follow.
      earlyHints: (links) => (stream.respond(103, { link: links.join(', ') }), true),
      push: (path, headers, body) =>
        new Promise((resolve) => {
          const pushed = res.push(path, { request: { accept: '*/*' }, response: headers }, (err) => {
            if (err) resolve(false); // the client disabled push (SETTINGS_ENABLE_PUSH = 0)
          });
          pushed.on('error', () => resolve(false));
          pushed.on('finish', () => resolve(true));
          writeBody(pushed, body);
        }),
    });
  }, handle);

  const server = spdy.createServer(
    {
      ...tls,
      spdy: {
        protocols: ['h2'], // ALPN offers h2 only
        plain: false,
        'x-forwarded-for': false,
        connection: { maxStreams },
      },
    },
    app,
  );
  // spdy hands a TLS connection that negotiated no protocol to its HTTP/1.1 fallback; we
  // refuse it out loud, as node:http2 does, instead of serving HTTP/1.1 from an "HTTP/2" server.
  const [spdyConnection] = server.listeners('secureConnection');
  server.removeAllListeners('secureConnection');
  server.on('secureConnection', (socket) => {
    tracker.add(socket, () => socket.destroy());
    if (socket.alpnProtocol !== 'h2') return socket.end(rawErrorResponse());
    spdyConnection.call(server, socket);
  });
  return server;
}
