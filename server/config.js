// The one place for h2lab's defaults and limits. Units are in the names; every limit says why
// it has its value. Each option is a command-line flag and an environment variable
// (H2LAB_<FLAG>, e.g. --h1-port ↔ H2LAB_H1_PORT); a flag wins over the variable.
import { fileURLToPath } from 'node:url';
import { readArgs, readNumber } from '../cli/options.js';
import { defaultServerCaps } from '../common/setup/server-caps.js';
import { configKeyOf, servers } from '../common/setup/servers.js';
import { InputError } from '../common/setup/errors.js';
import { MiB, rangeRule } from '../common/setup/units.js';


/**
 * A command-line option of the lab's, and its H2LAB_ variable.
 * @typedef {{ key: string, flag: string, type: 'host'|'port'|'switch'|'list', default: string|number|boolean|string[], help: string }
 *   | { key: string, flag: string, type: 'number'|'integer', default: number, min: number, max: number, unit?: string, help: string }} Option
 */

/**
 * Command-line options of `node server/index.js`.
 * @type {Option[]}
 */
export const options = [
  { key: 'host', flag: 'host', type: 'host', default: '127.0.0.1',
    help: 'address every server listens on; loopback by default, never all interfaces unless asked' },
  { key: 'uiPort', flag: 'ui-port', type: 'port', default: 8080,
    help: 'plain-HTTP UI and control API (0 = a free port)' },
  ...servers.map((s) => ({ key: configKeyOf(s.portFlag), flag: s.portFlag, type: /** @type {const} */ ('port'), default: s.port, help: s.help })),
  // The lab link's twin ports (server/link/): the same servers behind the shaped link.
  ...servers.map((s) => ({
    key: configKeyOf(s.linkPortFlag), flag: s.linkPortFlag, type: /** @type {const} */ ('port'), default: s.linkPort, help: `${s.label} through the lab link`,
  })),
  // Defaults and their reasons: common/setup/server-caps.js.
  { key: 'maxSizeMiB', flag: 'max-size-mib', type: 'number', unit: 'MiB', default: defaultServerCaps.maxSizeMiB, min: 0, max: 1024,
    help: 'largest /option?size= in MiB' },
  { key: 'maxDelayMs', flag: 'max-delay-ms', type: 'number', unit: 'ms', default: defaultServerCaps.maxDelayMs, min: 0, max: 600_000,
    help: 'largest /option?delay= in ms' },
  // RFC 9113 §6.5.2 recommends allowing no fewer than 100 (nginx allows 128, node:http2 sets
  // no limit of its own); both HTTP/2 servers advertise the same value.
  { key: 'maxStreams', flag: 'max-streams', type: 'integer', default: 100, min: 1, max: 10_000,
    help: 'SETTINGS_MAX_CONCURRENT_STREAMS of both HTTP/2 servers' },
  { key: 'noCaddy', flag: 'no-caddy', type: 'switch', default: false,
    help: 'leave out the Caddy family even when Caddy is installed (CADDY_PATH, else PATH)' },
  { key: 'noNginx', flag: 'no-nginx', type: 'switch', default: false,
    help: 'leave out the nginx family even when nginx is installed (NGINX_PATH, else PATH or /usr/sbin)' },
  { key: 'sans', flag: 'san', type: 'list', default: [],
    help: 'extra subjectAltName for the certificate (repeatable; env: comma-separated)' },
];

/**
 * TLS of the HTTP/2 servers (RFC 9113 §9.2): TLS 1.2 or later, and under TLS 1.2 only the AEAD
 * suites with ephemeral key exchange (§9.2.2 blocklists the CBC ones, which Node's default list
 * still offers last); renegotiation is turned off on every connection (§9.2.1 forbids it). TLS
 * 1.3's suites are all allowed and need no list. The HTTP/1.1 server keeps Node's
 * protocols and suites (it lets the client choose among them: server/transports/h1.js).
 */
export const h2Tls = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305',
  ].join(':'),
};

