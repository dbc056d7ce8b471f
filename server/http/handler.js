// The one request handler behind every transport. A transport turns its request into an
// Exchange (below) and this decides everything a client can observe: status, headers, body
// bytes, timing, pushes and 103s. So the servers differ only in transport.

/**
 * What every transport hands the handler for one request (server/transports/).
 * @typedef {object} Exchange
 * @property {string} method
 * @property {string} target  the request target, '/option?size=1'
 * @property {string|undefined} origin  the request's Origin header
 * @property {string} authority  host[:port] the request is for: :authority, else Host ('' if neither)
 * @property {() => [string, string][]} requestHeaders  its header fields, lower-case names, pseudo-headers left out; made on call, as only a replay asks
 * @property {number} connectionId  per-server serial of the browser's connection
 * @property {number} clientPort  the browser's source port (UDP for HTTP/3), which names its
 *   connection in a packet capture; 0 where the transport cannot tell
 * @property {AbortSignal} signal  aborts when the client goes; made on first use, as most requests never wait
 * @property {(status: number, headers: Record<string, string>, body: Buffer|Buffer[]|null) => Promise<boolean>} respond
 *   resolves true when the whole response was handed to the connection
 * @property {(links: string[]) => boolean} [earlyHints]  sends a 103; absent where the transport cannot
 * @property {(path: string, headers: Record<string, string>, body: Buffer|Buffer[]) => Promise<boolean>} [push]
 *   absent where the transport cannot push
 * @property {import('./errors.js').HttpError} [rejectWith]  the transport found the request malformed
 */

/**
 * The handler a transport is given.
 * @typedef {object} Handler
 * @property {(ex: Exchange) => Promise<unknown>} handle  settles when the response is done, never rejects
 * @property {(err: import('./errors.js').HttpError) => string} rawResponse  a whole HTTP/1.1 error
 *   response, for a connection that never became a request (no ALPN, a malformed request)
 */
import { fields } from '../../common/setup/settings.js';
import { MiB } from '../../common/setup/units.js';
import { allowedMethods, errors } from './errors.js';
import { createPageRoutes } from './page-routes.js';
import { payload } from './payload.js';
import { queryParser } from './query.js';
import { createResponder } from './respond.js';

/**
 * HTTP/1.1 allows absolute-form targets (RFC 9112 §3.2.2); route on their path and query.
 * @param {string} target
 */
export function originForm(target) {
  try {
    const url = new URL(target);
    return url.pathname + url.search;
  } catch {
    return target;
  }
}

/**
 * A setting the page sends on (common/setup/settings.js fields) as a parameter, up to this server's cap.
 * @param {'sizeMiB'|'delayMs'} field @param {number} max
 * @returns {import('./query.js').ParamSpec}
 */
const settingParam = (field, max) => ({ name: fields[field].query, type: /** @type {const} */ ('decimal'), min: fields[field].min, max, unit: fields[field].unit, default: 0 });

/**
 * /option's parameters under a server's limits; /page and /asset take the same size and delay.
 * @param {{ maxSizeMiB: number, maxDelayMs: number }} limits
 * @returns {Record<'size'|'delay', import('./query.js').ParamSpec>}
 */
export const optionParams = (limits) => ({ size: settingParam('sizeMiB', limits.maxSizeMiB), delay: settingParam('delayMs', limits.maxDelayMs) });

/**
 * @param {object} o
 * @param {string} o.serverId an id of common/setup/servers.js
 * @param {{maxSizeMiB: number, maxDelayMs: number, maxAssets: number}} o.limits
 * @param {import('../stats.js').Stats} o.stats counters this handler increments
 * @param {(origin?: string) => string} o.allowOrigin the access-control-allow-origin value
 * @returns {Handler}
 */
export function createHandler({ serverId, limits, stats, allowOrigin }) {
  const params = optionParams(limits);
  const parseOption = queryParser([params.size, params.delay]);
  const respond = createResponder({ serverId, stats, allowOrigin });
  const { headers, afterThink, send, fail } = respond;
  const pages = createPageRoutes({ serverId, limits, stats, respond, params });

  // The hot path: the classic experiment's one route, checked first.
  /** @param {Exchange} ex @param {string} search */
  function option(ex, search) {
    const q = parseOption(search);
    const bytes = Math.floor(q.size * MiB);
    return afterThink(ex, q.delay, (waited) => send(ex, 200, headers(ex, 'application/octet-stream', bytes, waited), payload(bytes)));
  }

  /**
   * @param {string} path
   * @returns {((ex: Exchange, search: string) => Promise<void>)|null}
   */
  function route(path) {
    if (path === '/option') return option;
    if (path === '/page') return pages.page;
    if (pages.isAsset(path)) return pages.asset;
    return null;
  }

  /** @param {Exchange} ex */
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

  return { handle, rawResponse: respond.rawResponse };
}
