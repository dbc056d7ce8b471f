// The fronts (fronts.js: Caddy) through the lab's life: looked for before the lab starts, launched
// in front of their servers, held and released by a reset (server/lab.js), and marked gone when
// one dies. Every front alike: nothing here names one.
import path from 'node:path';
import { certsDir, options as configOptions } from '../config.js';
import { LabError } from '../listen.js';
import { fronts as registry } from './fronts.js';

/** @typedef {{ bin?: string, version?: string, status?: string, reason?: string }} FoundFront */
/** @typedef {import('./fronts.js').Front} Front */
/** @typedef {import('../lab-servers.js').RunningServer} RunningServer */
/** @typedef {import('../link/udp-relay.js').UdpRelay} UdpRelay */

/**
 * What the lab knows of a front before it starts: { bin, version } or { status, reason }.
 * @param {Front} front
 * @param {Partial<Record<Front['offKey'], boolean>>} config
 * @returns {Promise<FoundFront>}
 */
async function discover(front, config) {
  if (config[front.offKey]) return { status: 'off', reason: `left out with --${configOptions.find((o) => o.key === front.offKey)?.flag}` };
  let bin;
  try {
    bin = front.find();
  } catch (err) {
    throw new LabError(/** @type {Error} */ (err).message);
  }
  if (!bin) return { status: 'missing', reason: front.installHint };
  try {
    return { bin, version: await front.version(bin) };
  } catch (err) {
    return { status: 'failed', reason: `${bin} version failed (${/** @type {Error} */ (err).message.split('\n')[0]}); ${front.installHint}` };
  }
}

/**
 * Every front's discover(), by id.
 * @param {Partial<Record<Front['offKey'], boolean>>} config
 * @returns {Promise<Record<string, FoundFront>>}
 */
export async function discoverFronts(config) {
  return Object.fromEntries(await Promise.all(registry.map(async (f) => [f.id, await discover(f, config)])));
}

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
 * One front in the lab: its status, started in front of its servers, and gone when it dies.
 * @param {Front} front
 * @param {FoundFront} found
 * @param {{ running: RunningServer[], transport: typeof import('../config.js').transportLimits, onNotice?: (line: string) => void, tlsFiles: TlsFiles }} o
 */
function frontInLab(front, found, { running, transport, onNotice, tlsFiles }) {
  // { status: 'starting'|'running'|'off'|'missing'|'failed'|'exited', version, reason }
  const status = { status: found.status ?? 'starting', version: found.version ?? null, reason: found.reason ?? null };
  /** @type {import('./fronts.js').RunningFront|null} */
  let started = null;
  const fronted = () => running.filter((r) => r.front === front.id);
  /** @param {string} why */
  function gone(why) {
    Object.assign(status, { status: 'exited', reason: why });
    for (const r of fronted()) Object.assign(r, { available: false, unavailableReason: why });
    onNotice?.(`${why}; the ${front.title} servers are unavailable until the lab restarts`);
  }
  return {
    front,
    status,
    available: Boolean(found.bin),
    /** The HTTP/3 servers it runs now. */
    h3: () => (started?.alive ? fronted().filter((r) => r.protocol === 'h3' && r.available) : []),
    get started() {
      return started;
    },
    gone,
    /** Starts it in front of its servers, if it has any (their ports released just before). */
    async launch() {
      const servers = fronted();
      if (!servers.length) return;
      try {
        const bin = /** @type {string} launched only when found */ (found.bin);
        const placed = /** @type {import('./fronts.js').FrontServer[]} the lab places every server before it launches the fronts */ (servers);
        started = await front.start({ bin, servers: placed, ...tlsFiles, limits: transport, onDied: gone });
        status.status = 'running';
      } catch (e) {
        const err = /** @type {Error & { log?: string, portInUse?: number|null }} the front's start's */ (e);
        const taken = servers.find((r) => r.port === err.portInUse);
        if (taken) throw new LabError(`port ${taken.port} on ${taken.listenHost} is in use: choose another with ${taken.flag}`);
        // Anything else leaves the lab running without the family, and says why.
        gone(`${front.title} did not start: ${err.message}${err.log ? ` (${err.log.split('\n').at(-1)})` : ''}`);
        status.status = 'failed';
      }
    },
  };
}

/** @typedef {{ certFiles: string[], keyFile: string }} TlsFiles  the PEM files a front serves */

