// The one place for h2lab's defaults and limits. Units are in the names; every limit says why
// it has its value. Each option is a command-line flag and an environment variable
// (H2LAB_<FLAG>, e.g. --h1-port ↔ H2LAB_H1_PORT); a flag wins over the variable.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const MiB = 1024 * 1024;

/** Command-line options of `node server/index.js`. */
export const options = [
  { key: 'host', flag: 'host', type: 'host', default: '127.0.0.1',
    help: 'address every server listens on; loopback by default, never all interfaces unless asked' },
  { key: 'uiPort', flag: 'ui-port', type: 'port', default: 8080,
    help: 'plain-HTTP UI and control API (0 = a free port)' },
  { key: 'h1Port', flag: 'h1-port', type: 'port', default: 8443,
    help: 'HTTP/1.1 over TLS, https + express' },
  { key: 'spdyPort', flag: 'spdy-port', type: 'port', default: 8444,
    help: 'HTTP/2 through the spdy package + express' },
  { key: 'h2Port', flag: 'h2-port', type: 'port', default: 8445,
    help: 'HTTP/2 through node:http2' },
  // The lab link's twin ports (server/link/): the same servers behind the shaped link.
  { key: 'h1LinkPort', flag: 'h1-link-port', type: 'port', default: 9443,
    help: 'HTTP/1.1 through the lab link' },
  { key: 'spdyLinkPort', flag: 'spdy-link-port', type: 'port', default: 9444,
    help: 'HTTP/2 (spdy) through the lab link' },
  { key: 'h2LinkPort', flag: 'h2-link-port', type: 'port', default: 9445,
    help: 'HTTP/2 (node:http2) through the lab link' },
  // 64 MiB is 32 times the classic grid's largest point (2 MB); larger bodies only measure the
  // disk-less loopback's bandwidth for longer.
  { key: 'maxSizeMiB', flag: 'max-size-mib', type: 'number', default: 64, min: 0, max: 1024,
    help: 'largest /option?size= in MiB' },
  // A minute of think time covers every realistic server delay; longer only holds sockets open.
  { key: 'maxDelayMs', flag: 'max-delay-ms', type: 'number', default: 60_000, min: 0, max: 600_000,
    help: 'largest /option?delay= in ms' },
  // RFC 9113 §6.5.2 recommends allowing no fewer than 100 (nginx allows 128, node:http2 sets
  // no limit of its own); both HTTP/2 servers advertise the same value.
  { key: 'maxStreams', flag: 'max-streams', type: 'integer', default: 100, min: 1, max: 10_000,
    help: 'SETTINGS_MAX_CONCURRENT_STREAMS of both HTTP/2 servers' },
  { key: 'sans', flag: 'san', type: 'list', default: [],
    help: 'extra subjectAltName for the certificate (repeatable; env: comma-separated)' },
];

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
  // let a slowloris stay up to 40 s instead of 10.
  timeoutCheckIntervalMs: 1_000,
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
};

/**
 * The lab link (server/link/): one shaped access link that every twin port's connections share.
 * Conditions come from /api/link; these are its bounds and the constants of its model.
 */
export const linkLimits = {
  // Round trip: 60 s is thirty times the slowest preset's (3G, 2 s); more only stalls handshakes.
  maxRttMs: 60_000,
  // Bandwidth in bytes per second: from 1 B/s up to 10 Gbit/s, far more than a relay in one
  // Node process moves; below that the conditions mean what they say.
  minBps: 1,
  maxBps: 1_250_000_000,
  // The queue at the bottleneck, in bytes not yet sent on the link. By default one
  // bandwidth-delay product of the conditions (the classic router-buffer rule, Villamizar and
  // Song 1994: enough for one TCP flow to keep the link busy, anything more only adds delay),
  // and never under minQueueBytes, so that even GPRS (3.2 kB BDP) holds a few full segments.
  minQueueBytes: 16 * 1024,
  maxQueueBytes: 64 * MiB,
  // The link moves bytes in slices of about this much of its time, so a 1 MiB body flows
  // smoothly instead of in bursts; never less than one TCP segment (1,460 bytes of payload on
  // Ethernet, so GPRS moves a 1,460-byte slice every 228 ms, as the real link would) and never
  // more than 64 KiB (one socket read).
  sliceMs: 2,
  minSliceBytes: 1_460,
  maxSliceBytes: 64 * 1024,
  // Bytes on their way (sent on the link, not yet delivered) per direction before the link
  // stops reading: a memory bound that only the fastest conditions with a long delay reach
  // (16 MiB is the bandwidth-delay product of 1 Gbit/s × 134 ms); a real receiver's TCP window
  // bounds the same thing (Linux's largest default receive buffer is 6 MiB).
  maxInFlightBytes: 16 * MiB,
};