/** Transport limits that are not flags. */
export const transportLimits = {
  // node:http2 counts response bytes queued on a session against this (its default, 10 MB,
  // refuses streams with ENHANCE_YOUR_CALM as soon as ten 1 MiB responses are in flight). A
  // browser-sized run keeps 100 streams × 1 MiB queued; the bytes are slices of the shared
  // payload buffer, so this is accounting, not allocation.
  maxSessionMemoryMB: 512,
  // Largest request header block on every server (HTTP/1.1 maxHeaderSize, HTTP/2
  // SETTINGS_MAX_HEADER_LIST_SIZE): Node's HTTP/1.1 default, so the transports refuse alike.
  maxHeaderBytes: 16 * 1024,
  // An idle connection closes after this on every server, so "warm" means the same on all
  // three (Node's HTTP/1.1 default is 5 s, its HTTP/2 default never); a minute spans the gaps
  // between repeats of a run.
  idleTimeoutMs: 60_000,
  // How long a refused or broken connection (no h2 in ALPN, a protocol error) may linger after
  // its last words before the socket is destroyed, whether or not the peer reads them.
  refuseLingerMs: 1_000,
  // A TLS handshake is one round trip for a real client; Node's default (120 s) lets a silent
  // TCP connection hold a socket for two minutes.
  handshakeTimeoutMs: 10_000,
  // A request's headers must be complete this long after its first byte (HTTP/1.1
  // headersTimeout), and an HTTP/2 connection must open its first stream this long after the
  // handshake: browsers send a request's headers in one packet, a slowloris trickles them.
  headersTimeoutMs: 10_000,
  // The whole HTTP/1.1 request (requestTimeout); the lab's routes take no body, so this only
  // backs up headersTimeoutMs for a body someone sends anyway.
  requestTimeoutMs: 30_000,
  // How often Node's HTTP/1.1 server checks the two timeouts above; its default (30 s) would
  // let a slowloris stay up to 40 s instead of 10. The send timeout below is checked as often.
  timeoutCheckIntervalMs: 1_000,
  // A connection with response bytes waiting, of which the kernel takes none for this long, is
  // cut (server/transports/send-timeout.js): a reader that stopped reading. nginx's send_timeout
  // default. The kernel takes bytes in steps of a third of the socket's send buffer (up to
  // ~1.4 MB), so only a reader slower than ~23 kB/s (below Regular 2G) with more queued than the
  // kernel holds is cut by mistake: through the lab link, a body over ~4 MB at GPRS; 3G waited
  // up to 17 s between steps. Tests shorten it.
  sendTimeoutMs: 60_000,
  // node:http2 closes a session after this many invalid frames (default 1,000); a browser sends
  // none, so a hundred is already a broken or hostile peer.
  maxSessionInvalidFrames: 100,
  // …and after this many streams refused for going over maxStreams (Node's default, stated so
  // that spdy, which has no such limit, is held to the same number).
  maxSessionRejectedStreams: 100,
  // Client stream resets (RST_STREAM) a connection may send at once and then per second: the
  // rapid-reset limit nghttp2 applies in node:http2 (its defaults, 1,000 and 33), applied to spdy
  // by hand. A browser resets a stream only when a page cancels a request.
  resetBurst: 1_000,
  resetsPerSecond: 33,
  // PING and SETTINGS frames (each one makes the server send an ACK) a spdy connection may send
  // at once and then per second: a browser sends a few per minute. node:http2 needs no rate:
  // nghttp2 drops a peer that lets 1,000 ACKs queue unread, a limit Node does not expose.
  // (maxOutstandingPings and maxOutstandingSettings bound the server's own PINGs and SETTINGS,
  // of which it sends one SETTINGS and no PING, and maxSettings, 32 entries per frame, is
  // already above the 7 settings that exist: all three stay at Node's defaults.)
  controlFrameBurst: 1_000,
  controlFramesPerSecond: 100,
  // SIGINT/SIGTERM let in-flight responses finish for this long, then reset what is left: a
  // classic-grid response (≤ 2 MB on loopback, delays under a second) takes far less, and a
  // Ctrl-C still feels prompt; well under a container runtime's own kill (Docker's is 10 s).
  shutdownGraceMs: 3_000,
  // /api/reset waits at most this long for the connections it closed to be gone.
  resetWaitMs: 2_000,
  // Largest TLS record the Node servers send (SSL_set_max_send_fragment; Node's default is the
  // protocol's 16 KiB). A browser decrypts nothing of a record until all of it has come, and a
  // 16 KiB record does not fit a new connection's first flight (10 segments, 14.5 kB): a
  // response's first record, holding its headers, then waits one more round trip
  // (docs/throttling.md, "Node's extra round trip"). Caddy's Go starts with one-segment records
  // and grows them; nginx's documentation suggests `ssl_buffer_size 4k` for the time to the
  // first byte. 4 KiB costs 22 bytes per record (0.5 %).
  tlsRecordBytes: 4_096,
};