/** The lab's certificate and key (server/certs.js), in the lab's folder. @returns {TlsFiles} */
const labTlsFiles = () => ({ certFiles: [path.join(certsDir, 'server.crt')], keyFile: path.join(certsDir, 'server.key') });

/**
 * @param {object} o
 * @param {Record<string, FoundFront>} o.found discoverFronts' answer
 * @param {RunningServer[]} o.running the lab's servers; those with a `front` go behind it
 * @param {typeof import('../config.js').transportLimits} o.transport the transport limits the fronts' configurations follow
 * @param {(line: string) => void} [o.onNotice] hears that a front went
 * @param {TlsFiles} [o.tlsFiles] the certificates the fronts serve: the lab's unless given (a replay's)
 */
export function createFronts({ found, running, transport, onNotice, tlsFiles = labTlsFiles() }) {
  const inLab = registry.map((f) => frontInLab(f, found[f.id] ?? { status: 'off', reason: 'not looked for' }, { running, transport, onNotice, tlsFiles }));
  /** @type {Record<string, { status: string, version: string|null, reason: string|null }>} */
  const status = Object.fromEntries(inLab.map((f) => [f.front.id, f.status]));
  /** @param {string|undefined} id */
  const frontOf = (id) => inLab.find((f) => f.front.id === id);
  /** @type {NodeJS.Timeout|null} */
  let releaseTimer = null;
  /** @type {{ fronts: typeof inLab, relays: UdpRelay[] }} */
  const holding = { fronts: [], relays: [] }; // held by hold(), until release()
  const answeredSinceHold = answeredSinceLastLook();

  return {
    status,
    /** @param {string} id  a front's: false when the lab starts without it, and its servers are left out */
    available: (id) => Boolean(frontOf(id)?.available),
    /** @param {{ front?: string }} t  a registry entry */
    software: (t) => {
      const f = frontOf(t.front);
      return f ? `${f.front.title} ${f.status.version} → Node ${process.version}` : `Node ${process.version}`;
    },
    /** Starts every front in front of the running servers that need it. */
    async launch() {
      for (const f of inLab) await f.launch();
    },
    /**
     * Takes the fronts with HTTP/3 servers down, and the HTTP/3 twin ports; answers the HTTP/3
     * origins held that a browser may still have a connection to: those of a server that answered
     * a request since the last hold (the one before ended every connection), so that the page's
     * closing requests, which fail by design and show in its console, are only those that close something.
     */
    async hold() {
      const held = inLab.filter((f) => f.h3().length);
      if (!held.length || holding.fronts.length) return [];
      const h3 = held.flatMap((f) => f.h3());
      holding.fronts.push(...held);
      holding.relays.push(...h3.map((r) => /** @type {UdpRelay} an HTTP/3 server's twin is UDP */ (r.relay)));
      await Promise.all([
        ...held.map((f) => /** @type {import('./fronts.js').RunningFront} h3() is empty unless started */ (f.started).hold().catch((err) => f.gone(`${f.front.title} failed a reset: ${err.message}`))),
        ...holding.relays.map((r) => r.hold()),
      ]);
      return answeredSinceHold(h3).flatMap((r) => [r.origin, r.linkOrigin]);
    },
    /**
     * Calls release() after the longest a front may stay held, in case the page that asked for the hold never does.
     * @param {() => void} release
     */
    releaseLater(release) {
      releaseTimer = setTimeout(release, Math.min(...inLab.map((f) => f.front.heldMaxMs))).unref();
    },
    /** Reopens what hold() held. */
    async release() {
      clearTimeout(releaseTimer ?? undefined);
      const held = holding.fronts.splice(0);
      const relays = holding.relays.splice(0);
      await Promise.all([
        ...held.map((f) => (f.started?.alive ? f.started.release().catch((err) => f.gone(`the ${f.front.title} servers did not come back after a reset: ${err.message}`)) : null)),
        ...relays.map((r) => r.release()),
      ]);
    },
    /** The relays held now, no longer to be released (the lab is closing them). */
    takeHeld() {
      clearTimeout(releaseTimer ?? undefined);
      holding.fronts.splice(0);
      return holding.relays.splice(0);
    },
    async stop() {
      await Promise.all(inLab.map((f) => f.started?.stop()));
    },
  };
}
