// The lab's servers: one entry each, and everything else (the transports' ports and flags, the
// page's checkboxes, colours and protocol checks, the runner's --servers, the benchmarks, the
// tests) derives from this list. Adding a server is an entry here and its transport file,
// server/transports/<transport>.js.
import { defaultNetworkId, networkOf } from './networks.js';

/**
 * @typedef {object} ServerEntry
 * @property {string} id         stable id used in URLs, results, CSV and --servers
 * @property {string} label      what people read in the UI, charts and reports
 * @property {string} family     servers of one family share an implementation and differ only in
 *   protocol; ratios are taken against the family's HTTP/1.1 server
 * @property {'http/1.1'|'h2'|'h3'} protocol  the ALPN protocol (Resource Timing's nextHopProtocol) it promises
 * @property {string} transport  server/transports/<transport>.js: the lab's server; behind a
 *   front, the cleartext upstream the front forwards to
 * @property {string} [front]    a front process (server/fronts/<front>.js) owns the public port
 *   and speaks the protocol; the lab starts it when it is installed
 * @property {string} portFlag   its port's command-line flag (config key: the flag in camelCase)
 * @property {number} port       default port
 * @property {string} linkPortFlag  the flag of its twin port behind the lab link (server/link/)
 * @property {number} linkPort   default twin port
 * @property {string} help       the --help line of its port flag
 * @property {string} color      chart colour (Okabe–Ito: distinct under the common colour-vision deficiencies)
 * @property {{ push: boolean, earlyHints: boolean, earlyHintsNote?: string }} capabilities
 *   push: it can push (browsers refuse it anyway); earlyHints: it sends 103
 */

/** @param {ServerEntry} fields @returns {Readonly<ServerEntry>} */
const entry = (fields) => Object.freeze({ ...fields, capabilities: Object.freeze(fields.capabilities) });

/** @type {readonly Readonly<ServerEntry>[]} */
export const servers = Object.freeze([
  entry({
    id: 'h1',
    label: 'HTTP/1.1',
    family: 'node',
    protocol: 'http/1.1',
    transport: 'h1',
    portFlag: 'h1-port',
    port: 8443,
    linkPortFlag: 'h1-link-port',
    linkPort: 9443,
    help: 'HTTP/1.1 over TLS, https + express',
    color: '#E69F00', // orange
    capabilities: { push: false, earlyHints: true, earlyHintsNote: 'sent with writeEarlyHints; Chrome acts on 103 only over HTTP/2 or later' },
  }),
  entry({
    id: 'h2-spdy',
    label: 'HTTP/2 (spdy)',
    family: 'node',
    protocol: 'h2',
    transport: 'h2-spdy',
    portFlag: 'spdy-port',
    port: 8444,
    linkPortFlag: 'spdy-link-port',
    linkPort: 9444,
    help: 'HTTP/2 through the spdy package + express',
    color: '#0072B2', // blue
    capabilities: {
      push: true,
      earlyHints: true,
      earlyHintsNote: "spdy has no 103 API: the 103 HEADERS frame is sent through spdy-transport's stream.respond(), the layer spdy itself uses",
    },
  }),
  entry({
    id: 'h2-node',
    label: 'HTTP/2 (node:http2)',
    family: 'node',
    protocol: 'h2',
    transport: 'h2-node',
    portFlag: 'h2-port',
    port: 8445,
    linkPortFlag: 'h2-link-port',
    linkPort: 9445,
    help: 'HTTP/2 through node:http2',
    color: '#009E73', // bluish green
    capabilities: { push: true, earlyHints: true },
  }),
  // The Caddy family: one production server for all three protocols, in front of the same
  // handler (server/fronts/caddy.js), so within the family only the protocol changes.
  ...['h1', 'h2', 'h3'].map((p, i) =>
    entry({
      id: `caddy-${p}`,
      label: `HTTP/${['1.1', '2', '3'][i]} (Caddy)`,
      family: 'caddy',
      protocol: /** @type {const} */ (['http/1.1', 'h2', 'h3'])[i],
      transport: 'upstream',
      front: 'caddy',
      portFlag: `caddy-${p}-port`,
      port: 8446 + i,
      linkPortFlag: `caddy-${p}-link-port`,
      linkPort: 9446 + i,
      help: `${['HTTP/1.1', 'HTTP/2', 'HTTP/3 (UDP)'][i]} through Caddy, in front of the same handler`,
      color: ['#D55E00', '#56B4E9', '#CC79A7'][i], // vermillion, sky blue, reddish purple
      capabilities: { push: false, earlyHints: true, earlyHintsNote: 'the handler sends 103 to Caddy, which forwards it' },
    }),
  ),
]);

