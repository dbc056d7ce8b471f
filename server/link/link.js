// The lab link: an emulated path (server/path/) and a twin port in front of each lab server.
// server/lab.js starts it with the servers; the control API reads and sets it (server/ui.js), as
// every lab network behind one interface (server/lab-networks.js).
import { presetConditions, publicConditions } from '../path/conditions.js';
import { createPath } from '../path/path.js';
import { createRelay } from './tcp-relay.js';
import { createFlowTable } from './udp-flows.js';
import { createUdpRelay } from './udp-relay.js';

/** Starts at no throttling: a twin port then passes bytes straight through. */
export function createLink() {
  const path = createPath(presetConditions('no-throttling'));
  const flowTable = createFlowTable(); // the UDP relays' flows, bounded in all
  /** @type {Array<ReturnType<typeof createRelay>|ReturnType<typeof createUdpRelay>>} */
  const relays = [];
  const openConnections = () => relays.reduce((n, r) => n + r.pairs.size, 0);
  /** Ends every connection through the link at once (both sides), with what it had queued. */
  const closeAll = () => {
    const closed = openConnections();
    for (const relay of relays) for (const teardown of relay.pairs) teardown();
    path.clear();
    return closed;
  };
  return {
    id: /** @type {const} */ ('link'),
    get: () => publicConditions(path.conditions()),
    /**
     * For the next connections and the open ones alike: what is queued and every next piece pays the new conditions.
     * @param {import('../path/conditions.js').PathConditions} next
     */
    async set(next) {
      path.set(next);
      return publicConditions(next);
    },
    /** { down, up }: pieces and bytes the path delivered since the start; openConnections now. */
    counters: async () => ({ down: { ...path.down.counters }, up: { ...path.up.counters }, openConnections: openConnections() }),
    /** Why the network cannot be used, or null: the link lives in the lab's own process. */
    failure: () => null,
    /** The lab UI is reached directly, never through a twin port: nothing of it crosses the link. */
    exemptUiPort: async () => {},
    // Declared in the registry (common/setup/networks.js): the link loses nothing and sees streams, not packets.
    seedLoss: null,
    capture: null,
    /**
     * A twin port for the server at targetHost:targetPort (not listening yet): UDP for HTTP/3, else TCP.
     * @param {number} targetPort @param {string} targetHost @param {{ udp?: boolean }} [o]
     */
    relayTo(targetPort, targetHost, { udp = false } = {}) {
      const relay = udp
        ? createUdpRelay({ path, targetPort, targetHost, flowTable })
        : createRelay({ path, rttMs: () => path.conditions().rttMs, targetPort, targetHost });
      relays.push(relay);
      return relay;
    },
    openConnections,
    closeAll,
    async close() {
      closeAll();
    },
  };
}