// The path's own limits live with it (server/path/limits.js), which imports nothing above it;
// they are named here too, with the lab's other limits.
export { pathLimits, traceUploadLimits } from './path/limits.js';

/** The lab link's relays (server/link/): its twin ports' UDP flows. */
export const linkLimits = {
  // A UDP flow (one browser address) with no datagram either way for this long is closed: twice
  // QUIC's idle timeout (30 s in Chromium and quic-go), so no live connection loses its source port.
  udpFlowIdleMs: 60_000,
  // …and one the server has never answered, after this: longer than the largest round trip, so
  // a server's first answer comes within it, and than the 4 s after which Chromium gives up a
  // handshake that hears nothing. A sender of one datagram per source port holds a flow this long.
  udpUnansweredIdleMs: 5_000,
  // Flows per HTTP/3 twin port and in all. Each holds an upstream socket, one file descriptor; a
  // browser needs one per QUIC connection (one per origin, a new one per cold repeat: a reset
  // closes the old), so a run uses a few and 256 leave room for many tabs. At either bound the
  // oldest flow the server never answered is closed for the new one; when every flow was
  // answered, the new one is refused (its datagram dropped).
  maxUdpFlowsPerRelay: 256,
  maxUdpFlows: 1_024,
  // …and never more than this share of the process's descriptor limit (RLIMIT_NOFILE, read at
  // start), so the UI, the servers and the TCP twin ports (three descriptors per connection)
  // always have the rest: with a limit of 1,024, 256 flows.
  udpFlowsFdShare: 0.25,
};

/** The packet network's plumbing (server/packet/): its emulator's reads and answers. */
export const packetLimits = {
  // How long the lab waits for the emulator to start or to answer over IPC: it answers in
  // milliseconds; one that does not within this is broken and the lab says so.
  answerTimeoutMs: 5_000,
  // A capture (capture.js) keeps this much of each packet unless whole packets are asked for: an
  // IPv6 header (40) and a TCP header with all its options (60), or a QUIC short header, with the
  // first TLS record's header after them. With pcapng's 32 bytes a packet, a run of 100,000
  // packets writes at most 16 MB per file.
  captureHeaderBytes: 128,
  // A capture file stops growing here (the run goes on; its record says where the capture ended):
  // 256 MiB holds some 170,000 whole 1,500-byte packets, a full disk is worse than a short capture.
  maxCaptureBytes: 256 * 1024 * 1024,
  // The emulator writes a capture in pieces of this size: one write a few hundred packets, not one each.
  captureFlushBytes: 256 * 1024,
};

/**
 * How long after a page request its 103 Early Hints goes out (within the think time, never after
 * it). Chromium's HTTP/2 client drops a 103 that it reads before it has finished sending the
 * request (SpdyHttpStream reports the request sent from a posted task; a 103 read in between is
 * stored with no reader and overwritten by the final response), and on loopback a 103 sent at once
 * lands in that window in about one load in eight; Chromium 156, net log, 235 of 270 hinted loads
 * acted on. Held back 5 ms, 90 of 90 were. On a real path the 103 is a round trip behind the
 * request anyway, so 10 ms stands in for the shortest round trip a browser would see.
 */
export const earlyHintsHoldMs = 10;

/** Where the certificate files live, and the browser-facing dev server we also allow. */
export const certsDir = fileURLToPath(new URL('../certs/', import.meta.url));
export const distDir = fileURLToPath(new URL('../dist/', import.meta.url));
// A replay the page starts runs the runner's command (server/replay/jobs.js), its files where the command's go.
export const replayScript = fileURLToPath(new URL('../runner/commands/page-loads.js', import.meta.url));
export const resultsDir = fileURLToPath(new URL('../results/', import.meta.url));
// Vite's dev server (`npm run dev`) serves the client from this port; its origin may call the
// servers only while it runs, which it announces to the lab (server/dev-announce.js).
export const viteDevPort = 5173;

