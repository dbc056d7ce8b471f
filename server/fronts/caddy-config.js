// Caddy's JSON configuration for the Caddy family (docs/notes/caddy-2.6.md has the checks behind
// each choice). JSON, not a Caddyfile: no adapter, no automatic HTTPS or host matching to switch
// off, and `caddy validate` refuses an unknown field.
import { clientHeader, refuseHeader } from '../transports/upstream.js';

// What each protocol's port offers. Caddy 2.6 binds TCP on an HTTP/3 port as well and, without
// h1, never accepts there (caddyserver/caddy#5227, fixed in 2.9): a browser that falls back to
// TCP would hang until its own timeout. With h1 it accepts, and tcpRefusal turns every TCP
// client away at once.
const protocolsOf = { 'http/1.1': ['h1'], h2: ['h1', 'h2'], h3: ['h1', 'h3'] };

/** @param {number} ms */
const goDuration = (ms) => `${ms}ms`;

/**
 * The HTTP/3 port's TCP side: its TLS offers only h3 in ALPN, so a client offering h2 or
 * http/1.1 (every browser) fails the handshake with no_application_protocol; a client offering
 * none gets its connection closed without a response (abort).
 */
const tcpRefusal = {
  alpn: ['h3'],
  route: { match: [{ not: [{ protocol: 'http/3' }] }], handle: [{ handler: 'static_response', abort: true }], terminal: true },
};

// Only the front sets X-Lab-* request headers, which the upstream trusts (refusals, connection
// ids): a client's are deleted here, before the proxy sets the front's (the proxy's `set`
// replaces only the names it sets, and its `delete` would run after it). Caddy adds `Server:
// Caddy` (also to a 103) after the handlers ran, hence deferred; the lab's servers send no Server
// header, so a response does not say which front it came from.
const frontHeaders = { handler: 'headers', request: { delete: ['X-Lab-*'] }, response: { delete: ['Server'], deferred: true } };

/**
 * The route to a server's own upstream, naming the server and the browser's connection; `refuse`
 * asks the handler for the HTTP/2-only 505 instead, so it comes from the one error table with
 * every header the Node servers send.
 * @param {CaddyServer} server
 * @param {{ upstreamIdleMs: number, upstreamIdleConns: number }} caddyLimits
 * @param {{ refuse?: boolean }} [o]
 */
function proxyRoute({ id, upstreamPort }, { upstreamIdleMs, upstreamIdleConns }, { refuse = false } = {}) {
  const set = { 'X-Lab-Front': [id], [clientHeader]: ['{http.request.remote}'], ...(refuse && { [refuseHeader]: ['not-http2'] }) };
  return {
    ...(refuse && { match: [{ protocol: 'http/1.1' }], terminal: true }),
    handle: [
      frontHeaders,
      {
        handler: 'reverse_proxy',
        upstreams: [{ dial: `127.0.0.1:${upstreamPort}` }],
        // Write every piece as it comes: Caddy buffers proxied responses by default.
        flush_interval: -1,
        // compression: false keeps Caddy from asking the lab for gzip; the bodies are random.
        transport: {
          protocol: 'http',
          compression: false,
          // Setting keep_alive at all drops Caddy 2.6's idle pool to Go's default of 2 per upstream,
          // and it then reconnected for ~950 of every 1,000 HTTP/2 requests (docs/performance.md).
          keep_alive: { idle_timeout: goDuration(upstreamIdleMs), max_idle_conns_per_host: upstreamIdleConns },
        },
        headers: { request: { set } },
      },
    ],
  };
}

// A client that sends no SNI (an IP-literal origin: HTTP/3's 127.0.0.1) would get the certificate
// of the address it reached, which on the packet network (198.18.0.1) the lab's does not cover:
// Caddy answered with TLS internal_error. The lab's HTTP/3 origin is 127.0.0.1.
/** @param {{ tls_connection_policies: object[] }} server */
const withDefaultSni = (server) => ({ ...server, tls_connection_policies: server.tls_connection_policies.map((p) => ({ ...p, default_sni: '127.0.0.1' })) });

/** @typedef {{ id: string, protocol: 'http/1.1'|'h2'|'h3', listenHost: string, port: number, upstreamPort: number }} CaddyServer  one server behind Caddy */

/**
 * @param {object} o
 * @param {CaddyServer[]} o.servers
 * @param {string[]} o.certFiles PEM each: Caddy serves the one whose names the client's SNI asks for
 * @param {string} o.keyFile PEM, every certificate's key
 * @param {{ idleTimeoutMs: number, headersTimeoutMs: number, maxHeaderBytes: number, shutdownGraceMs: number }} o.limits transportLimits
 * @param {{ upstreamIdleMs: number, upstreamIdleConns: number }} o.caddyLimits
 */
export function caddyConfig({ servers, certFiles, keyFile, limits, caddyLimits }) {
  /** @param {CaddyServer} s */
  const server = (s) => ({
    listen: [`${s.listenHost.includes(':') ? `[${s.listenHost}]` : s.listenHost}:${s.port}`],
    protocols: protocolsOf[s.protocol],
    // No ACME, no internal CA, no redirects: the lab's certificate, loaded below, is the only one.
    automatic_https: { disable: true },
    tls_connection_policies: [s.protocol === 'h3' ? { alpn: tcpRefusal.alpn } : {}],
    // The same bounds as the Node servers (server/config.js transportLimits).
    idle_timeout: goDuration(limits.idleTimeoutMs),
    read_header_timeout: goDuration(limits.headersTimeoutMs),
    max_header_bytes: limits.maxHeaderBytes,
    // Caddy 2.6 cannot serve HTTP/2 without HTTP/1.1 (Go's net/http), so the HTTP/2 port answers
    // an HTTP/1.1 request with the 505 the Node HTTP/2 servers give a client without ALPN.
    routes: [
      ...(s.protocol === 'h2' ? [proxyRoute(s, caddyLimits, { refuse: true })] : []),
      ...(s.protocol === 'h3' ? [tcpRefusal.route] : []),
      proxyRoute(s, caddyLimits),
    ],
  });
  return {
    // No admin endpoint: nothing else may reconfigure the lab's front, and nothing is saved.
    admin: { disabled: true, config: { persist: false } },
    logging: { logs: { default: { level: 'ERROR' } } },
    apps: {
      tls: { certificates: { load_files: certFiles.map((certificate) => ({ certificate, key: keyFile })) } },
      http: {
        grace_period: goDuration(limits.shutdownGraceMs),
        servers: Object.fromEntries(servers.map((s) => [s.id, withDefaultSni(server(s))])),
      },
    },
  };
}

