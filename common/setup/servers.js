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
 * @property {boolean} [byDefault]  false: left out of the default selection (a family that would
 *   make a default run much longer); chosen by name, or by --servers
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
  // The nginx family: a production server in C, with a QUIC of its own, in front of the same
  // handler (server/fronts/nginx.js), so an HTTP/3 verdict can be told from quic-go's.
  ...['h1', 'h2', 'h3'].map((p, i) =>
    entry({
      id: `nginx-${p}`,
      label: `HTTP/${['1.1', '2', '3'][i]} (nginx)`,
      family: 'nginx',
      protocol: /** @type {const} */ (['http/1.1', 'h2', 'h3'])[i],
      transport: 'upstream',
      front: 'nginx',
      portFlag: `nginx-${p}-port`,
      port: 8449 + i,
      linkPortFlag: `nginx-${p}-link-port`,
      linkPort: 9449 + i,
      help: `${['HTTP/1.1', 'HTTP/2', 'HTTP/3 (UDP)'][i]} through nginx, in front of the same handler`,
      // Darker than the Okabe–Ito colours of the other families, and none of the connection palette's (client/charts/palette.js).
      color: ['#8C510A', '#1F3A93', '#5E3C99'][i], // brown, dark blue, dark purple
      byDefault: false,
      // nginx 1.26 takes an upstream's 103 as the final response (docs/notes/nginx-1.26.md), and has no push since 1.25.1.
      capabilities: { push: false, earlyHints: false, earlyHintsNote: 'nginx forwards an upstream 103 from 1.29.0 on, with early_hints' },
    }),
  ),
]);

export const serverIds = Object.freeze(servers.map((s) => s.id));

// The A/A control (settings.control): the same server measured a second time in every repeat,
// in a slot of its own, so its ratio to the first shows how far two measurements of one thing
// differ on this network. A difference inside that spread is not a finding.
const controlSuffix = '-aa';
// Okabe–Ito's one colour no server has, so the slot stays apart from its twin in every chart.
const controlColor = '#F0E442'; // yellow

/**
 * The id of a server's A/A slot: 'caddy-h2' → 'caddy-h2-aa'.
 * @param {string} id  a registry id
 */
export const controlIdOf = (id) => `${id}${controlSuffix}`;

/**
 * The server an A/A slot measures again, or null when `id` is not one.
 * @param {string} id
 * @returns {string|null}
 */
export function twinOf(id) {
  const base = id.endsWith(controlSuffix) ? id.slice(0, -controlSuffix.length) : null;
  return base !== null && servers.some((s) => s.id === base) ? base : null;
}

/**
 * The registry id behind a run's server: the server itself, or the one an A/A slot measures.
 * The lab knows only these (its ports, counters and resets).
 * @param {string} id
 */
export const labIdOf = (id) => twinOf(id) ?? id;

/**
 * The lab's entry for a server id among its servers or their counters (an A/A slot's is its
 * twin's); undefined where the lab has none.
 * @template {{ id: string }} T
 * @param {readonly T[]} entries
 * @param {string} id
 * @returns {T|undefined}
 */
export const labEntryOf = (entries, id) => entries.find((x) => x.id === labIdOf(id));

/**
 * The entry of an id, an A/A slot's being its twin's under its own id and label; undefined for
 * an id the lab does not have.
 * @param {string} id
 * @returns {Readonly<ServerEntry & { twin?: string }>|undefined}
 */
export function serverById(id) {
  const twin = twinOf(id);
  if (twin === null) return servers.find((s) => s.id === id);
  const twinEntry = /** @type {Readonly<ServerEntry>} */ (servers.find((s) => s.id === twin));
  return Object.freeze({ ...twinEntry, id, label: `${twinEntry.label} · A/A`, color: controlColor, help: `${twinEntry.help}, measured a second time as the A/A control`, twin });
}

/**
 * The servers a run measures, in order: the chosen ones, and the A/A slot, when asked for, after its twin.
 * @param {{ servers: readonly string[], control?: string }} settings
 * @returns {string[]}
 */
