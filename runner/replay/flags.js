// Chromium's flags for a replayed page: every recorded origin resolves to the lab server that
// replays it, each keeping its own name (so its own connection, unless a certificate names
// several and Chromium pools them: server/replay/certs.js), and every other name resolves to
// nothing, without a lookup: nothing of a replay reaches the real origins.
import { noSuchHost } from '../browsers/chrome.js';

/**
 * @param {string[]} origins  the recorded origins, https://host[:port]
 * @param {{ protocol: string, host: string, port: number }} server  the lab server that serves them: its address (an IP) and port
 * @returns {string[]}
 */
export function replayFlags(origins, server) {
  const target = `${server.host.includes(':') ? `[${server.host}]` : server.host}:${server.port}`;
  const hosts = origins.map((o) => new URL(o)).map((u) => `${u.hostname}:${u.port || 443}`);
  // A pattern is tried against the host, then against host:port: each recorded port maps alone.
  const rules = [...hosts.map((h) => `MAP ${h} ${target}`), `MAP * ${noSuchHost}`];
  return [
    `--host-resolver-rules=${rules.join(', ')}`,
    '--no-proxy-server',
    // No Alt-Svc is replayed (response.js), so Chromium speaks HTTP/3 where told to, to each origin.
    ...(server.protocol === 'h3' ? [`--origin-to-force-quic-on=${hosts.join(',')}`] : []),
  ];
}
