// The one place for what the lab changes in Firefox's profile, each with its reason. Everything
// else is a stock Firefox's, but for puppeteer-core's own profile defaults (its
// @puppeteer/browsers firefox.js: automation, updates, telemetry off), of which the one that
// alters networking is put back (speculative connections).
import { labHostNames } from '../../common/setup/host-names.js';

/**
 * Firefox's own value, which puppeteer's profile sets to 0 ("so they are not reported as leaking"):
 * a stock Firefox 153 opens up to 20 speculative connections (greprefs.js in omni.ja).
 */
export const stockSpeculativeParallelLimit = 20;

/**
 * @typedef {object} ReplayReach
 * @property {string[]} origins  the recorded origins, https://host[:port]
 * @property {number} port  the lab server's that replays them
 * @property {string} protocol  its protocol: 'h3' maps every recorded host to it over QUIC
 * @property {string|null} [doh]  the replay's DNS over HTTPS (runner/replay/doh.js), which answers each
 *   recorded host with an address of its own: Firefox asks it alone, in place of forceResolve
 */

/**
 * @param {object} o
 * @param {{ h3: number|null, h3Link: number|null }} o.h3Ports  the HTTP/3 server's port, direct and through the lab link (null: none)
 * @param {string} o.resolveTo  the address every name resolves to: loopback, or the packet network's server side
 * @param {boolean} o.qlog  whether Firefox writes a qlog of each QUIC connection ($TMPDIR/qlog_<pid>/)
 * @param {ReplayReach|null} [o.replay]  a replay's: every recorded origin reaches one lab server
 * @returns {Record<string, string|number|boolean>}
 */
export function firefoxPrefs({ h3Ports, resolveTo, qlog, replay = null }) {
  const h3Mapping = replay
    ? replay.protocol === 'h3' ? [...new Set(replay.origins.map((o) => new URL(o).hostname))].map((host) => `${host};h3=":${replay.port}"`) : []
    : /** @type {const} */ (['h3', 'h3Link']).filter((k) => h3Ports[k] !== null).map((k) => `${labHostNames[k]};h3=":${h3Ports[k]}"`);
  return {
    // A replay's origins keep their names and ports (443 mostly), which forceResolve sends to the
    // lab's address; their ports become the lab server's at the socket (Mozilla's own
    // performance tests pair the two for Web Page Replay). HTTP/3 takes its port from the mapping.
    ...(replay && { 'network.socket.forcePort': [...new Set(replay.origins.map((o) => new URL(o).port || '443'))].map((p) => `${p}=${replay.port}`).join(';') }),
    'network.http.speculative-parallel-limit': stockSpeculativeParallelLimit,
    // Every name resolves to the lab's address and nowhere else: the lab's names (common/setup/host-names.js),
    // and whatever Firefox itself would look up (updates, DNS over HTTPS, captive-portal checks),
    // which then reaches loopback or the packet network's closed browser side, never the outside.
    // Firefox skips it for localhost and IP literals, which is why the lab's origins have names.
    ...(replay?.doh ? replayDns(replay.doh) : { 'network.dns.forceResolve': resolveTo }),
    // The lab listens on IPv4 alone; forceResolve gives IPv4 anyway.
    'network.dns.disableIPv6': true,
    // HTTP/3 on, to the lab's HTTP/3 server. No lab server advertises it with Alt-Svc, so, as
    // Chromium's --origin-to-force-quic-on, Firefox is told where it is: per host name only
    // (a key with a port never matches), hence the HTTP/3 server's names of its own.
    'network.http.http3.enable': true,
    'network.http.http3.alt-svc-mapping-for-testing': h3Mapping.join(','),
    'network.http.http3.force-use-alt-svc-mapping-for-testing': h3Mapping.length > 0,
    // Firefox turns HTTP/3 off when any root it did not ship is trusted, the lab's CA included
    // (a guard against TLS-intercepting middleboxes), silently.
    'network.http.http3.disable_when_third_party_roots_found': false,
    'network.http.http3.enable_qlog': qlog,
    // The UI is served over plain HTTP under a name (h2lab.test), which is not a secure context
    // as localhost is; the page needs one as it has one in Chromium (http://localhost).
    'dom.securecontext.allowlist': labHostNames.tcp,
  };
}

/**
 * A replay's names through its own DNS over HTTPS (TRR), each recorded host to its own address.
 * Verified with Firefox 153 ESR (docs/replay.md): every name goes to this server and nowhere else.
 * @param {string} uri
 */
const replayDns = (uri) => ({
  'network.trr.mode': 3, // DNS over HTTPS alone: no fallback to the system's resolver
  'network.trr.uri': uri,
  'network.trr.bootstrapAddr': '127.0.0.1', // the server's own name is never looked up
  'network.trr.confirmationNS': 'skip', // no confirmation lookup of a public name first
  // Otherwise answers in private or loopback ranges are refused (TRR.cpp passes it to its decoder).
  'network.trr.allow-rfc1918': true,
});
