// The one request handler behind all three transports. A transport turns its request into an
// "exchange" (below) and this decides everything a client can observe: status, headers, body
// bytes, timing, pushes and 103s. So the servers differ only in transport.
//
// exchange = {
//   method, target ('/option?size=1'), origin (request Origin header or undefined),
//   connectionId (per-server serial of the TCP connection),
//   signal (an AbortSignal that aborts when the client goes; made on first use, as most requests never wait),
//   respond(status, headers, body: Buffer | Buffer[] | null) → Promise<boolean finished>,
//   earlyHints(links) → boolean sent            (absent where the transport cannot send a 103),
//   push(path, headers, body) → Promise<boolean> (absent where the transport cannot push),
//   rejectWith (optional HttpError: the transport found the request malformed),
// }
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { STATUS_CODES } from 'node:http';
import { MiB, earlyHintsHoldMs } from '../config.js';
import { HttpError, allowedMethods, errors } from './errors.js';
import { queryParser } from './query.js';
import { assetUrl, pageHtml, preloadLink } from './page.js';
import { bodyLength, payload } from './payload.js';


/** HTTP/1.1 allows absolute-form targets (RFC 9112 §3.2.2); route on their path and query. */
function originForm(target) {
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

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
const exposedHeaders = 'x-server, x-connection-id, server-timing';
const noWait = 'delay;dur=0.000';

/**
 * @param {object} o
 * @param {string} o.serverId 'h1' | 'h2-spdy' | 'h2-node'
 * @param {{maxSizeMiB: number, maxDelayMs: number, maxAssets: number}} o.limits
 * @param {object} o.stats counters this handler increments
 * @param {(origin?: string) => string} o.allowOrigin the access-control-allow-origin value
 */
export function createHandler({ serverId, limits, stats, allowOrigin }) {
  const size = { name: 'size', type: 'decimal', min: 0, max: limits.maxSizeMiB, unit: 'MiB', default: 0 };
  const delay = { name: 'delay', type: 'decimal', min: 0, max: limits.maxDelayMs, unit: 'ms', default: 0 };
  const parseOption = queryParser([size, delay]);
  const parseAsset = queryParser([size]);
  const parsePage = queryParser([
    { name: 'assets', type: 'integer', min: 1, max: limits.maxAssets, default: 1 },
    size,
    delay,
    { name: 'push', type: 'flag', default: 0 },
    { name: 'hints', type: 'flag', default: 0 },
    { name: 'preload', type: 'flag', default: 0 },
  ]);

  /** Every response's headers; server-timing only where the request could wait. */
  function headers(ex, contentType, length, waitedMs) {
    const origin = allowOrigin(ex.origin);
    const h = {
      'cache-control': 'no-store',
      'access-control-allow-origin': origin,
      'timing-allow-origin': origin,
      'access-control-expose-headers': exposedHeaders,
      vary: 'origin',
      'x-server': serverId,
      'x-connection-id': String(ex.connectionId),
      date: httpDate(), // spdy omits it; https and node:http2 add it: set it so all three match
      'content-type': contentType,
      'content-length': String(length),
    };
    if (waitedMs !== undefined) h['server-timing'] = waitedMs === 0 ? noWait : `delay;dur=${waitedMs.toFixed(3)}`;
    return h;
  }

  /** Waits the think time unless the client leaves first; resolves the ms actually waited, or null. */
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
  const afterThink = (ex, delayMs, reply) =>
    delayMs > 0 ? think(ex, delayMs).then((waited) => (waited === null ? undefined : reply(waited))) : reply(0);

  function send(ex, status, hdrs, content) {
    const head = ex.method === 'HEAD';
    return ex.respond(status, hdrs, head ? null : content).then((sent) => {
      if (sent && !head && content) stats.bytesSent += bodyLength(content);
    });
  }

  function option(ex, search) {
    const q = parseOption(search);
    const bytes = Math.floor(q.size * MiB);
    return afterThink(ex, q.delay, (waited) => send(ex, 200, headers(ex, 'application/octet-stream', bytes, waited), payload(bytes)));
  }

  // Page loads still thinking, by token: which of their assets were asked for before the HTML
  // left. Resource Timing cannot tell (Chromium 156 times an early-hinted asset from when the
  // page used it), so the page's server-timing says it. Entries live only while a page thinks.
  const thinkingPages = new Map();

  function asset(ex, search) {
    const q = parseAsset(search);
    const early = thinkingPages.size ? thinkingPages.get(new URLSearchParams(search).get('v')) : undefined;
    if (early) {
      early.requests += 1;
      early.firstAt ??= performance.now();
    }
    const bytes = Math.floor(q.size * MiB);
    return send(ex, 200, assetHeaders(ex, bytes), payload(bytes));
  }

  // Assets carry a per-page-load token in their URL, so a short private max-age cannot serve a
  // stale copy to another load, while a preloaded or early-hinted response stays usable.
  function assetHeaders(ex, bytes) {
    const h = headers(ex, 'text/javascript; charset=utf-8', bytes);
    h['cache-control'] = 'private, max-age=600';
    return h;
  }

  function page(ex, search) {
    const q = parsePage(search);
    const token = randomBytes(6).toString('hex');
    const bytes = Math.floor(q.size * MiB);
    const urls = Array.from({ length: q.assets }, (_, index) => assetUrl({ index, sizeMiB: q.size, token }));
    // The 103 goes out earlyHintsHoldMs into the think time (config.js says why), or when the
    // think time ends if that comes first, always before the HTML.
    let hintTimer = null;
    const hint = () => {
      clearTimeout(hintTimer);
      hintTimer = null;
      if (ex.earlyHints(urls.map(preloadLink))) stats.earlyHintsSent += 1;
    };
    if (q.hints && ex.earlyHints) {
      if (q.delay > 0) hintTimer = setTimeout(hint, Math.min(earlyHintsHoldMs, q.delay));
      else hint();
    }
    if (q.push && ex.push) {
      // Pushed during the think time, as a 103 would be; outcomes are counted as they settle.
      for (const url of urls) {
        ex.push(url, assetHeaders(ex, bytes), payload(bytes)).then(
          (pushed) => (pushed ? (stats.pushesSent += 1) : (stats.pushesRefused += 1)),
          () => (stats.pushesRefused += 1),
        );
      }
    }
    const html = Buffer.from(pageHtml({ urls, preload: q.preload === 1, serverId }));
    const early = { requests: 0, firstAt: null };
    thinkingPages.set(token, early);
    return afterThink(ex, q.delay, (waited) => {
      thinkingPages.delete(token);
      if (hintTimer) hint();
      const h = headers(ex, 'text/html; charset=utf-8', html.length, waited);
      // How many assets arrived before this HTML, and how long before it the first one did.
      const leadMs = early.firstAt === null ? 0 : performance.now() - early.firstAt;
      h['server-timing'] += `, early-assets;dur=${leadMs.toFixed(3)};desc=${early.requests}`;
      return send(ex, 200, h, html);
    }).finally(() => {
      clearTimeout(hintTimer);
      thinkingPages.delete(token);
    });
  }

  function fail(ex, err) {
    if (!(err instanceof HttpError)) console.error(`h2lab ${serverId}: ${err?.stack ?? err}`);
    const known = err instanceof HttpError ? err : errors.internal();
    const json = Buffer.from(JSON.stringify(known.body));
    const hdrs = Object.assign(headers(ex, 'application/json', json.length), known.headers);
    return send(ex, known.status, hdrs, json).catch(() => {});
  }

  function route(path) {
    if (path === '/option') return option;
    if (path === '/page') return page;
    const m = /^\/asset\/(\d{1,3})$/.exec(path);
    if (m && Number(m[1]) < limits.maxAssets) return asset;
    return null;
  }

  /** Handles one exchange; the promise settles when the response is done, and never rejects. */
  function handle(ex) {
    stats.requests += 1;
    try {
      if (ex.rejectWith) throw ex.rejectWith;
      const target = ex.target[0] === '/' ? ex.target : originForm(ex.target);
      const q = target.indexOf('?');
      const path = q === -1 ? target : target.slice(0, q);
      const run = route(path);
      if (!run) throw errors.notFound(path);
      if (!allowedMethods.includes(ex.method)) throw errors.methodNotAllowed(ex.method);
      return run(ex, q === -1 ? '' : target.slice(q + 1)).catch((err) => fail(ex, err));
    } catch (err) {
      return fail(ex, err);
    }
  }

  /**
   * The same error as raw HTTP/1.1 bytes with the same headers, for connections that never
   * became an exchange (malformed HTTP/1.1, a TLS client that did not negotiate h2).
   */
  handle.rawResponse = (err) => {
    const json = JSON.stringify(err.body);
    const fields = Object.entries({ ...headers({ connectionId: 0 }, 'application/json', Buffer.byteLength(json)), ...err.headers });
    const head = fields.map(([name, value]) => `${name}: ${value}\r\n`).join('');
    return `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status]}\r\n${head}connection: close\r\n\r\n${json}`;
  };
  return handle;
}