export const serverIds = Object.freeze(servers.map((s) => s.id));

/**
 * The entry of an id; undefined for an id the lab does not have.
 * @param {string} id
 */
export const serverById = (id) => servers.find((s) => s.id === id);

/**
 * The display name of a server id (the id itself when unknown, e.g. in an old result).
 * @param {string} id
 */
export const serverLabel = (id) => serverById(id)?.label ?? id;

/**
 * The server a ratio is taken against: the HTTP/1.1 server of the same family; null for that server itself.
 * @param {string} id
 * @returns {string|null}
 */
export function baselineOf(id) {
  const s = serverById(id);
  const base = s && servers.find((b) => b.family === s.family && b.protocol === 'http/1.1');
  return base && base.id !== id ? base.id : null;
}

/**
 * Every server a server's times are compared with: its family's HTTP/1.1 server, and for an
 * HTTP/3 server also its family's HTTP/2 server (HTTP/3 replaces HTTP/2's transport, not HTTP/1.1's).
 * @param {string} id
 * @returns {string[]}
 */
export function baselinesOf(id) {
  const s = serverById(id);
  if (!s) return [];
  const h2 = s.protocol === 'h3' ? servers.find((b) => b.family === s.family && b.protocol === 'h2') : undefined;
  return /** @type {string[]} */ ([baselineOf(id), h2?.id].filter(Boolean));
}

/**
 * Why a server of the registry cannot be used in a running lab, or null when it can: the lab's
 * word first (Caddy not installed, or gone), then what the page's preflight found from its
 * browser (client/ui/preflight.js): `browserProblem` for every run, `linkProblem` for runs
 * through the lab link.
 * @param {{ servers: { id: string, available?: boolean, unavailableReason?: string, browserProblem?: string|null, linkProblem?: string|null }[],
 *   fronts?: Record<string, { reason?: string|null }> }} described  GET /api/servers, as the page annotates it
 * @param {string} id
 * @param {import('./networks.js').NetworkId} [network] who throttles the runs (settings.network)
 * @returns {string|null}
 */
export function unavailableReason(described, id, network = defaultNetworkId) {
  const s = described.servers.find((x) => x.id === id);
  if (s?.available === false) return s.unavailableReason ?? 'unavailable';
  if (s) return s.browserProblem ?? (networkOf(network).twinPorts ? s.linkProblem : null) ?? null;
  const front = serverById(id)?.front;
  return (front && described.fronts?.[front]?.reason) || 'not running in this lab';
}

/**
 * The servers of a family (in the registry's order).
 * @param {string} family
 */
export const familyOf = (family) => servers.filter((s) => s.family === family);

/**
 * Ids in the registry's order (unknown ones last, in the order given).
 * @param {Iterable<string>} ids
 */
export const inServerOrder = (ids) => {
  const given = [...ids];
  return [...serverIds.filter((id) => given.includes(id)), ...given.filter((id) => !serverIds.includes(id))];
};

/**
 * The config key of a flag: 'spdy-link-port' → 'spdyLinkPort'.
 * @param {string} flag
 */
export const configKeyOf = (flag) => flag.replace(/-([a-z0-9])/g, (/** @type {string} */ _, /** @type {string} */ c) => c.toUpperCase());
