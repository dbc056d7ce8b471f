// A twin port for HTTP/3: a UDP relay in front of one lab server whose QUIC datagrams cross the
// same path as the TCP relays' bytes, so every protocol pays one shared link. A datagram
// crosses whole or, at a full queue, is dropped as a router drops it: QUIC's own loss recovery
// and congestion control answer, as on a real path. Each browser address gets its own upstream
// socket, so the server sees one source port per client; how many such flows may be open is
// bounded (udp-flows.js). No handshake round trip is added: QUIC's handshake crosses the link
// itself.
import dgram from 'node:dgram';
import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import { linkLimits } from '../config.js';
import { createFlowTable } from './udp-flows.js';

/** @param {string} host */
const socketType = (host) => (net.isIPv6(host) ? 'udp6' : 'udp4');

/** @typedef {ReturnType<typeof import('../path/direction.js').createDirection>} Direction */
/** @typedef {import('./udp-flows.js').Flow} Flow */
/**
 * pairs: one teardown per open flow
 * @typedef {EventEmitter & { listen(port: number, host: string): UdpRelay, address(): import('node:net').AddressInfo|null, listening: boolean,
 *   close(): UdpRelay, hold(): Promise<void>, release(): Promise<void>, pairs: Set<() => void>, stats(): Record<string, number> }} UdpRelay
 */

/** @typedef {Record<'datagramsUp'|'datagramsDown'|'droppedUp'|'droppedDown'|'flowsRefused', number>} Counts  a relay's, in its stats */
/**
 * What a relay's flows share with it.
 * @typedef {object} FlowContext
 * @property {UdpRelay} relay
 * @property {Pick<ReturnType<typeof import('../path/path.js').createPath>, 'down'|'up'>} path
 * @property {number} targetPort @property {string} targetHost
 * @property {ReturnType<typeof createFlowTable>} flowTable
 * @property {Map<string, (datagram: Buffer) => void>} flows  the open flows' entry points by client address and port
 * @property {Set<() => void>} pairs  the open flows' teardowns
 * @property {Counts} counts
 * @property {(datagram: Buffer, port: number, address: string) => void} toClient  sends on the browser-facing socket
 */

/**
 * Puts a datagram on the link, or drops it at a full queue as a router does; counted either way.
 * @param {Counts} counts @param {Direction} direction @param {'Up'|'Down'} way @param {Buffer} datagram
 * @param {() => void} deliver @param {Flow} flow
 */
function carry(counts, direction, way, datagram, deliver, flow) {
  if (!direction.hasRoom()) {
    counts[`dropped${way}`] += 1;
    return;
  }
  direction.send(datagram.length, deliver, flow);
  counts[`datagrams${way}`] += 1;
}

/**
 * Opens a browser address's flow: an upstream socket of its own to the lab server, closed when
 * idle; null when the flows are at their bound. Returns the flow's entry point for datagrams.
 * @param {FlowContext} o @param {string} key  the client's address and port
 * @param {string} address @param {number} port  the client's
 */
function openFlow(o, key, address, port) {
  const { relay, path, targetPort, targetHost, flowTable, flows, pairs, counts, toClient } = o;
  if (!flowTable.admit(relay)) {
    counts.flowsRefused += 1;
    return null;
  }
  const upstream = dgram.createSocket(socketType(targetHost));
  let open = true;
  let answered = false;
  // Datagrams that crossed the link before connect() finished (one turn of the event loop on
  // loopback): a socket still connecting cannot send. null once connected.
  /** @type {Buffer[]|null} */
  let early = [];
  /** @type {NodeJS.Timeout} set at once, by idleAfter below */
  let idle;
  /** @type {Flow} */
  const flow = {
    relay,
    close() {
      if (!open) return;
      open = false;
      clearTimeout(idle);
      flows.delete(key);
      pairs.delete(flow.close);
      flowTable.remove(flow);
      path.up.drop(flow);
      path.down.drop(flow);
      upstream.close();
    },
  };
  /** @param {number} ms */
  const idleAfter = (ms) => {
    clearTimeout(idle);
    idle = setTimeout(flow.close, ms).unref();
  };
  idleAfter(linkLimits.udpUnansweredIdleMs);
  flowTable.add(flow);
  pairs.add(flow.close);
  // A target that is down answers with ICMP port unreachable, which a connected socket reports
  // as ECONNREFUSED: that datagram is lost, as on a real path, and the flow stays.
  upstream.on('error', () => {});
  upstream.on('message', (datagram) => {
    if (answered) idle.refresh();
    else {
      answered = true;
      flowTable.answered(flow);
      idleAfter(linkLimits.udpFlowIdleMs);
    }
    carry(counts, path.down, 'Down', datagram, () => open && toClient(datagram, port, address), flow);
  });
  upstream.connect(targetPort, targetHost, /** @param {Error} [err] node passes it; @types/node leaves it out */ (err) => {
    if (err) return flow.close(); // the client's next datagram tries a new flow
    if (!open) return;
    for (const datagram of /** @type {Buffer[]} null only from here on */ (early)) upstream.send(datagram);
    early = null;
  });
  /** @param {Buffer} datagram */
  const toTarget = (datagram) => {
    idle.refresh();
    carry(counts, path.up, 'Up', datagram, () => {
      if (!open) return;
      if (early) early.push(datagram);
      else upstream.send(datagram);
    }, flow);
  };
  flows.set(key, toTarget);
  return toTarget;
}

