// One server of common/setup/servers.js in the lab: its transport's server on the shared handler,
// listening on its port (or, behind a front, on loopback for the front, its public port
// reserved until the front binds it), and its twin port on the lab link.
import { h2Tls } from './config.js';
import { reservePort } from './fronts/ports.js';
import { createHandler } from './http/handler.js';
import { listen, portError } from './listen.js';
import { bracketed, literalHost, publicHost, reachable } from './origin-policy.js';
import { labHostNames } from '../common/setup/host-names.js';
import { createConnectionTracker, createStats } from './stats.js';

/** @typedef {import('./http/handler.js').Handler} Handler */
/** @typedef {typeof import('./config.js').transportLimits} TransportLimits */

/**
 * What every transport's createServer (server/transports/<transport>.js) is given.
 * @typedef {object} TransportOptions
 * @property {{ key: string, cert: string, minVersion?: import('node:tls').SecureVersion, ciphers?: string }} tls
 *   ignored by the cleartext upstream
 * @property {Handler} handler
 * @property {ReturnType<typeof createConnectionTracker>} tracker
 * @property {number} maxStreams  of an HTTP/2 server
 * @property {TransportLimits} limits
 * @property {boolean} earlyHints  the registry's capability: a front that takes a 103 for the final
 *   response (nginx 1.26) is never sent one
 */

/**
 * A server of the lab as it runs (lab.running): what createServerEntry makes; placeServer and
 * openTwin add where it listens (absent only while the lab starts: startLab resolves once every
 * server is placed), and a front that goes marks it unavailable.
 * @typedef {object} RunningServer
 * @property {string} id
 * @property {string} label
 * @property {'http/1.1'|'h2'|'h3'} protocol
 * @property {import('../common/setup/servers.js').ServerEntry['capabilities']} capabilities
 * @property {string} [front]
 * @property {string} software
 * @property {boolean} available
 * @property {string} [unavailableReason]
 * @property {import('node:net').Server} server
 * @property {ReturnType<typeof createConnectionTracker>} tracker
 * @property {string} flag  placeServer's: the flag of its port
 * @property {number} [upstreamPort]  behind a front: where the front reaches it
 * @property {string} [listenHost]  behind a front: where the front listens
 * @property {number} port
 * @property {string} origin
 * @property {ReturnType<ReturnType<typeof import('./link/link.js').createLink>['relayTo']>} relay  openTwin's: its twin port
 * @property {number} linkPort
 * @property {string} linkOrigin
 */

/**
 * The server of registry entry `t`, not listening yet.
 * @param {Readonly<import('../common/setup/servers.js').ServerEntry>} t an entry of common/setup/servers.js
 * @param {object} o
 * @param {{ key: string, cert: string }} o.tls
 * @param {TransportLimits} o.transport transport limits (server/config.js, a test's overrides)
 * @param {{ maxSizeMiB: number, maxDelayMs: number, maxAssets: number }} o.limits what a request may ask for
 * @param {(origin?: string) => string} o.allowOrigin
 * @param {number} o.maxStreams
 * @param {(socket: import('node:net').Socket) => void} o.remember hears every TCP connection
 * @param {string} o.software what answers, for describe()
 * @param {(serverId: string, shared: Handler) => Handler} [o.handlerFor] replaces the shared handler (startLab's hooks)
 * @returns {Promise<RunningServer>}
 */
export async function createServerEntry(t, { tls, transport, limits, allowOrigin, maxStreams, remember, software, handlerFor }) {
  /** @type {{ createServer(o: TransportOptions): import('node:net').Server }} */
  const { createServer } = await import(`./transports/${t.transport}.js`);
  const stats = createStats();
  const tracker = createConnectionTracker(stats, transport.resetWaitMs);
  const shared = createHandler({ serverId: t.id, limits, stats, allowOrigin });
  const handler = handlerFor?.(t.id, shared) ?? shared;
  const isH2 = t.protocol === 'h2';
  const server = createServer({ tls: isH2 ? { ...tls, ...h2Tls } : tls, handler, tracker, maxStreams, limits: transport, earlyHints: t.capabilities.earlyHints });
  if (isH2) server.on('secureConnection', (socket) => socket.disableRenegotiation());
  if (!t.front) server.on('secureConnection', (socket) => socket.setMaxSendFragment(transport.tlsRecordBytes));
  server.on('tlsClientError', () => {}); // scanners and aborted handshakes are not our errors
  server.on('connection', remember);
  // placeServer and openTwin add the rest.
  return /** @type {RunningServer} */ ({ id: t.id, label: t.label, protocol: t.protocol, capabilities: t.capabilities, front: t.front, software, available: true, server, tracker });
}

/**
 * An origin's host: by address or localhost, or with `named` by the lab's names (common/setup/host-names.js).
 * @param {RunningServer['protocol']} protocol @param {string} host @param {boolean} named @param {boolean} [twin] the lab link's port
 */
const originHost = (protocol, host, named, twin = false) => {
  if (named) return protocol !== 'h3' ? labHostNames.tcp : twin ? labHostNames.h3Link : labHostNames.h3;
  return protocol === 'h3' ? bracketed(literalHost(host)) : publicHost(host);
};

/**
 * Listens on `port` (`flag` sets it); a fronted server listens on loopback for its front instead,
 * with `port` reserved and pushed to `reservations`. `packet`: the lab runs on the packet
 * network's server side, where the browser comes from the other namespace. `named`: its origin by
 * the lab's names (common/setup/host-names.js).
 * @param {RunningServer} entry
 * @param {{ port: number, host: string, flag: string, packet?: boolean, named?: boolean, reservations: Array<{ release(): Promise<void> }> }} o
 */
export async function placeServer(entry, { port, host, flag, packet, named = false, reservations }) {
  entry.flag = flag;
  if (entry.front) {
    entry.upstreamPort = await listen(entry.server, 0, '127.0.0.1', flag);
    entry.listenHost = packet ? host : literalHost(host);
    const reserved = await reservePort(port, entry.listenHost, { udp: entry.protocol === 'h3' }).catch((err) => Promise.reject(portError(err, port, host, flag)));
    reservations.push(reserved);
    entry.port = reserved.port;
  } else {
    entry.port = await listen(entry.server, port, host, flag);
  }
  entry.origin = `https://${originHost(entry.protocol, host, named)}:${entry.port}`;
}

/**
 * The server's twin port on the lab link, on `port` (`flag` sets it): UDP for HTTP/3, else TCP.
 * @param {RunningServer} entry  placed (placeServer)
 * @param {NonNullable<import('./lab-networks.js').LabNetwork['relayTo']>} relayTo  the twin-port network's (lab-networks.js)
 * @param {{ port: number, host: string, flag: string, named?: boolean }} o
 */
export async function openTwin(entry, relayTo, { port, host, flag, named = false }) {
  entry.relay = relayTo(entry.port, entry.listenHost ?? reachable(host), { udp: entry.protocol === 'h3' });
  entry.linkPort = await listen(entry.relay, port, host, flag);
  entry.linkOrigin = `https://${originHost(entry.protocol, host, named, true)}:${entry.linkPort}`;
}
