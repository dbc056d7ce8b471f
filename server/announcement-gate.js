// Which announcements the lab takes (a dev server's port, server/announce.js; npm run chrome's
// DevTools channel, server/devtools/channel.js): from a process of the lab's own user, not through
// a proxy (server/peer-user.js), a few at a time (announceLimits), of a port something listens on
// where one is announced. Anything else is refused: a dev server's origin is then not trusted, a
// page naming that channel gets no preset applied.
import net from 'node:net';
import { announceLimits } from './config.js';
import { apiErrors } from './http/errors.js';

/**
 * Whether something accepts a TCP connection on `port` at 127.0.0.1 or ::1 (Vite may listen on either).
 * @param {number} port
 */
async function listensOn(port) {
  for (const host of ['127.0.0.1', '::1']) {
    const accepted = await new Promise((resolve) => {
      const socket = net.connect({ host, port, timeout: announceLimits.listenCheckTimeoutMs });
      /** @param {boolean} yes */
      const settle = (yes) => {
        socket.destroy();
        resolve(yes);
      };
      socket.once('connect', () => settle(true));
      socket.once('error', () => settle(false));
      socket.once('timeout', () => settle(false));
    });
    if (accepted) return true;
  }
  return false;
}

/**
 * @param {{ whyNotLabUser(req: import('node:http').IncomingMessage): Promise<string | null> }} peers
 *   whose a request is (peer-user.js createPeerIdentifier)
 */
export function createAnnouncementGate(peers) {
  const limits = announceLimits;
  /** @type {Map<string, number>} */
  const perKind = new Map(); // kind → the lab user's announcements being checked or held
  let total = 0;
  /** @param {string} kind @param {number} step */
  const count = (kind, step) => {
    perKind.set(kind, (perKind.get(kind) ?? 0) + step);
    total += step;
  };
  return {
    /**
     * Takes `who`'s announcement (of `port`, if it names one), made by `req`, once the checks pass;
     * resolves the release() to call when it ends. Rejects with the API's refusal: 403 from another
     * user, through a proxy, or from one the system cannot name; 429 over a limit; 409 for a port
     * nothing listens on. Whose it is comes first: another user's announcement is refused before
     * it takes a place or costs a listen check, so the places are the lab user's alone and no
     * flood of another user's takes them (peers reads the socket tables at a bounded rate, for
     * every connection waiting at once, and refuses none for the rate).
     * @param {string} kind  e.g. 'dev-server', 'devtools-channel'
     * @param {string} who  what announces, for the messages
     * @param {import('node:http').IncomingMessage} req
     * @param {number} [port]
     * @returns {Promise<() => void>}
     */
    async admit(kind, who, req, port) {
      const notLabUser = await peers.whyNotLabUser(req);
      if (notLabUser) throw apiErrors.announcerNotLabUser(notLabUser);
      // Counting the listen checks under way: the lab user's own flood costs no more than the limit.
      if ((perKind.get(kind) ?? 0) >= limits.maxPerKind) throw apiErrors.tooManyAnnouncements(`the lab holds or checks ${limits.maxPerKind} of ${who} already`);
      if (total >= limits.maxTotal) throw apiErrors.tooManyAnnouncements(`the lab holds or checks ${limits.maxTotal} already`);
      count(kind, 1);
      if (port !== undefined && !(await listensOn(port))) {
        count(kind, -1);
        throw apiErrors.portNotListening(port);
      }
      let held = true;
      return () => {
        if (held) count(kind, -1);
        held = false;
      };
    },
  };
}
