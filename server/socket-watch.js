// Every TCP socket of the lab's servers, including those that never finish a TLS handshake or
// never speak h2 (the trackers count only real connections), so close() can end them all; and
// the idle collector (idle-gc.js) that runs between bursts of them.
import { memoryLimits } from './config.js';
import { startIdleCollector } from './idle-gc.js';

/** @param {{ cutResponses: () => number }} o responses cut so far, over every server */
export function createSocketWatch({ cutResponses }) {
  /** @type {Set<import('node:net').Socket>} */
  const sockets = new Set();
  let openedSinceCheck = false;
  let cutAtCheck = 0;
  const collector = startIdleCollector({
    quiet() {
      const quiet = !sockets.size && !openedSinceCheck;
      openedSinceCheck = false;
      return quiet;
    },
    storm() {
      const cut = cutResponses();
      const stormy = cut - cutAtCheck >= memoryLimits.stormCutResponses;
      cutAtCheck = cut;
      return stormy;
    },
  });
  return {
    /**
     * A server's 'connection' listener.
     * @param {import('node:net').Socket} socket
     */
    remember(socket) {
      openedSinceCheck = true;
      sockets.add(socket);
      socket.once('close', () => {
        sockets.delete(socket);
        // The last connection gone ends a burst (an attack, a run): its garbage goes now, before
        // the next one, not in it. On the next turn, once the closing connection is unreachable.
        if (!sockets.size) setImmediate(() => sockets.size || collector.collectIfGrown());
      });
    },
    /**
     * A connection that is not a test server's (the UI's): the lab is not quiet while new ones
     * come. A flood of them (6,000 announcements) made garbage the collector took for a finished
     * burst's, and its two full collections stalled the UI for 30–60 ms at a time.
     */
    opened() {
      openedSinceCheck = true;
    },
    collectIfGrown: () => collector.collectIfGrown(),
    stop: () => collector.stop(),
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
