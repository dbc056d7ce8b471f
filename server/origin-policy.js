// The names the lab goes by, and which pages may use it. The certificate always covers
// localhost, so browsers are sent there for any loopback address.
import { createHeldPorts } from './held-ports.js';
import { allLabHostNames } from '../common/setup/host-names.js';

const loopback = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);

/**
 * Where the lab reaches a server that listens on every interface.
 * @param {string} host
 * @returns {string}
 */
export const reachable = (host) => /** @type {Record<string, string>} */ ({ '0.0.0.0': '127.0.0.1', '::': '::1' })[host] ?? host;

/** @param {string} host */
export const bracketed = (host) => (host.includes(':') ? `[${host}]` : host);

/**
 * The host name browsers should use.
 * @param {string} host
 */
export const publicHost = (host) => (loopback.has(host) ? 'localhost' : bracketed(host));

/**
 * Where a front listens, and the host of an HTTP/3 origin: an address, not localhost, since a
 * browser tries QUIC on the first address a name resolves to (::1 here) and has no fallback.
 * @param {string} host
 */
export const literalHost = (host) => (host === 'localhost' ? '127.0.0.1' : reachable(host));

/**
 * The lab's own origins: the UI, and Vite's dev server while `npm run dev` runs, under every name
 * the certificate covers. Their pages may read the test servers' responses (allowOrigin) and
 * reset them (isLabOrigin); the UI answers only requests addressed to one of those names
 * (isLabHost: no DNS rebinding). The dev server's port is the lab's only while the dev server
 * holds its announcement open (announceDevServer, server/dev-announce.js): 5173 is Vite's default
 * for every project, and another project's dev server must not reset or read the lab.
 * @param {{ host: string, uiPort: number, sans: string[] }} o
 */
export function originPolicy({ host, uiPort, sans }) {
  const names = [...new Set(['localhost', '127.0.0.1', '[::1]', ...allLabHostNames, publicHost(host), ...sans.map(publicHost)])];
  /** @param {number} port */
  const originsOn = (port) => names.map((n) => `http://${n}:${port}`);
  const allowed = new Set(originsOn(uiPort));
  // By the port that changed alone: rebuilding the whole set on each change made n announcements
  // cost n² (6,000 took 97 s of the lab's CPU, npm run bench:announce). The UI's own port stays,
  // announced or not.
  const devPorts = createHeldPorts((port, held) => {
    if (port === uiPort) return;
    for (const origin of originsOn(port)) {
      if (held) allowed.add(origin);
      else allowed.delete(origin);
    }
  });
  const primary = `http://${publicHost(host)}:${uiPort}`;
  return {
    /** @param {string} [origin] */
    allowOrigin: (origin) => (origin !== undefined && allowed.has(origin) ? origin : primary),
    /** @param {string} origin */
    isLabOrigin: (origin) => allowed.has(origin),
    /** @param {string} [hostHeader] */
    isLabHost: (hostHeader) => allowed.has(`http://${hostHeader}`),
    /**
     * Trusts a dev server's port until the returned withdraw() is called.
     * @param {number} port
     */
    announceDevServer: (port) => ({ origins: originsOn(port), withdraw: devPorts.hold(port) }),
  };
}