// `npm start` runs the lab under `sh -c`; npm passes a SIGTERM to that shell alone, and dash
// (Debian's sh) dies without passing it on, which left the lab and its Caddy running. The lab
// started by npm checks this often whether its parent is gone, and shuts down if so.
export const parentCheckIntervalMs = 1_000;

/**
 * The lab's configuration: each option's value by its key (options above), the servers' ports
 * and twin ports by theirs (h1Port, h1LinkPort, …); packet, no option: the runner starts a lab on
 * the packet network's server side (server/packet/); captureDir and keyLogFile, no options either:
 * where the runner wants captures and where its browser writes TLS keys (server/captures.js);
 * named, no option: origins by the lab's names, for the runner's Firefox (common/setup/host-names.js);
 * resultsDir, no option: where the replays the page starts write their folders (default results/).
 * @typedef {{ host: string, maxSizeMiB: number, maxDelayMs: number, maxStreams: number, noCaddy: boolean, noNginx: boolean, sans: string[],
 *   [port: `${string}Port`]: number, packet?: boolean, captureDir?: string|null, keyLogFile?: string|null, named?: boolean, resultsDir?: string }} LabConfig
 */

/** @type {LabConfig} */
export const defaults = /** @type {LabConfig} each option's default under its key */ (Object.fromEntries(options.map((o) => [o.key, o.default])));

/** @param {string} flag */
export const envName = (flag) => `H2LAB_${flag.toUpperCase().replaceAll('-', '_')}`;

/** A bad flag or variable of the lab's (an input error of the field --flag). */
export class ConfigError extends InputError {
  /**
   * @param {string} flag  without its dashes
   * @param {string} message  one line, "--flag: …"
   */
  constructor(flag, message) {
    super(`--${flag}`, message);
  }
}

/**
 * What an option's value must be, in the words of its messages.
 * @param {Option} option
 */
function ruleOf(option) {
  switch (option.type) {
    case 'host':
      return 'a host name or address';
    case 'list':
      return 'a DNS name or IP address';
    case 'port':
      return 'a port number from 0 to 65535 (0 = a free port)';
    case 'switch':
      return '1 or 0';
    default:
      return rangeRule({ min: option.min, max: option.max, integer: option.type === 'integer', unit: option.unit });
  }
}

// The messages follow cli/options.js: "--flag: must be …, got "x"", and name the variable when
// the value came from the environment.
/**
 * @param {Option} option
 * @param {string|boolean|string[]} raw  as the flag or the variable gave it: a list's names, a switch's true, else text
 * @param {string} [source]  the variable it came from
 */
function convert(option, raw, source) {
  const bad = () => new ConfigError(option.flag, `--${option.flag}: must be ${ruleOf(option)}, got ${JSON.stringify(raw)}${source ? ` (from ${source})` : ''}`);
  switch (option.type) {
    case 'host':
      if (!/^[\w.:-]+$/.test(/** @type {string} */ (raw))) throw bad();
      return raw;
    case 'list':
      return raw;
    case 'switch':
      if (raw === true || raw === '1' || raw === 'true') return true;
      if (raw === '0' || raw === 'false') return false;
      throw bad();
    case 'port':
      if (!/^\d{1,5}$/.test(/** @type {string} */ (raw)) || Number(raw) > 65535) throw bad();
      return Number(raw);
    case 'integer':
    case 'number':
      try {
        return readNumber(option.flag, raw, { min: option.min, max: option.max, integer: option.type === 'integer' });
      } catch {
        throw bad();
      }
    default:
      throw new Error(`unknown option type ${/** @type {Option} */ (option).type}`);
  }
}

/**
 * One option's value from the environment alone (or its default): for commands that need one setting of the lab's.
 * @template {keyof LabConfig} K
 * @param {K} key  an option's
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {LabConfig[K]}
 */
export function configFromEnv(key, env = process.env) {
  const option = /** @type {Option} */ (options.find((o) => o.key === key));
  const raw = env[envName(option.flag)];
  // Each option's default and conversion are of its key's type.
  if (raw === undefined || raw === '') return /** @type {LabConfig[K]} */ (option.default);
  return /** @type {LabConfig[K]} */ (convert(option, option.type === 'list' ? raw.split(',').map((x) => x.trim()).filter(Boolean) : raw, envName(option.flag)));
}

