// The bounds on the UDP relays' flows (server/link/udp-relay.js). Every flow holds an upstream
// socket, one file descriptor, so a sender that uses a new source port per datagram would
// otherwise open sockets until the process has no descriptor left for the UI, the servers or
// anyone else. One table for the whole link bounds the flows per relay and in all; a flow the
// server has not answered yet is the first to go, so such a flood can only take flows that
// never carried a connection.
import { readFileSync } from 'node:fs';
import { linkLimits } from '../config.js';

/** The process's soft limit on open descriptors (RLIMIT_NOFILE), or Infinity where /proc is not. */
function descriptorLimit() {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : Infinity;
  } catch {
    return Infinity;
  }
}

/**
 * A flow: `relay` is whatever identifies its relay, close() tears it down (and calls remove).
 * @typedef {{ relay: unknown, close(): void }} Flow
 */

/**
 * @returns {{ admit(relay: unknown): boolean, add(flow: Flow): void, answered(flow: Flow): boolean, remove(flow: Flow): void, max: number }}
 */
export function createFlowTable() {
  const fdBound = Math.floor(descriptorLimit() * linkLimits.udpFlowsFdShare);
  /** @type {Map<unknown, number>} */
  const perRelay = new Map(); // relay → its open flows
  /** @type {Set<Flow>} */
  const unanswered = new Set(); // in the order they opened: the oldest first
  let open = 0;

  /** @param {unknown} [relay] */
  const oldestUnanswered = (relay) => {
    for (const flow of unanswered) if (relay === undefined || flow.relay === relay) return flow;
    return null;
  };
  /**
   * Makes room by closing the oldest unanswered flow (of `relay` if given); false if none.
   * @param {unknown} [relay]
   */
  const evict = (relay) => {
    const flow = oldestUnanswered(relay);
    flow?.close();
    return flow !== null;
  };

  return {
    get max() {
      return Math.min(linkLimits.maxUdpFlows, fdBound);
    },
    /** Whether `relay` may open one more flow, after closing an unanswered one if it must. */
    admit(relay) {
      if ((perRelay.get(relay) ?? 0) >= linkLimits.maxUdpFlowsPerRelay && !evict(relay)) return false;
      return open < this.max || evict();
    },
    add(flow) {
      open += 1;
      perRelay.set(flow.relay, (perRelay.get(flow.relay) ?? 0) + 1);
      unanswered.add(flow);
    },
    answered: (flow) => unanswered.delete(flow),
    remove(flow) {
      open -= 1;
      const left = /** @type {number} an added flow's relay is counted */ (perRelay.get(flow.relay)) - 1;
      if (left) perRelay.set(flow.relay, left);
      else perRelay.delete(flow.relay);
      unanswered.delete(flow);
    },
  };
}