/**
 * Opens a twin port for UDP (not listening yet); lab.js treats it as a listening server.
 * @param {object} o
 * @param {Pick<ReturnType<typeof import('../path/path.js').createPath>, 'down'|'up'>} o.path the link's path (server/path/path.js)
 * @param {number} o.targetPort the lab server's UDP port
 * @param {string} o.targetHost where that server listens (loopback when it listens everywhere)
 * @param {ReturnType<typeof createFlowTable>} [o.flowTable] the bounds on flows, shared by the
 *   link's UDP relays (a table of its own by default)
 * @returns {UdpRelay}
 */
export function createUdpRelay({ path, targetPort, targetHost, flowTable = createFlowTable() }) {
  /** @type {Map<string, (datagram: Buffer) => void>} */
  const flows = new Map(); // client address and port → the flow's entry point
  /** @type {Set<() => void>} */
  const pairs = new Set();
  // Datagrams put on the link (or passed at once) and dropped at a full queue, per direction;
  // first datagrams of a new client dropped because the flows were at their bound.
  /** @type {Counts} */
  const counts = { datagramsUp: 0, datagramsDown: 0, droppedUp: 0, droppedDown: 0, flowsRefused: 0 };
  /** @type {dgram.Socket|null} */
  let socket = null;
  let listening = false;
  let closed = false;

  /** @type {[number, string]|null} */
  let boundTo = null; // [port, host] once listening, for release()

  // The handlers below are this socket's: `socket` is it until they close it.
  /** @param {number} port @param {string} host */
  function bind(port, host) {
    socket = dgram.createSocket(socketType(host));
    socket.on('listening', () => {
      listening = true;
      boundTo = [/** @type {dgram.Socket} */ (socket).address().port, host];
      relay.emit('listening');
    });
    socket.on('error', (err) => {
      if (listening) return; // a send to a browser that has gone: only that datagram is lost
      /** @type {dgram.Socket} */ (socket).close();
      socket = null;
      relay.emit('error', err);
    });
    socket.on('message', (datagram, client) => {
      const key = `${client.address} ${client.port}`;
      (flows.get(key) ?? openFlow(flowContext, key, client.address, client.port))?.(datagram);
    });
    socket.bind(port, host);
  }

  // Object.assign cannot copy a getter: `listening` is defined below.
  const relay = /** @type {UdpRelay} */ (/** @type {unknown} */ (Object.assign(new EventEmitter(), {
    pairs,
    /**
     * Binds the browser-facing socket; 'listening', or 'error' with the bind's error.
     * @param {number} port @param {string} host
     */
    listen(port, host) {
      bind(port, host);
      return relay;
    },
    /**
     * Unbinds the port (flows closed) until release(): a browser's next datagram to it draws an
     * ICMP port unreachable, the one thing that ends its QUIC connection at once (server/lab.js).
     */
    async hold() {
      if (!listening) return;
      listening = false;
      for (const teardown of pairs) teardown();
      const held = /** @type {dgram.Socket} listening, so bound */ (socket);
      socket = null;
      await /** @type {Promise<void>} */ (new Promise((resolve) => held.close(resolve)));
    },
    /** Binds the same port again; rejects with the bind's error (the port taken meanwhile). */
    async release() {
      if (listening || closed || !boundTo) return;
      const bound = once(relay, 'listening'); // rejects on 'error'
      bind(...boundTo);
      await bound;
    },
    address: () => (listening ? /** @type {dgram.Socket} */ (socket).address() : null),
    /** Closes the browser-facing socket and every flow; 'close' once. */
    close() {
      if (closed) return relay;
      closed = true;
      listening = false;
      for (const teardown of pairs) teardown();
      if (socket) socket.close(() => relay.emit('close'));
      else process.nextTick(() => relay.emit('close'));
      return relay;
    },
    stats: () => ({ flows: flows.size, ...counts }),
  })));
  Object.defineProperty(relay, 'listening', { get: () => listening });
  /** @type {FlowContext} */
  const flowContext = {
    relay, path, targetPort, targetHost, flowTable, flows, pairs, counts,
    // An open flow's relay is listening: it has its socket.
    toClient: (datagram, port, address) => /** @type {dgram.Socket} */ (socket).send(datagram, port, address),
  };
  return relay;
}
