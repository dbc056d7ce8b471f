// Which recorded exchange answers a request, as Web Page Replay matches (catapult
// web_page_replay_go, archive.go FindRequest; docs/notes/har-replay.md, section 4):
//   1. the origin (scheme, host and port, from :authority or Host): an unknown origin is a miss;
//   2. the exact URL: among several, the same method, then the best header ratio, then the one
//      served least often so far (a page that fetches one URL twice gets both recorded answers in turn);
//   3. else the same path with the best query ratio (ties: the shorter URL, then headers);
//   4. else a miss, which the replay counts and answers 404 with what was asked.
// Headers the browser makes per connection or per run (cookies excepted) take no part.

import { addTo as add } from './archive.js';

/** @typedef {import('./archive.js').Exchange} Exchange */

/**
 * @typedef {object} Match
 * @property {Exchange|null} exchange
 * @property {'exact'|'query'|'miss'} how
 */

// Fields every request carries whatever the page, or that differ between recording and replay.
const ignoredHeaders = new Set(['user-agent', 'accept-encoding', 'accept-language', 'connection', 'host', 'content-length', 'cache-control', 'pragma', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'priority']);

/**
 * WPR's ratio: 2·(1 + agreeing) / (count in a + count in b); 1 for identical sets.
 * @param {Map<string, string>} a @param {Map<string, string>} b
 */
function ratio(a, b) {
  let agreeing = 0;
  for (const [k, v] of a) if (b.get(k) === v) agreeing++;
  return (2 * (1 + agreeing)) / (2 + a.size + b.size);
}

/** @param {[string, string][]} pairs */
const headerMap = (pairs) => new Map(pairs.filter(([k]) => !k.startsWith(':') && !ignoredHeaders.has(k)));

/** @param {string} search */
const queryMap = (search) => new Map([...new URLSearchParams(search)].map(([k, v]) => [k, v]));

/**
 * A matcher over an archive's exchanges; it remembers how often each was served.
 * @param {Exchange[]} exchanges
 */
export function createMatcher(exchanges) {
  /** @type {Map<string, Exchange[]>} */
  const byUrl = new Map();
  /** @type {Map<string, Exchange[]>} origin and path, without the query */
  const byPath = new Map();
  for (const e of exchanges) {
    const url = new URL(e.url);
    add(byUrl, e.url, e);
    add(byPath, url.origin + url.pathname, e);
  }
  /** @type {Map<Exchange, number>} */
  const served = new Map();

  /**
   * The best of `candidates` for a request with `headers`: same method first, then header ratio, then least served.
   * @param {Exchange[]} candidates @param {string} method @param {Map<string, string>} headers
   */
  const best = (candidates, method, headers) => {
    let pick = null;
    let pickScore = -1;
    for (const e of candidates.filter((one) => one.method === method)) {
      const score = ratio(headers, headerMap(e.requestHeaders)) - (served.get(e) ?? 0) * 1e-6;
      if (score > pickScore) [pick, pickScore] = [e, score];
    }
    return pick;
  };

  return {
    /**
     * @param {{ method: string, url: string, headers: [string, string][] }} request  url absolute (origin from :authority or Host)
     * @returns {Match}
     */
    match({ method, url, headers }) {
      const wanted = new URL(url);
      wanted.hash = '';
      const request = headerMap(headers);
      let how = /** @type {Match['how']} */ ('exact');
      let exchange = best(byUrl.get(wanted.href) ?? [], method, request);
      if (!exchange) {
        how = 'query';
        const query = queryMap(wanted.search);
        const scored = (byPath.get(wanted.origin + wanted.pathname) ?? []).filter((e) => e.method === method).map((e) => ({ e, q: ratio(query, queryMap(new URL(e.url).search)) }));
        const top = Math.max(-1, ...scored.map((s) => s.q));
        const tied = scored.filter((s) => s.q === top).map((s) => s.e);
        const shortest = Math.min(...tied.map((e) => e.url.length));
        exchange = best(tied.filter((e) => e.url.length === shortest), method, request);
      }
      if (!exchange) return { exchange: null, how: 'miss' };
      served.set(exchange, (served.get(exchange) ?? 0) + 1);
      return { exchange, how };
    },
  };
}
