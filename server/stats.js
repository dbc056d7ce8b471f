// Per-server counters for /api/stats, and the registry of open connections that gives each one
// its serial number (x-connection-id) and lets /api/reset close them all.
import { once } from 'node:events';

const kConnectionId = Symbol('h2lab.connectionId');
// Client addresses a tracker remembers (the oldest is forgotten first): far more than a run opens.
const maxClientsRemembered = 10_000;

/** @typedef {ReturnType<typeof createStats>} Stats  one server's counters, which its handler increments */

export function createStats() {
  // responsesCut: responses the client left before their end (a reset stream, a closed connection)
  return { requests: 0, bytesSent: 0, responsesCut: 0, pushesSent: 0, pushesRefused: 0, earlyHintsSent: 0 };
}

/**
 * A socket or an HTTP/2 session, numbered once added.
 * @typedef {import('node:events').EventEmitter & { [kConnectionId]?: number }} Connection
 */

/**
 * @param {Stats} stats counters to report beside the connection figures
 * @param {number} resetWaitMs how long closeAll() waits at most for the connections to be gone
 * @returns tracker for sockets (HTTP/1.1, spdy) or node:http2 sessions
 */
export function createConnectionTracker(stats, resetWaitMs) {
  /** @type {Map<Connection, { close: () => void, drain: () => void }>} */
  const open = new Map(); // connection → { close, drain }
  /** @type {Map<string, number>} */
  const clients = new Map(); // a front's client address → its connection number
  let total = 0;
  return {
    /**
     * Registers a socket or session; `close` ends it at once, `drain` asks it to end once its
     * in-flight responses are done (GOAWAY for HTTP/2; HTTP/1.1 sockets end when idle).
     * @param {Connection} connection @param {() => void} close @param {() => void} drain
     * @param {{ counted?: boolean }} [o]
     */
    add(connection, close, drain, { counted = true } = {}) {
      if (counted) {
        total += 1;
        connection[kConnectionId] = total;
      }
      open.set(connection, { close, drain });
      connection.once('close', () => open.delete(connection));
    },
    /** @param {Connection|null|undefined} connection */
    idOf: (connection) => connection?.[kConnectionId] ?? 0,
    /**
     * Behind a front the lab's sockets are the front's pooled upstream connections (added with
     * counted: false); the browser's connection is known by the address the front saw it from.
     * Counts and numbers those instead.
     * @param {string|undefined} address
     */
    idOfClient(address) {
      if (!address) return 0;
      let id = clients.get(address);
      if (id === undefined) {
        if (clients.size >= maxClientsRemembered) clients.delete(/** @type {string} the oldest: there is one */ (clients.keys().next().value));
        total += 1;
        id = total;
        clients.set(address, id);
      }
      return id;
    },
    snapshot: () => ({ openConnections: open.size, totalConnections: total, ...stats }),
    /**
     * Closes every open connection and waits (bounded) until they are gone; answers
     * { closed, stillOpen }: how many did go, and how many had not by then.
     */
    async closeAll() {
      const closing = [...open.keys()];
      const gone = Promise.all(closing.map((c) => new Promise((resolve) => c.once('close', resolve))));
      for (const c of closing) /** @type {{ close: () => void }} still open */ (open.get(c)).close();
      let timer;
      await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, resetWaitMs)))]);
      clearTimeout(timer);
      const stillOpen = closing.filter((c) => open.has(c)).length;
      return { closed: closing.length - stillOpen, stillOpen };
    },
    /** Drains every open connection; resolves when all of them are gone (unbounded: the caller bounds it). */
    drainAll() {
      const draining = [...open.keys()];
      for (const c of draining) /** @type {{ drain: () => void }} still open */ (open.get(c)).drain();
      return Promise.all(draining.map((c) => once(c, 'close').catch(() => {})));
    },
  };
}