/**
 * Reads flags and environment into a config object. Throws ConfigError with a one-line
 * message on anything it cannot use; returns { help: true } when --help was asked.
 * @param {string[]} [argv] @param {NodeJS.ProcessEnv} [env]
 * @returns {{ help: true } | LabConfig & { help?: undefined }}
 */
export function parseConfig(argv = process.argv.slice(2), env = process.env) {
  let values;
  try {
    values = readArgs(
      argv,
      Object.fromEntries(options.map((o) => [o.flag, o.type === 'switch' ? { type: 'boolean' } : { type: 'string', multiple: o.type === 'list', accepts: ruleOf(o) }])),
    );
  } catch (err) {
    const { field, message } = /** @type {Error & { field?: string }} an InputError, or parseArgs' own */ (err);
    throw new ConfigError(String(field ?? 'argv').replace(/^--/, ''), message);
  }
  if (values.help) return { help: true };
  /** @type {Record<string, unknown>} */
  const config = {};
  for (const o of options) {
    const given = values[o.flag];
    config[o.key] = given === undefined ? configFromEnv(/** @type {keyof LabConfig} */ (o.key), env) : convert(o, given);
  }
  return /** @type {LabConfig} every option's value under its key */ (config);
}

export function helpText() {
  const lines = [
    'Usage: node server/index.js [options]',
    '',
    'Starts the h2lab UI (plain HTTP) and the TLS test servers (common/setup/servers.js), which differ only in transport.',
    '',
  ];
  for (const o of options) {
    const flag = `--${o.flag}${/** @type {Record<string, string>} */ ({ list: ' NAME', switch: '' })[o.type] ?? ' VALUE'}`;
    const dflt = Array.isArray(o.default) || o.type === 'switch' ? '' : ` (default ${o.default})`;
    lines.push(`  ${flag.padEnd(26)} ${o.help}${dflt}`, `  ${''.padEnd(26)} env ${envName(o.flag)}`);
  }
  lines.push('  --help                     this text');
  return lines.join('\n');
}

/**
 * The Caddy front (server/fronts/caddy.js): how the lab runs it. Caddy's own timeouts and header
 * limit are set from transportLimits, so its servers hold clients to the same bounds as Node's.
 */
export const caddyLimits = {
  // From spawn until its TCP ports accept: 31–70 ms measured on this 2-core machine; a loaded CI
  // runner gets a hundred times that before the lab gives up on Caddy.
  startTimeoutMs: 10_000,
  // A stop (the lab's exit, or a reset's restart) waits this long for Caddy to exit before
  // SIGKILL. Caddy closes its listeners at once; grace_period bounds its in-flight requests.
  stopTimeoutMs: 3_000,
  // Caddy keeps an idle upstream connection this long, under the upstream server's keep-alive
  // (transportLimits.idleTimeoutMs), so it never reuses a socket the lab is closing.
  upstreamIdleMs: 30_000,
  // Idle upstream connections Caddy keeps per server: one per stream a browser's HTTP/2 or HTTP/3
  // connection may have in flight (100, --max-streams' default) and HTTP/1.1's six, so a run's
  // requests reuse the hop's connections instead of opening new ones.
  upstreamIdleConns: 128,
  // How long a reset may keep the HTTP/3 ports closed waiting for the page to release them
  // (server/lab.js): the page waits for its closing requests to fail on their own, three round
  // trips of its path (client/lab/api.js closingRequestMs, 30 s at most); a page closed in between
  // must not leave them shut.
  heldMaxMs: 35_000,
  // Caddy's stderr lines kept to explain an early exit (its log is at ERROR level: a few lines).
  logTailLines: 20,
};

/** The nginx front (server/fronts/nginx.js): how the lab runs it. */
export const nginxLimits = {
  // From spawn until its ports are bound: 64–100 ms on this 2-core machine (nginx 1.26.3, three
  // servers, 2026-11-28); a loaded CI runner gets far more before the lab gives up on nginx.
  startTimeoutMs: 10_000,
  // SIGQUIT lets requests in flight finish; one still running after this is cut (SIGKILL).
  stopTimeoutMs: 3_000,
  // As Caddy's (caddyLimits.heldMaxMs): the page's closing requests, 30 s at most, and a margin.
  heldMaxMs: caddyLimits.heldMaxMs,
  // nginx's error log goes to stderr at level error: the lines that explain an early exit.
  logTailLines: 20,
};

