// What every response of one server shares, whatever the route: its headers, the think time,
// sending (HEAD without a body, bytes counted) and errors as JSON, also as raw HTTP/1.1 bytes for
// connections that never became an exchange.
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError, errors } from './errors.js';
import { bodyLength } from './payload.js';

let dateSecond = 0;
let dateText = '';
function httpDate() {
  const now = Date.now();
  if (now - dateSecond >= 1000) {
    dateSecond = now - (now % 1000);
    dateText = new Date(dateSecond).toUTCString();
  }
  return dateText;
}
const exposedHeaders = 'x-server, x-connection-id, x-client-port, server-timing';
const noWait = 'delay;dur=0.000';

/** @typedef {import('./handler.js').Exchange} Exchange */

/**
 * @param {object} o
 * @param {string} o.serverId an id of common/setup/servers.js, sent as x-server
 * @param {import('../stats.js').Stats} o.stats counters the responses increment
 * @param {(origin?: string) => string} o.allowOrigin the access-control-allow-origin value
 */
export function createResponder({ serverId, stats, allowOrigin }) {
  /**
   * Every response's headers; server-timing only where the request could wait.
   * @param {{ origin?: string, connectionId: number, clientPort?: number }} ex  an Exchange, or as much of one as a raw response has
   * @param {string} contentType @param {number} length @param {number} [waitedMs]
   */
  function headers(ex, contentType, length, waitedMs) {
    const origin = allowOrigin(ex.origin);
    /** @type {Record<string, string>} */
    const h = {
      'cache-control': 'no-store',
      'access-control-allow-origin': origin,
      'timing-allow-origin': origin,
      'access-control-expose-headers': exposedHeaders,
      vary: 'origin',
      'x-server': serverId,
      'x-connection-id': String(ex.connectionId),
      'x-client-port': String(ex.clientPort ?? 0),
      date: httpDate(), // spdy omits it; https and node:http2 add it: set it so all three match
      'content-type': contentType,
      'content-length': String(length),
    };
    if (waitedMs !== undefined) h['server-timing'] = waitedMs === 0 ? noWait : `delay;dur=${waitedMs.toFixed(3)}`;
    return h;
  }

  /**
   * Waits the think time unless the client leaves first; resolves the ms actually waited, or null.
   * @param {Exchange} ex @param {number} delayMs
   */
  async function think(ex, delayMs) {
    const start = performance.now();
    // Timers run on the event loop's cached clock and may fire a fraction of a ms early.
    for (let left = delayMs; left > 0; left = delayMs - (performance.now() - start)) {
      try {
        await sleep(left, undefined, { signal: ex.signal });
      } catch {
        return null; // the client went away; the timer is already cleared
      }
    }
    return ex.signal.aborted ? null : performance.now() - start;
  }

  // Requests without a delay answer without an extra promise hop: it is measurable in req/s.
  /**
   * @param {Exchange} ex @param {number} delayMs
   * @param {(waitedMs: number) => Promise<void>} reply
   * @returns {Promise<void>}
   */
  const afterThink = (ex, delayMs, reply) =>
    delayMs > 0 ? think(ex, delayMs).then((waited) => (waited === null ? undefined : reply(waited))) : reply(0);

  /**
   * @param {Exchange} ex @param {number} status @param {Record<string, string>} hdrs
   * @param {Buffer|Buffer[]} content
   */
  function send(ex, status, hdrs, content) {
    const head = ex.method === 'HEAD';
    return ex.respond(status, hdrs, head ? null : content).then((sent) => {
      if (!sent) stats.responsesCut += 1;
      else if (!head && content) stats.bytesSent += bodyLength(content);
    });
  }

  /** @param {Exchange} ex @param {unknown} err  whatever a route threw */
  function fail(ex, err) {
    if (!(err instanceof HttpError)) console.error(`h2lab ${serverId}: ${/** @type {Error} */ (err)?.stack ?? err}`);
    const known = err instanceof HttpError ? err : errors.internal();
    const json = Buffer.from(JSON.stringify(known.body));
    const hdrs = Object.assign(headers(ex, 'application/json', json.length), known.headers);
    return send(ex, known.status, hdrs, json).catch(() => {});
  }

  /**
   * The same error as raw HTTP/1.1 bytes with the same headers, for connections that never
   * became an exchange (malformed HTTP/1.1, a TLS client that did not negotiate h2).
   * @param {HttpError} err
   */
  function rawResponse(err) {
    const json = JSON.stringify(err.body);
    const fields = Object.entries({ ...headers({ connectionId: 0 }, 'application/json', Buffer.byteLength(json)), ...err.headers });
    const head = fields.map(([name, value]) => `${name}: ${value}\r\n`).join('');
    return `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${head}connection: close\r\n\r\n${json}`;
  }

  return { headers, afterThink, send, fail, rawResponse };
}
