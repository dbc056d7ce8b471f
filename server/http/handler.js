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
import { MiB } from '../../common/units.js';
import { allowedMethods, errors } from './errors.js';
import { createPageRoutes } from './page-routes.js';
import { payload } from './payload.js';
import { queryParser } from './query.js';
import { createResponder } from './respond.js';

/** HTTP/1.1 allows absolute-form targets (RFC 9112 §3.2.2); route on their path and query. */
function originForm(target) {
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

/** /option's parameters under a server's limits; /page and /asset take the same size and delay. */
export const optionParams = (limits) => ({
  size: { name: 'size', type: 'decimal', min: 0, max: limits.maxSizeMiB, unit: 'MiB', default: 0 },
  delay: { name: 'delay', type: 'decimal', min: 0, max: limits.maxDelayMs, unit: 'ms', default: 0 },
});

/**
 * @param {object} o
 * @param {string} o.serverId an id of common/servers.js
 * @param {{maxSizeMiB: number, maxDelayMs: number, maxAssets: number}} o.limits
 * @param {object} o.stats counters this handler increments
 * @param {(origin?: string) => string} o.allowOrigin the access-control-allow-origin value
 */
export function createHandler({ serverId, limits, stats, allowOrigin }) {
  const params = optionParams(limits);
  const parseOption = queryParser([params.size, params.delay]);
  const respond = createResponder({ serverId, stats, allowOrigin });
  const { headers, afterThink, send, fail } = respond;
  const pages = createPageRoutes({ serverId, limits, stats, respond, params });

  // The hot path: the classic experiment's one route, checked first.
  function option(ex, search) {
    const q = parseOption(search);
    const bytes = Math.floor(q.size * MiB);
    return afterThink(ex, q.delay, (waited) => send(ex, 200, headers(ex, 'application/octet-stream', bytes, waited), payload(bytes)));
  }

  function route(path) {
    if (path === '/option') return option;
    if (path === '/page') return pages.page;
    if (pages.isAsset(path)) return pages.asset;
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

  handle.rawResponse = respond.rawResponse;
  return handle;
}
