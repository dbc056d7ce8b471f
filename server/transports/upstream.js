// The cleartext HTTP/1.1 listener a front (server/fronts/) forwards to, on loopback only. The
// front terminates TLS and speaks the server's protocol to the browser; this side is the same
// plain hop for every protocol of the family, without express, so the hop adds as little as it can.
import http from 'node:http';
import { errors } from '../http/errors.js';
import { expressExchange } from './express-exchange.js';

/** The request header in which the front names the browser's connection (its address and port). */
export const clientHeader = 'x-lab-client';
/** The request header in which the front asks for a refusal: 'not-http2' (an HTTP/1.1 request to an HTTP/2-only port). */
export const refuseHeader = 'x-lab-refuse';

/** The port of the front's `host:port` (`[v6]:port` alike), 0 when it names none. @param {string|undefined} address */
const portOf = (address) => Number(address?.slice(address.lastIndexOf(':') + 1)) || 0;

/** @param {import('../lab-servers.js').TransportOptions} o */
export function createServer({ handler, tracker, limits, earlyHints }) {
  const server = http.createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      keepAliveTimeout: limits.idleTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    },
    (req, res) =>
      handler.handle(
        expressExchange(req, res, {
          connectionId: tracker.idOfClient(/** @type {string|undefined} node joins a repeated field (set-cookie alone is a list) */ (req.headers[clientHeader])),
          clientPort: portOf(/** @type {string|undefined} */ (req.headers[clientHeader])),
          earlyHints: earlyHints
            ? (links) => {
                if (res.headersSent || res.writableEnded) return false;
                res.writeEarlyHints({ link: links });
                return true;
              }
            : undefined,
          rejectWith: req.headers[refuseHeader] === 'not-http2' ? errors.notHttp2() : undefined,
        }),
      ),
  );
  // The front's pooled connections: closed by /api/reset and at exit, not counted as the browser's.
  server.on('connection', (socket) =>
    tracker.add(socket, () => socket.destroy(), () => server.closeIdleConnections(), { counted: false }),
  );
  server.on('clientError', (err, socket) => socket.destroy());
  return server;
}
