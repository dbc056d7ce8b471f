// Which announcements the lab takes (a dev server's port, server/announce.js; npm run chrome's
// DevTools channel, server/devtools/channel.js): a few at a time (announceLimits), from a process
// of the lab's own user (server/peer-user.js), of a port something listens on where one is
// announced. Anything else is refused: a dev server's origin is then not trusted, a page naming
// that channel gets no preset applied.
import net from 'node:net';
import { announceLimits } from './config.js';
import { apiErrors } from './http/errors.js';
import { isLabUser } from './peer-user.js';

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

export function createAnnouncementGate() {
  const limits = announceLimits;
  /** @type {Map<string, number>} */
  const perKind = new Map(); // kind → announcements being checked or held
  let total = 0;
  /** @param {string} kind @param {number} step */
  const count = (kind, step) => {
    perKind.set(kind, (perKind.get(kind) ?? 0) + step);
    total += step;
  };
  // Reads of the socket tables (peer-user.js) left: a token bucket refilled at userChecksPerSecond,
  // holding as many as may be held at once, so that filling every place at once is never refused.
  let checks = limits.maxTotal;
  let refilledAt = performance.now();
  const takeCheck = () => {
    const now = performance.now();
    checks = Math.min(limits.maxTotal, checks + ((now - refilledAt) / 1000) * limits.userChecksPerSecond);
    refilledAt = now;
    if (checks < 1) return false;
    checks -= 1;
    return true;
  };
  return {
    /**
     * Takes `who`'s announcement (of `port`, if it names one), made over `socket`, once the checks pass; resolves the
     * release() to call when it ends. Rejects with the API's refusal: 429 over a limit (checked
     * first and counting the checks under way, so a flood costs no more than the limit; and over
     * the rate of user checks), 409 for a port nothing listens on, 403 from another user or one
     * the system cannot name.
     * @param {string} kind  e.g. 'dev-server', 'devtools-channel'
     * @param {string} who  what announces, for the messages
     * @param {net.Socket} socket
     * @param {number} [port]
     * @returns {Promise<() => void>}
     */
    async admit(kind, who, socket, port) {
      if ((perKind.get(kind) ?? 0) >= limits.maxPerKind) throw apiErrors.tooManyAnnouncements(`the lab holds or checks ${limits.maxPerKind} of ${who} already`);
      if (total >= limits.maxTotal) throw apiErrors.tooManyAnnouncements(`the lab holds or checks ${limits.maxTotal} already`);
      count(kind, 1);
      let held = true;
      const release = () => {
        if (held) count(kind, -1);
        held = false;
      };
      try {
        // The cheap check first: a refused connection on loopback costs microseconds, a read of
        // the socket tables milliseconds.
        if (port !== undefined && !(await listensOn(port))) throw apiErrors.portNotListening(port);
        if (!takeCheck()) throw apiErrors.tooManyAnnouncements(`the lab checks ${limits.userChecksPerSecond} a second at most`);
        if (!(await isLabUser(socket))) {
          // Elsewhere than Linux the lab cannot tell who connects (peer-user.js), and says so.
          throw apiErrors.announcerNotLabUser(process.platform === 'linux' ? 'this connection comes from another user, or from another machine' : `on ${process.platform} the lab cannot tell which user connects`);
        }
        return release;
      } catch (err) {
        release();
        throw err;
      }
    },
  };
}
