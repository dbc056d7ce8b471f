// Turns a request/response pair of node:http's shape (express on https or spdy, or a plain
// node:http server) into the handler's exchange.
import express from 'express';
import { writeBody } from '../http/payload.js';
import { lazyAbort } from './lazy-abort.js';

/** @typedef {import('../http/handler.js').Exchange} Exchange */

/**
 * Node's raw headers ([name, value, name, value, …]) as pairs, names lower-cased, pseudo-headers
 * (spdy lists HTTP/2's among them) left out.
 * @param {string[]} raw
 * @returns {[string, string][]}
 */
export function pairsOf(raw) {
  /** @type {[string, string][]} */
  const out = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i][0] !== ':') out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

/**
 * @param {import('node:http').IncomingMessage & { originalUrl?: string }} req  express's, or node:http's (upstream.js)
 * @param {import('node:http').ServerResponse} res
 * @param {{ connectionId: number, clientPort: number, earlyHints?: Exchange['earlyHints'], push?: Exchange['push'], rejectWith?: Exchange['rejectWith'],
 *   method?: string, sliceBytes?: number }} o  method: when the transport knows better than req.method
 * @returns {Exchange}
 */
export function expressExchange(req, res, { connectionId, clientPort, earlyHints, push = undefined, rejectWith, method = /** @type {string} a server's request has one */ (req.method), sliceBytes = undefined }) {
  const abort = lazyAbort();
  /** @type {((finished: boolean) => void)|null} */
  let settle = null;
  // spdy's responses emit only 'close', so finished-or-not is read there.
  res.once('close', () => {
    if (!res.writableFinished) abort.now();
    settle?.(res.writableFinished);
  });
  return {
    method,
    target: req.originalUrl ?? /** @type {string} a server's request has one */ (req.url), // express rewrites req.url under mounted routes
    origin: req.headers.origin,
    authority: req.headers.host ?? '',
    requestHeaders: () => pairsOf(req.rawHeaders),
    connectionId,
    clientPort,
    get signal() {
      return abort.signal();
    },
    respond(status, headers, body) {
      return new Promise((resolve) => {
        settle = resolve;
        res.writeHead(status, headers);
        writeBody(res, body ?? undefined, sliceBytes);
      });
    },
    earlyHints,
    push,
    rejectWith,
  };
}

/**
 * Express app that hands every request to the shared handler, adding nothing of its own.
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Exchange} toExchange
 * @param {import('../http/handler.js').Handler} handler
 */
export function expressApp(toExchange, { handle }) {
  const app = express();
  app.disable('x-powered-by'); // headers must not differ between transports
  app.disable('etag');
  app.set('query parser', false); // the shared handler validates the raw query itself
  app.use((req, res) => handle(toExchange(req, res)));
  return app;
}
