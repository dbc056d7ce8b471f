// A replay is a handler like the lab's own (server/http/handler.js): every transport and front of
// every family carries it unchanged, so a replayed page reaches HTTP/1.1, HTTP/2 and HTTP/3 the
// way /option does. It answers each request with the recorded exchange that matches it
// (match.js), its headers and body as response.js makes them, after the recorded server think
// time if asked; a request the archive does not hold is a miss, counted with what was asked and
// answered 404 with the error table's JSON, never a hang and never the real origin.
import { errors } from '../http/errors.js';
import { originForm } from '../http/handler.js';
import { createResponder } from '../http/respond.js';
import { createStats } from '../stats.js';
import { createMatcher } from './match.js';
import { replayResponse } from './response.js';

/** @typedef {import('../http/handler.js').Exchange} Exchange */
/** @typedef {import('./archive.js').Archive} Archive */
/** @typedef {import('./archive.js').Exchange} Recorded */

/** No page model: a body the HAR lacks is answered empty. @type {Model} */
const noModel = { bodyOf: () => null, headersOf: () => [] };

/** The misses a result keeps word for word; past these, only counted. */
export const keptMisses = 50;

/**
 * What a replay served, for the result: counted as the requests arrive.
 * @typedef {object} ReplayStats
 * @property {number} requests
 * @property {{ exact: number, query: number }} served  by how the request matched
 * @property {number} misses
 * @property {string[]} missed  the first `keptMisses` misses, 'GET https://…'
 * @property {number} standIns  responses encoded otherwise than recorded (the client did not accept it, or zstd)
 * @property {number} bodiesMade  responses whose body a page model made (the HAR had none)
 * @property {number} favicons  GET /favicon.ico the recording does not hold: the browser's own
 *   request, which HAR exports leave out; answered 404 like a miss, and counted apart from them
 * @property {Arrival[]} arrivals  every request as the server saw it, in order: what a browser
 *   that hides a request's connection, protocol or size (Firefox, cross-origin) is told by
 */

/**
 * @typedef {object} Arrival
 * @property {string} url
 * @property {string} origin
 * @property {number} connectionId  the browser's connection it came over (per server)
 * @property {number|null} bytes  the body sent in answer; null until sent, or if the answer was cut
 */

/**
 * What a page model gives a response the HAR holds no body for (server/replay/model.js).
 * @typedef {object} Model
 * @property {(recorded: Recorded) => Buffer|null} bodyOf  the body made for it; null where the HAR has one
 * @property {(recorded: Recorded) => [string, string][]} headersOf  fields the made response needs
 *   and the recording lacks (its type; a font's CORS permission)
 */

/**
 * @param {object} o
 * @param {string} o.serverId  the lab server that carries it
 * @param {Archive} o.archive
 * @param {'recorded'|'none'} [o.think]  wait the recorded think time before answering
 * @param {Model} [o.model]  makes the bodies the HAR lacks
 * @param {import('../stats.js').Stats} [o.stats]  the counters its responses add to (the server's; its own if not given)
 * @returns {import('../http/handler.js').Handler & { replay: ReplayStats }}
 */
export function createReplayHandler({ serverId, archive, think = 'none', model = noModel, stats = createStats() }) {
  const matcher = createMatcher(archive.exchanges);
  const respond = createResponder({ serverId, stats, allowOrigin: (origin) => origin ?? '*' });
  const thinkMs = think === 'recorded' ? thinkTimes(archive) : new Map();
  /** @type {ReplayStats} */
  const replay = { requests: 0, served: { exact: 0, query: 0 }, misses: 0, missed: [], standIns: 0, bodiesMade: 0, favicons: 0, arrivals: [] };

  /** @param {Exchange} ex */
  async function handle(ex) {
    stats.requests += 1;
    replay.requests += 1;
    const url = `https://${ex.authority}${ex.target[0] === '/' ? ex.target : originForm(ex.target)}`;
    /** @type {Arrival|null} */
    const arrival = ex.authority && URL.canParse(url) ? { url, origin: new URL(url).origin, connectionId: ex.connectionId, bytes: null } : null;
    if (arrival) replay.arrivals.push(arrival);
    if (ex.rejectWith) return respond.fail(ex, ex.rejectWith);
    const headers = ex.requestHeaders();
    const { exchange, how } = URL.canParse(url) ? matcher.match({ method: ex.method, url, headers }) : { exchange: null, how: 'miss' };
    if (!exchange || how === 'miss') {
      if (ex.method === 'GET' && new URL(url).pathname === '/favicon.ico') {
        replay.favicons += 1;
        return respond.fail(ex, errors.replayMiss(ex.method, url));
      }
      replay.misses += 1;
      if (replay.missed.length < keptMisses) replay.missed.push(`${ex.method} ${url}`);
      return respond.fail(ex, errors.replayMiss(ex.method, url));
    }
    replay.served[how] += 1;
    const made = exchange.body ? null : model.bodyOf(exchange);
    if (made) replay.bodiesMade += 1;
    const answered = made ? { ...exchange, headers: [...exchange.headers, ...model.headersOf(exchange)] } : exchange;
    const acceptEncoding = headers.find(([name]) => name === 'accept-encoding')?.[1];
    return respond.afterThink(ex, thinkMs.get(exchange) ?? 0, async () => {
      const r = replayResponse(answered, made ?? exchange.body ?? Buffer.alloc(0), acceptEncoding);
      if (r.standIn) replay.standIns += 1;
      const sent = await ex.respond(r.status, /** @type {Record<string, string>} a list where the recording repeated a field */ (r.headers), ex.method === 'HEAD' || !r.body.length ? null : r.body);
      if (!sent) stats.responsesCut += 1;
      else stats.bytesSent += r.body.length;
      if (sent && arrival) arrival.bytes = r.body.length;
    });
  }

  return { handle, rawResponse: respond.rawResponse, replay };
}

/**
 * The server's think time of each recorded exchange: its wait for the first byte less one round
 * trip to its origin. The round trip is the origin's shortest TCP handshake in the recording
 * (timings.connect less timings.ssl, on a new connection), else its shortest wait (so its
 * quickest answer thought for nothing).
 * @param {Archive} archive
 * @returns {Map<Recorded, number>}
 */
export function thinkTimes(archive) {
  const out = new Map();
  for (const exchanges of archive.byOrigin.values()) {
    const handshakes = exchanges.map((e) => e.handshakeMs).filter((ms) => ms > 0);
    const waits = exchanges.map((e) => e.waitMs).filter((ms) => ms >= 0);
    const rtt = handshakes.length ? Math.min(...handshakes) : waits.length ? Math.min(...waits) : 0;
    for (const e of exchanges) out.set(e, e.waitMs > rtt ? e.waitMs - rtt : 0);
  }
  return out;
}