/** Presets applied through a Chrome's DevTools port (server/devtools/). */
export const devtoolsLimits = {
  // A Chrome on this machine answers its DevTools endpoint in milliseconds; one that does not
  // within this time is not going to, and the page must say so instead of waiting on its Run.
  answerTimeoutMs: 5_000,
  // Chromium 156's GET /json/version answer is 444 bytes; the lab reads no more of an answer
  // than this from whatever listens on a DevTools port.
  versionAnswerMaxBytes: 64 * 1024,
  // The largest DevTools message Chrome sent in the lab's tests was 2.8 KB (a
  // Network.requestWillBeSent); Target.getTargets takes about 400 bytes a tab, so this is some
  // 2,500 tabs. A larger message closes the connection (ws's own default is 100 MiB).
  messageMaxBytes: 1 * MiB,
};

/**
 * Announcements local processes hold open to the UI (POST /api/dev-server, GET /api/devtools-channel:
 * server/announce.js), each a descriptor of the lab's for as long as it lasts, and for a dev
 * server origins the lab trusts (server/announcement-gate.js). Only the lab user's are counted
 * (another user's are refused first); above a limit the answer is 429.
 */
export const announceLimits = {
  // A person runs one npm run chrome and one npm run dev. A restart holds its new announcement
  // while the old one closes, and a second Chrome beside the first is possible: four of a kind
  // leave room for both.
  maxPerKind: 4,
  // Every kind together, those the lab is still checking for a listening port included: a handful
  // of descriptors, whatever kinds come later.
  maxTotal: 6,
  // An announced port must accept a TCP connection on loopback, which a listening port does
  // within a millisecond and a closed one refuses as fast; silence this long (a firewall that
  // drops) counts as nothing listening.
  listenCheckTimeoutMs: 1_000,
};

/**
 * Reads of Linux's socket tables, which say whose a connection is (server/peer-user.js): for
 * announcements and trace uploads, before either counts anything. One read answers every
 * connection waiting for it, so these bound the lab's CPU and refuse no one.
 */
export const peerCheckLimits = {
  // Each read walks the kernel's TCP hash (262,144 buckets here) and every socket of the machine:
  // 3–5 ms of CPU with a few sockets open, 50–60 ms with 6,000 listening. At this rate a flood of
  // another user's connections costs the lab 2 % of a core, a quarter with 6,000 sockets open, off
  // its event loop (libuv's threadpool), and delays anyone's answer by 200 ms at most.
  readsPerSecond: 5,
  // As many at once as announcements may be held (announceLimits.maxTotal): a person's programs
  // starting together wait for none.
  burst: 6,
};

/** How far the lab's heap may grow, and when the lab collects its garbage itself (server/idle-gc.js). */
export const memoryLimits = {
  // V8 lets the old generation grow to up to 4× what the last full collection left before it
  // marks again: in a spdy abort storm (3,000 streams cut, responses it counts as sent) the heap
  // reached 96 MB for ~30 MB live, and the process 250 MB. At 30 % (V8 still grows by at least
  // 8 MB) the same storm peaked at 40 MB of heap; V8 collects concurrently, as before, and
  // h2load's CPU per request did not move (h1, spdy, node:http2 at 0.1 MiB, within their noise).
  // 0 leaves V8's own policy.
  heapGrowingPercent: 30,
  // Often enough to see a storm while it lasts (3,000 aborted streams take 1.5–5 s here) and to
  // give memory back within seconds of a burst; the check itself reads a few counters.
  idleCheckIntervalMs: 250,
  // A storm: this many responses cut by their clients since the last check (200 a second). The
  // lab then collects mid-burst, connections open or not: its garbage (a spdy storm's grew the
  // heap by 100+ MB before V8 collected it) would otherwise pile up. Storms here cut 600–2,000
  // responses a second; a timed run cuts none, or is invalid already (its failures are counted).
  stormCutResponses: 50,
  // Collect only when the heap grew this much since the last collection: a full collection of
  // the lab's heap takes tens of ms, worth it for a storm's garbage, not for a few requests'.
  heapGrowthBytes: 16 * MiB,
  // Quiet checks (no connection open, none opened) in a row before the collection that settles a
  // burst: V8 shrinks its young generation only when the last 5 s allocated little (6 s).
  settleQuietChecks: 24,
};
