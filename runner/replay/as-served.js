// A load as its server saw it. Firefox's page tells every request's times, but Resource Timing
// hides a cross-origin response's protocol and size (without Timing-Allow-Origin, which a
// recorded page rarely sends) and BiDi names no connection. The replay's server saw each request
// arrive (server/replay/handler.js arrivals): the connection it came over, the body it sent, and
// its protocol, the one protocol that server speaks (an HTTP/2 server answers HTTP/1.1 with a 505,
// an HTTP/3 server has no TCP listener). Each request the browser tells is matched to an arrival
// of its URL, in order; an arrival the browser told nothing of (Firefox 153 gives a stylesheet's
// background image no Resource Timing entry) is a request of the load too, without times.
import { addTo } from '../../server/replay/archive.js';
import { summarize } from './load.js';

/**
 * @param {import('./load.js').ReplayLoad} load
 * @param {import('../../server/replay/handler.js').Arrival[]} arrivals  the server's, during the load
 * @param {string} protocol  the server's
 * @returns {import('./load.js').ReplayLoad}
 */
export function asServed(load, arrivals, protocol) {
  /** @type {Map<string, typeof arrivals>} */
  const byUrl = new Map();
  for (const a of arrivals) addTo(byUrl, a.url, a);
  /** @param {typeof arrivals[number]} a */
  const told = (a) => ({ protocol, connection: String(a.connectionId), bytes: a.bytes ?? 0 });
  const records = load.records.map((r) => {
    const a = byUrl.get(r.url)?.shift();
    return a ? { ...r, ...told(a), protocol: r.protocol ?? protocol } : r;
  });
  const untold = [...byUrl.values()].flat().map((a) => ({ url: a.url, origin: a.origin, status: null, address: null, ...told(a), startMs: null, endMs: null, error: null }));
  return { ...load, ...summarize([...records, ...untold]) };
}

/**
 * How many of the connections a load's requests came over had carried a request before it: a
 * cold load's must be none.
 * @param {import('../../server/replay/handler.js').Arrival[]} arrivals  the server's, all
 * @param {number} from  where the load's begin
 */
export function reusedConnections(arrivals, from) {
  const earlier = new Set(arrivals.slice(0, from).map((a) => a.connectionId));
  return new Set(arrivals.slice(from).map((a) => a.connectionId).filter((id) => earlier.has(id))).size;
}
