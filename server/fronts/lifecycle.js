// The Caddy front through the lab's life: looked for before the lab starts, launched in front of
// its servers, held and released by a reset (server/lab.js), and marked gone when it dies.
import path from 'node:path';
import { caddyLimits, certsDir } from '../config.js';
import { LabError } from '../listen.js';
import { caddyVersion, findCaddy, installHint, startCaddy } from './caddy.js';

/**
 * What the lab knows of the Caddy front before it starts: { bin, version } or { status, reason }.
 * @param {{ noCaddy?: boolean }} config
 * @returns {Promise<FoundCaddy>}
 */
export async function discoverCaddy({ noCaddy }) {
  if (noCaddy) return { status: 'off', reason: 'left out with --no-caddy' };
  let bin;
  try {
    bin = findCaddy();
  } catch (err) {
    throw new LabError(/** @type {Error} */ (err).message);
  }
  if (!bin) return { status: 'missing', reason: installHint };
  try {
    return { bin, version: await caddyVersion(bin) };
  } catch (err) {
    return { status: 'failed', reason: `${bin} version failed (${/** @type {Error} */ (err).message.split('\n')[0]}); ${installHint}` };
  }
}

/** @typedef {{ bin?: string, version?: string, status?: string, reason?: string }} FoundCaddy */
/** @typedef {import('../lab-servers.js').RunningServer} RunningServer */
/** @typedef {import('../link/udp-relay.js').UdpRelay} UdpRelay */

/**
 * Of the servers it is given, those that answered a request since the last time it was given
 * them (all, the first time): hold() asks it which HTTP/3 origins may still have a connection.
 */
function answeredSinceLastLook() {
  /** @type {Map<string, number>} */
  const answeredAtLook = new Map(); // a server's id → the requests it had answered at the last look
  /** @param {RunningServer[]} servers */
  return (servers) =>
    servers.filter((r) => {
      const answered = r.tracker.snapshot().requests;
      const before = answeredAtLook.get(r.id);
      answeredAtLook.set(r.id, answered);
      return answered !== before;
    });
}

/**
 * @param {object} o
 * @param {FoundCaddy} o.found discoverCaddy's answer
 * @param {RunningServer[]} o.running the lab's servers; those with `front: 'caddy'` go behind it
 * @param {typeof import('../config.js').transportLimits} o.transport the transport limits Caddy's config follows
 * @param {(line: string) => void} [o.onNotice] hears that Caddy went
 */
export function createFronts({ found, running, transport, onNotice }) {
  // status.caddy: { status: 'starting'|'running'|'off'|'missing'|'failed'|'exited', version, reason }
  /** @type {{ caddy: { status: string, version: string|null, reason: string|null } }} */
  const status = { caddy: { status: found.status ?? 'starting', version: found.version ?? null, reason: found.reason ?? null } };
  /** @type {Awaited<ReturnType<typeof startCaddy>>|null} */
  let caddy = null;
  /** @type {NodeJS.Timeout|null} */
  let releaseTimer = null;
  /** @type {UdpRelay[]} */
  const holding = []; // the link's UDP relays held by hold(), until release()
  const answeredSinceHold = answeredSinceLastLook();

  /** @param {string} why */
  function gone(why) {
    Object.assign(status.caddy, { status: 'exited', reason: why });
    for (const r of running) {
      if (r.front === 'caddy') Object.assign(r, { available: false, unavailableReason: why });
    }
    onNotice?.(`${why}; the Caddy servers are unavailable until the lab restarts`);
  }

  return {
    status,
    /** False when the lab starts without Caddy: its servers are left out. */
    available: Boolean(found.bin),
    /** @param {{ front?: string }} t  a registry entry */
    software: (t) => (t.front ? `Caddy ${status.caddy.version} → Node ${process.version}` : `Node ${process.version}`),

    /** Starts Caddy in front of the running servers that need it (their ports released just before). */
    async launch() {
      const fronted = running.filter((r) => r.front === 'caddy');
      if (!fronted.length) return;
      // Placed by now (server/lab.js places every server before it launches the front).
      const servers = /** @type {import('./caddy-config.js').CaddyServer[]} */ (fronted);
      const caddyConfig = { servers, certFile: path.join(certsDir, 'server.crt'), keyFile: path.join(certsDir, 'server.key'), limits: transport, caddyLimits };
      try {
        caddy = await startCaddy({ bin: /** @type {string} launched only when found */ (found.bin), config: caddyConfig, caddyLimits, onDied: gone });
        status.caddy.status = 'running';
      } catch (e) {
        const err = /** @type {Error & { log?: string, portInUse?: number|null }} startCaddy's */ (e);
        const taken = fronted.find((r) => r.port === err.portInUse);
        if (taken) throw new LabError(`port ${taken.port} on ${taken.listenHost} is in use: choose another with ${taken.flag}`);
        // Anything else leaves the lab running without the family, and says why.
        gone(`Caddy did not start: ${err.message}${err.log ? ` (${err.log.split('\n').at(-1)})` : ''}`);
        status.caddy.status = 'failed';
      }
    },

    /**
     * Takes Caddy's servers and the HTTP/3 twin ports down; answers the HTTP/3 origins held that
     * a browser may still have a connection to: those of a server that answered a request since
     * the last hold (the one before ended every connection), so that the page's closing requests,
     * which fail by design and show in its console, are only those that close something.
     */
    async hold() {
      const h3 = running.filter((r) => r.protocol === 'h3' && r.available);
      if (!caddy?.alive || !h3.length || holding.length) return [];
      holding.push(...h3.map((r) => /** @type {UdpRelay} an HTTP/3 server's twin is UDP */ (r.relay)));
      try {
        await Promise.all([caddy.hold(), ...h3.map((r) => /** @type {UdpRelay} */ (r.relay).hold())]);
      } catch (err) {
        gone(`Caddy failed a reset: ${/** @type {Error} */ (err).message}`);
      }
      return answeredSinceHold(h3).flatMap((r) => [r.origin, r.linkOrigin]);
    },

    /**
     * Calls release() after heldMaxMs, in case the page that asked for the hold never does.
     * @param {() => void} release
     */
    releaseLater(release) {
      releaseTimer = setTimeout(release, caddyLimits.heldMaxMs).unref();
    },

    /** Reopens what hold() held. */
    async release() {
      clearTimeout(releaseTimer ?? undefined);
      const relays = holding.splice(0);
      if (!relays.length) return;
      try {
        await Promise.all([caddy?.alive && caddy.release(), ...relays.map((r) => r.release())]);
      } catch (err) {
        gone(`the Caddy servers did not come back after a reset: ${/** @type {Error} */ (err).message}`);
      }
    },

    /** The relays held now, no longer to be released (the lab is closing them). */
    takeHeld() {
      clearTimeout(releaseTimer ?? undefined);
      return holding.splice(0);
    },

    async stop() {
      await caddy?.stop();
      caddy = null;
    },
  };
}
