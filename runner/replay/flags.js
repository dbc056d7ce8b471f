// Chromium's flags for a replayed page: every recorded origin resolves to the lab server that
// replays it, each keeping its own name (so its own connection, unless a certificate names
// several and Chromium pools them: server/replay/certs.js), and every other name resolves to
// nothing, without a lookup: nothing of a replay reaches the real origins.
import { noSuchHost } from '../browsers/chrome.js';
import { originAddress } from '../../server/packet/sides.js';

/**
 * Whether a recorded address is one a lab gave it, not the site: loopback, or RFC 2544's range
 * (where a recording the lab made of its own test site, or of a replay, puts every host).
 * @param {string} ip
 */
const labsOwn = (ip) => /^127\./.test(ip) || ip === '::1' || /^198\.1[89]\./.test(ip);

/**
 * Each recorded host's address on the packet network (its origin block, server/packet/sides.js):
 * hosts the recording saw answered from one address (serverIPAddress, its first) share one, as
 * they did, so a browser may pool them where a certificate names both; every other host (and
 * one recorded at a lab's address) has one of its own.
 * @param {Array<import('../../server/replay/archive.js').Archive>} archives
 * @returns {Map<string, string>}  hostname → address
 */
export function hostAddresses(archives) {
  /** @type {Map<string, number>} */
  const groups = new Map();
  /** @type {Map<string, string>} */
  const addresses = new Map();
  for (const e of archives.flatMap((a) => a.exchanges)) {
    const host = new URL(e.url).hostname;
    if (addresses.has(host)) continue;
    const key = e.serverIp === null || labsOwn(e.serverIp) ? `host ${host}` : `ip ${e.serverIp}`;
    if (!groups.has(key)) groups.set(key, groups.size);
    addresses.set(host, originAddress(/** @type {number} */ (groups.get(key))));
  }
  return addresses;
}

/**
 * @param {string[]} origins  the recorded origins, https://host[:port]
 * @param {{ protocol: string, host: string, port: number, hostOf?: (hostname: string) => string }} server
 *   the lab server that serves them: its address (an IP) and port; hostOf: each recorded host's own
 *   address where it has one (the packet network's origin block), else `host`
 * @returns {string[]}
 */
export function replayFlags(origins, server) {
  const literal = (/** @type {string} */ ip) => (ip.includes(':') ? `[${ip}]` : ip);
  const urls = origins.map((o) => new URL(o));
  // A pattern is tried against the host, then against host:port: each recorded port maps alone.
  const rules = [...urls.map((u) => `MAP ${u.hostname}:${u.port || 443} ${literal(server.hostOf?.(u.hostname) ?? server.host)}:${server.port}`), `MAP * ${noSuchHost}`];
  return [
    `--host-resolver-rules=${rules.join(', ')}`,
    '--no-proxy-server',
    // No Alt-Svc is replayed (response.js), so Chromium speaks HTTP/3 where told to, to each origin.
    ...(server.protocol === 'h3' ? [`--origin-to-force-quic-on=${urls.map((u) => `${u.hostname}:${u.port || 443}`).join(',')}`] : []),
  ];
}
