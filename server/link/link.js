// The lab link: one bottleneck, its conditions, and a twin port in front of each lab server.
// server/lab.js starts it with the servers; the UI server's /api/link reads and sets it.
import { createBottleneck } from './bottleneck.js';
import { presetConditions, publicConditions } from './conditions.js';
import { createRelay } from './tcp-relay.js';
import { createFlowTable } from './udp-flows.js';
import { createUdpRelay } from './udp-relay.js';

/** Starts at no throttling: a twin port then passes bytes straight through. */
export function createLink() {
  let conditions = presetConditions('no-throttling');
  const bottleneck = createBottleneck(() => conditions);
  const flowTable = createFlowTable(); // the UDP relays' flows, bounded in all
  const relays = [];
  return {
    /** @returns {{ preset, rttMs, downloadBps, uploadBps, queueBytes }} */
    get: () => publicConditions(conditions),
    /** For the next connections and the open ones alike: what is queued and every next piece pays the new conditions. */
    set(next) {
      conditions = next;
      bottleneck.retime();
      return publicConditions(conditions);
    },
    /** A twin port for the server at targetHost:targetPort (not listening yet): UDP for HTTP/3, else TCP. */
    relayTo(targetPort, targetHost, { udp = false } = {}) {
      const relay = udp
        ? createUdpRelay({ bottleneck, targetPort, targetHost, flowTable })
        : createRelay({ bottleneck, rttMs: () => conditions.rttMs, targetPort, targetHost });
      relays.push(relay);
      return relay;
    },
    openConnections: () => relays.reduce((n, r) => n + r.pairs.size, 0),
    /** Ends every connection through the link at once (both sides), with what it had queued. */
    closeAll() {
      const closed = this.openConnections();
      for (const relay of relays) for (const teardown of relay.pairs) teardown();
      bottleneck.clear();
      return closed;
    },
  };
}
