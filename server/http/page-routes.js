// The page experiment's routes: /page, HTML that discovers its scripts late (with push, a 103
// and preload links when asked), and /asset/<n>, its scripts; and which assets a page that is
// still thinking saw requested early, which its server-timing reports.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { assetUrl, pageHtml, preloadLink } from '../../common/setup/page.js';
import { MiB } from '../../common/setup/units.js';
import { earlyHintsHoldMs } from '../config.js';
import { payload } from './payload.js';
import { queryParser } from './query.js';

/** @typedef {import('./handler.js').Exchange} Exchange */
/** @typedef {{ requests: number, firstAt: number|null }} EarlyAssets  a thinking page's assets asked for so far, and when the first was */

/**
 * @param {object} o
 * @param {string} o.serverId
 * @param {{ maxAssets: number }} o.limits
 * @param {import('../stats.js').Stats} o.stats push and 103 counters
 * @param {ReturnType<import('./respond.js').createResponder>} o.respond
 * @param {{ size: import('./query.js').ParamSpec, delay: import('./query.js').ParamSpec }} o.params the size and delay parameters /option declares
 */
export function createPageRoutes({ serverId, limits, stats, respond, params }) {
  const { headers, afterThink, send } = respond;
  const parseAsset = queryParser([params.size]);
  const parsePage = queryParser([
    { name: 'assets', type: 'integer', min: 1, max: limits.maxAssets, default: 1 },
    params.size,
    params.delay,
    { name: 'push', type: 'flag', default: 0 },
    { name: 'hints', type: 'flag', default: 0 },
    { name: 'preload', type: 'flag', default: 0 },
  ]);

  // Page loads still thinking, by token: which of their assets were asked for before the HTML
  // left. Resource Timing cannot tell (Chromium 156 times an early-hinted asset from when the
  // page used it), so the page's server-timing says it. Entries live only while a page thinks.
  /** @type {Map<string|null, EarlyAssets>} */
  const thinkingPages = new Map();

  /** @param {Exchange} ex @param {string} search */
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
  /** @param {Exchange} ex @param {number} bytes */
  function assetHeaders(ex, bytes) {
    const h = headers(ex, 'text/javascript; charset=utf-8', bytes);
    h['cache-control'] = 'private, max-age=600';
    return h;
  }

  /** @param {Exchange} ex @param {string} search */
  function page(ex, search) {
    const q = parsePage(search);
    const token = randomBytes(6).toString('hex');
    const bytes = Math.floor(q.size * MiB);
    const urls = Array.from({ length: q.assets }, (_, index) => assetUrl({ index, sizeMiB: q.size, token }));
    // The 103 goes out earlyHintsHoldMs into the think time (config.js says why), or when the
    // think time ends if that comes first, always before the HTML.
    /** @type {NodeJS.Timeout|null} */
    let hintTimer = null;
    const hint = () => {
      clearTimeout(hintTimer ?? undefined);
      hintTimer = null;
      if (/** @type {NonNullable<Exchange['earlyHints']>} hint() runs only where it is */ (ex.earlyHints)(urls.map(preloadLink))) stats.earlyHintsSent += 1;
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
    /** @type {EarlyAssets} */
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
      clearTimeout(hintTimer ?? undefined);
      thinkingPages.delete(token);
    });
  }

  /**
   * Whether a path is /asset/<n> with n below the assets limit.
   * @param {string} path
   */
  function isAsset(path) {
    const m = /^\/asset\/(\d{1,3})$/.exec(path);
    return m !== null && Number(m[1]) < limits.maxAssets;
  }

  return { page, asset, isAsset };
}