export const measuredServers = ({ servers: chosen, control }) => (control ? inServerOrder([...chosen, controlIdOf(control)]) : [...chosen]);

/**
 * The server `--control` without a name (or the page's checkbox) measures twice: the first
 * chosen server that another chosen server is compared with (HTTP/2 when HTTP/3 is chosen with
 * it, else the HTTP/1.1 baseline), so the A/A row sits beside the verdicts it calibrates; else
 * the first chosen server.
 * @param {readonly string[]} chosen  registry ids
 */
export const defaultControlOf = (chosen) => chosen.find((id) => chosen.some((other) => baselinesOf(other).slice(-1)[0] === id)) ?? chosen[0];

/**
 * The display name of a server id (the id itself when unknown, e.g. in an old result).
 * @param {string} id
 */
export const serverLabel = (id) => serverById(id)?.label ?? id;

/**
 * The fronts (server/fronts/) the given servers stand behind, each once; all of them without `ids`.
 * @param {readonly string[]} [ids]
 * @returns {string[]}
 */
export const frontsOf = (ids = serverIds) => [...new Set(ids.map((id) => serverById(id)?.front).filter((f) => f !== undefined))];

/**
 * Why a server's Early Hints loads are plain page loads, or null where it sends 103.
 * @param {string} id
 */
export function noEarlyHintsText(id) {
  const c = serverById(id)?.capabilities;
  return !c || c.earlyHints ? null : `${serverLabel(id)} sends no 103 (${c.earlyHintsNote}): plain pages`;
}

/**
 * The server a ratio is taken against: the HTTP/1.1 server of the same family; null for that server itself.
 * @param {string} id
 * @returns {string|null}
 */
export function baselineOf(id) {
  const twin = twinOf(id);
  if (twin !== null) return twin;
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
  // An A/A slot is compared with its twin alone: that ratio is the control.
  const twin = twinOf(id);
  if (twin !== null) return [twin];
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
  const s = labEntryOf(described.servers, id);
  if (s?.available === false) return s.unavailableReason ?? 'unavailable';
  if (s) return s.browserProblem ?? (networkOf(network).twinPorts ? s.linkProblem : null) ?? null;
  const front = serverById(id)?.front;
  return (front && described.fronts?.[front]?.reason) || 'not running in this lab';
}

/**
 * The families, in the registry's order, with what a reader calls each: the implementation
 * behind its servers (their versions are in each result's `software`).
 * @type {Readonly<Record<string, { title: string }>>}
 */
export const families = Object.freeze({
  node: { title: 'Node' },
  caddy: { title: 'Caddy (quic-go)' },
  nginx: { title: 'nginx' },
});

/** What people read for a protocol. @type {Readonly<Record<ServerEntry['protocol'], string>>} */
export const protocolTitles = Object.freeze({ 'http/1.1': 'HTTP/1.1', h2: 'HTTP/2', h3: 'HTTP/3' });

/**
 * The servers of a family (in the registry's order).
 * @param {string} family
 */
export const familyOf = (family) => servers.filter((s) => s.family === family);

/**
 * Ids in the registry's order, an A/A slot right after its twin (unknown ones last, in the order given).
 * @param {Iterable<string>} ids
 */
export const inServerOrder = (ids) => {
  const given = [...ids];
  const known = serverIds.flatMap((id) => [id, controlIdOf(id)]);
  return [...known.filter((id) => given.includes(id)), ...given.filter((id) => !known.includes(id))];
};

/**
 * The servers with a summary in any of these results, in order (an A/A slot after its twin).
 * @param {Array<{ summary: Record<string, { n: number }> }>} results
 */
export const summarizedServers = (results) => inServerOrder(new Set(results.flatMap((r) => Object.keys(r.summary).filter((id) => r.summary[id]?.n))));

/**
 * The config key of a flag: 'spdy-link-port' → 'spdyLinkPort'.
 * @param {string} flag
 */
export const configKeyOf = (flag) => flag.replace(/-([a-z0-9])/g, (/** @type {string} */ _, /** @type {string} */ c) => c.toUpperCase());