/** Limits of the page and asset routes (push and Early Hints experiments). */
export const pageLimits = {
  // One HTML page referencing more than 50 scripts is no longer a page-load experiment.
  maxAssets: 50,
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
// Vite's dev server (`npm run dev`) serves the client from this port; its origin may call the servers.
export const viteDevPort = 5173;

export const defaults = Object.fromEntries(options.map((o) => [o.key, o.default]));

export const envName = (flag) => `H2LAB_${flag.toUpperCase().replaceAll('-', '_')}`;

export class ConfigError extends Error {}

function convert(option, raw) {
  const name = `--${option.flag}`;
  switch (option.type) {
    case 'host':
      if (!/^[\w.:-]+$/.test(raw)) throw new ConfigError(`${name} must be a host name or address, got "${raw}"`);
      return raw;
    case 'list':
      return raw;
    case 'port':
      if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
        throw new ConfigError(`${name} must be a port number from 0 to 65535 (0 = a free port), got "${raw}"`);
      }
      return Number(raw);
    case 'integer':
    case 'number': {
      const pattern = option.type === 'integer' ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/;
      const value = Number(raw);
      if (!pattern.test(raw) || value < option.min || value > option.max) {
        const what = option.type === 'integer' ? 'an integer' : 'a number';
        throw new ConfigError(`${name} must be ${what} from ${option.min} to ${option.max}, got "${raw}"`);
      }
      return value;
    }
    default:
      throw new Error(`unknown option type ${option.type}`);
  }
}

/**
 * Reads flags and environment into a config object. Throws ConfigError with a one-line
 * message on anything it cannot use; returns { help: true } when --help was asked.
 */
export function parseConfig(argv = process.argv.slice(2), env = process.env) {
  const parseOptions = { help: { type: 'boolean', short: 'h' } };
  for (const o of options) parseOptions[o.flag] = { type: 'string', multiple: o.type === 'list' };
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: parseOptions, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new ConfigError(err.message.replaceAll('\n', ' '));
  }
  if (values.help) return { help: true };
  const config = {};
  for (const o of options) {
    let raw = values[o.flag];
    const fromEnv = env[envName(o.flag)];
    if (raw === undefined && fromEnv !== undefined && fromEnv !== '') {
      raw = o.type === 'list' ? fromEnv.split(',').map((s) => s.trim()).filter(Boolean) : fromEnv;
    }
    config[o.key] = raw === undefined ? o.default : convert(o, raw);
  }
  return config;
}

export function helpText() {
  const lines = [
    'Usage: node server/index.js [options]',
    '',
    'Starts the h2lab UI (plain HTTP) and three TLS test servers that differ only in transport.',
    '',
  ];
  for (const o of options) {
    const flag = `--${o.flag}${o.type === 'list' ? ' NAME' : ' VALUE'}`;
    const dflt = Array.isArray(o.default) ? '' : ` (default ${o.default})`;
    lines.push(`  ${flag.padEnd(22)} ${o.help}${dflt}`, `  ${''.padEnd(22)} env ${envName(o.flag)}`);
  }
  lines.push('  --help                 this text');
  return lines.join('\n');
}
