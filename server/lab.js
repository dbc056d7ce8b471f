// Starts and stops the whole lab: certificates, the test servers of common/setup/servers.js with their
// twin ports on the lab link, the Caddy front and the UI/control server. Used by `npm start`, the
// tests and the runner alike. The parts live in their own modules; this file wires them.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { defaultServerCaps } from '../common/setup/server-caps.js';
import { configKeyOf, servers } from '../common/setup/servers.js';
import { networks as networkRegistry } from '../common/setup/networks.js';
import { ensureCerts } from './certs.js';
import { servedTls } from './replay/certs.js';
import { certsDir, defaults, options as configOptions, replayScript, resultsDir, transportLimits } from './config.js';
import { createPageNetwork } from './devtools/page-network.js';
import { createFronts, discoverFronts } from './fronts/lifecycle.js';
import { createServerEntry, openTwin, placeServer } from './lab-servers.js';
import { createLink } from './link/link.js';
import { labNetworks, startRegisteredNetworks, twinPortNetwork } from './lab-networks.js';
import { createTraceLibrary } from './path/traces.js';
import { createCaptures } from './captures.js';
import { createReplayJobs } from './replay/jobs.js';
import { listen } from './listen.js';
import { originPolicy, publicHost } from './origin-policy.js';
import { labHostNames } from '../common/setup/host-names.js';
import { startPacketNetwork } from './packet/network.js';
import { createSocketWatch } from './socket-watch.js';
import { createUiServer } from './ui.js';

export { LabError } from './listen.js';

/** @typedef {import('./lab-servers.js').RunningServer} RunningServer */
/** @typedef {import('./http/handler.js').Handler} Handler */
/**
 * @typedef {{ handlerFor?: (serverId: string, shared: Handler) => Handler, onNotice?: (line: string) => void,
 *   served?: import('./replay/certs.js').ReplayCerts }} Hooks  served: the certificates every server serves
 *   instead of the lab's (a replay's, for the recorded names)
 */

/**
 * The running lab: what startLab resolves, and what the control API (ui.js), the runner and the
 * tests use of it.
 * @typedef {object} Lab
 * @property {import('./config.js').LabConfig} config
 * @property {Awaited<ReturnType<typeof ensureCerts>>} certs
 * @property {{ maxSizeMiB: number, maxDelayMs: number, maxStreams: number, maxAssets: number }} limits
 * @property {RunningServer[]} running
 * @property {Record<string, import('./lab-networks.js').LabNetwork>} networks  by id: the lab link, and the packet network where the lab runs on it
 * @property {ReturnType<typeof createTraceLibrary>} traces
 * @property {ReturnType<typeof createCaptures>} captures
 * @property {ReturnType<typeof createReplayJobs>} replays
 * @property {ReturnType<typeof createPageNetwork>} pageNetwork
 * @property {ReturnType<typeof createFronts>['status']} fronts
 * @property {() => import('../common/setup/lab-description.js').LabDescription} describe  GET /api/servers
 * @property {() => Array<{ id: string } & ReturnType<RunningServer['tracker']['snapshot']>>} stats
 * @property {(o?: { hold?: boolean, for?: string[] }) => ReturnType<typeof reset>} reset
 * @property {() => Promise<void>} release
 * @property {() => Promise<void>} close
 * @property {(graceMs?: number) => Promise<{ drained: boolean }>} shutdown
 * @property {string} [uiOrigin]  set once the UI listens, with the origin policy's functions below
 * @property {(origin: string) => boolean} [isLabOrigin]
 * @property {(host: string|undefined) => boolean} [isLabHost]
 * @property {(port: number) => { origins: string[], withdraw: () => void }} [announceDevServer]
 */

/** @param {string} key  an option's */
const flagOf = (key) => `--${/** @type {(typeof configOptions)[number]} */ (configOptions.find((o) => o.key === key)).flag}`;

/** @typedef {`${string}Port`} PortKey  a port's config key (configKeyOf of a *-port flag) */

/** Each registry entry with the config keys of its ports. */
const entries = servers.map((s) => ({ ...s, portKey: /** @type {PortKey} */ (configKeyOf(s.portFlag)), linkPortKey: /** @type {PortKey} */ (configKeyOf(s.linkPortFlag)) }));

/** Options for a lab on free ports (tests, benchmarks, the runner), each server's chosen by the OS. */
export const freePorts = Object.freeze(Object.fromEntries(['uiPort', ...entries.flatMap((t) => [t.portKey, t.linkPortKey])].map((k) => [k, 0])));

/**
 * @param {Partial<typeof defaults> & { transportLimits?: Partial<typeof transportLimits>, captureDir?: string|null, keyLogFile?: string|null, named?: boolean }} options
 *   transportLimits overrides config.js's values (tests shorten timeouts with it); captureDir and
 *   keyLogFile: where packet captures go and the browser's TLS key log (server/captures.js);
 *   named: the UI and every origin by the lab's names (common/setup/host-names.js), for Firefox
 * @param {Hooks} hooks handlerFor(serverId,
 *   shared) replaces the shared handler (the server benchmark's bare servers); onNotice hears
 *   what happens to the lab while it runs (Caddy exiting)
 * @returns {Promise<Lab>}
 */
export async function startLab(options = {}, hooks = {}) {
  const config = /** @type {Lab['config']} the options given are values */ ({ ...defaults, ...options });
  const transport = { ...transportLimits, ...options.transportLimits };
  // options.packet: the lab runs on the server side of the packet network (server/packet/). Its
  // emulator first: until it holds the TUN devices, this process does, and every child it starts
  // before then (Caddy's probe here) would inherit them.
  const packet = config.packet ? await startPacketNetwork({ onExit: hooks.onNotice }) : null;
  let lab;
  /** @type {import('./lab-networks.js').LabNetwork[]} */
  let more = [];
  try {
    more = await startRegisteredNetworks();
    const certs = await ensureCerts({ dir: certsDir, sans: config.sans });
    /** @type {RunningServer[]} */
    const running = [];
    const tlsFiles = hooks.served ? { certFiles: hooks.served.leaves.map((l) => l.certFile), keyFile: hooks.served.keyFile } : undefined;
    const fronts = createFronts({ found: await discoverFronts(config), running, transport, onNotice: hooks.onNotice, tlsFiles });
    const made = createLab({ config, transport, certs, running, fronts, packet, more });
    lab = made.lab;
    await openLab({ ...made, fronts, transport, hooks });
  } catch (err) {
    if (lab) await lab.close().catch(() => {});
    else await Promise.all([packet, ...more].map((n) => n?.close()));
    throw err;
  }
  return lab;
}

/**
 * The UI first (the origin policy needs its port), then the servers and the front.
 * @param {{ lab: Lab, ui: import('node:http').Server, sockets: ReturnType<typeof createSocketWatch>, fronts: ReturnType<typeof createFronts>,
 *   transport: typeof transportLimits, hooks: Hooks }} o
 */
async function openLab({ lab, ui, sockets, fronts, transport, hooks }) {
  const { config, certs, limits } = lab;
  const uiPort = await listen(ui, config.uiPort, config.host, flagOf('uiPort'));
  lab.uiOrigin = `http://${config.named ? labHostNames.tcp : publicHost(config.host)}:${uiPort}`;
  const { allowOrigin, isLabOrigin, isLabHost, announceDevServer } = originPolicy({ host: config.host, uiPort, sans: config.sans });
  Object.assign(lab, { isLabOrigin, isLabHost, announceDevServer });
  for (const network of Object.values(lab.networks)) await network.exemptUiPort(uiPort);
  const tls = hooks.served ? servedTls(hooks.served) : { key: certs.key, cert: certs.cert };
  // The fronts' ports, held from when they are chosen until the front starts (fronts/ports.js).
  /** @type {Array<{ release(): Promise<void> }>} */
  const reservations = [];
  try {
    for (const t of entries) {
      if (t.front && !fronts.available(t.front)) continue;
      const made = { tls, transport, limits, allowOrigin, maxStreams: config.maxStreams, remember: sockets.remember, software: fronts.software(t), handlerFor: hooks.handlerFor };
      const entry = await createServerEntry(t, made);
      lab.running.push(entry); // before it listens, so that close() closes it whatever fails next
      await placeServer(entry, { port: config[t.portKey], host: config.host, flag: flagOf(t.portKey), packet: config.packet, named: config.named, reservations });
      await openTwin(entry, twinPortNetwork(lab.networks).relayTo, { port: config[t.linkPortKey], host: config.host, flag: flagOf(t.linkPortKey), named: config.named });
    }
  } finally {
    await Promise.all(reservations.map((r) => r.release())); // the front binds them now
  }
  await fronts.launch();
}

/** Runs jobs one after another; idle() resolves once the last one queued has ended. */
function oneAtATime() {
  /** @type {Promise<unknown>} */
  let turn = Promise.resolve();
  /** @template {unknown[]} A @template R @param {(...args: A) => Promise<R>} job @returns {(...args: A) => Promise<R>} */
  const inTurn = (job) => (...args) => {
    const run = turn.then(() => job(...args));
    turn = run.catch(() => {});
    return run;
  };
  return { inTurn, idle: () => turn };
}

/**
 * What /api/servers tells of a server.
 * @param {RunningServer} server
 */
const described = ({ id, label, protocol, capabilities, origin, port, linkOrigin, linkPort, software, available, unavailableReason }) => ({
  id, label, origin, port, linkOrigin, linkPort, protocol, capabilities, software, available, unavailableReason,
});

/**
 * The lab object, its servers not listening yet (openLab does that).
 * @param {{ config: Lab['config'], transport: typeof transportLimits, certs: Lab['certs'], running: RunningServer[],
 *   fronts: ReturnType<typeof createFronts>, packet: Awaited<ReturnType<typeof startPacketNetwork>>|null,
 *   more: import('./lab-networks.js').LabNetwork[] }} o  more: networks registered beyond the lab's own (lab-networks.js)
 */
function createLab({ config, transport, certs, running, fronts, packet, more }) {
  const limits = { maxSizeMiB: config.maxSizeMiB, maxDelayMs: config.maxDelayMs, maxStreams: config.maxStreams, maxAssets: defaultServerCaps.maxAssets };
  const link = createLink();
  // The lab's own networks, each behind one interface (lab-networks.js); the packet network only
  // where the lab runs on it.
  const networks = labNetworks([link, ...(packet ? [packet] : []), ...more]);
  const traces = createTraceLibrary(); // what conditions may name as a direction's rate
  const captures = createCaptures({ dir: config.captureDir, keyLogFile: config.keyLogFile }); // runs' packets, on a network that sees them
  const pageNetwork = createPageNetwork(); // presets applied through a Chrome's DevTools port
  const replays = createReplayJobs({ script: replayScript, resultsDir: config.resultsDir ?? resultsDir }); // recorded pages the page replays
  const stats = () => running.map(({ id, tracker }) => ({ id, ...tracker.snapshot() }));
  const sockets = createSocketWatch({ cutResponses: () => stats().reduce((n, s) => n + s.responsesCut, 0) });
  // Hold, release and reset one at a time: two lab tabs, or a tab and the runner, may ask at
  // once, and a release that came during a hold must wait for Caddy to stop before starting it.
  const turns = oneAtATime();
  /** @type {Lab} */
  const lab = {
    config,
    certs,
    limits,
    running,
    networks,
    traces,
    captures,
    replays,
    pageNetwork,
    fronts: fronts.status,
    // uiOrigin is set once the UI listens, before anyone can ask.
    describe: () => ({ ui: /** @type {string} */ (lab.uiOrigin), servers: running.map(described), fronts: fronts.status, limits, certificate: { spkiSha256: certs.spkiSha256 },
      // Who can throttle this lab's runs: the browser's own, and the lab's networks it runs.
      networks: networkRegistry.filter((n) => !n.labSets || networks[n.id]).map((n) => n.id),
      // Their entries, so a page that knows only the lab's own networks learns any other (common/setup/networks.js registerNetwork).
      networkEntries: networkRegistry.filter((n) => !n.labSets || networks[n.id]) }),
    stats,
    reset: turns.inTurn((/** @type {{ hold?: boolean, for?: string[] }|undefined} */ o) => reset({ link, running, fronts, sockets, release: () => lab.release() }, o)),
    /** Reopens what reset({ hold: true }) held; resolves once it accepts connections again. */
    release: turns.inTurn(() => fronts.release()),
    /** Stops at once (after a reset or release under way): every connection is destroyed, in-flight responses are cut off. */
    async close() {
      await turns.idle(); // Caddy is not stopped while one of them starts it
      const closed = stopListening();
      await Promise.all(Object.values(networks).map((n) => n.close()));
      ui.closeAllConnections();
      await pageNetwork.close(); // no preset outlives the lab in a person's Chrome
      await replays.close();
      await fronts.stop();
      await lab.reset();
      sockets.destroyAll();
      await closed;
    },
    /**
     * Stops accepting, lets in-flight responses finish (HTTP/2 sessions get GOAWAY, idle
     * HTTP/1.1 sockets close, Caddy drains its own), and after graceMs destroys whatever is
     * left. Resolves { drained: true } when nothing had to be cut off.
     */
    async shutdown(graceMs = transport.shutdownGraceMs) {
      await turns.idle();
      const closed = stopListening();
      ui.closeAllConnections();
      let timer;
      const drained = await Promise.race([
        Promise.all([fronts.stop(), ...running.map(({ tracker }) => tracker.drainAll())]).then(() => true),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs, false))),
      ]);
      clearTimeout(timer);
      await lab.close();
      await closed;
      return { drained };
    },
  };
  const ui = createUiServer(lab);
  ui.on('connection', sockets.opened);

  function stopListening() {
    sockets.stop();
    // A twin port held by a reset is closed too, so that nothing binds it again.
    const held = fronts.takeHeld();
    const listening = /** @type {Array<import('node:net').Server|import('./link/udp-relay.js').UdpRelay>} no undefined: it neither listens nor is held */ (
      [ui, ...running.flatMap((r) => [r.server, r.relay])].filter((s) => s?.listening || /** @type {unknown[]} */ (held).includes(s))
    );
    const closed = Promise.all(listening.map((s) => once(s, 'close')));
    for (const s of listening) s.close();
    return closed;
  }
  return { lab, ui, sockets };
}

/**
 * Closes every connection so the next run starts cold. HTTP/3 connections need the browser's
 * help: with `hold`, the HTTP/3 ports (Caddy's and their twins) stay closed until release()
 * (or heldMaxMs), and `held` lists their origins; a request the browser sends to each in the
 * meantime draws an ICMP port unreachable, which ends its QUIC connection at once
 * (client/lab/api.js). Without `hold` the ports reopen before this returns. `for`: the ids
 * the next run uses; Caddy is restarted only when one of them is behind it (a restart costs
 * about 100 ms, and runs on the Node servers do not need one).
 * @param {{ link: ReturnType<typeof createLink>, running: RunningServer[], fronts: ReturnType<typeof createFronts>,
 *   sockets: ReturnType<typeof createSocketWatch>, release: () => Promise<void> }} parts
 * @param {{ hold?: boolean, for?: string[] }} [o]
 */
async function reset({ link, running, fronts, sockets, release }, { hold = false, for: forIds } = {}) {
  // The link's side first: a browser must not send its next request into a dying relay.
  const linkClosed = link.closeAll();
  const needsFront = !forIds || running.some((r) => r.front && forIds.includes(r.id));
  const holding = needsFront ? fronts.hold() : Promise.resolve([]);
  const closed = await Promise.all(running.map(({ tracker }) => tracker.closeAll()));
  // Cold is cold: the TLS session tickets the browser holds stop opening a session, so its next
  // connection pays a full handshake, as a first visit does (Chromium keeps its session cache
  // across the reset: 4 of 19 "cold" connections resumed before; docs/throttling.md). Caddy,
  // restarted by the hold, gets new keys of its own.
  for (const r of running) if (!r.front) /** @type {import('node:tls').Server} */ (r.server).setTicketKeys(randomBytes(48));
  const held = await holding;
  // Between runs: the last runs' garbage goes now, not in the middle of the next one.
  sockets.collectIfGrown();
  // Held with no origin to close (no HTTP/3 server answered since the last hold): nothing to wait for.
  if (!hold || !held.length) await fronts.release();
  else fronts.releaseLater(release);
  /** @param {'closed'|'stillOpen'} key */
  const total = (key) => closed.reduce((sum, c) => sum + c[key], 0);
  // stillOpen: connections that had not gone resetWaitMs after they were told to.
  return {
    closed: total('closed'),
    stillOpen: total('stillOpen'),
    servers: running.map(({ id }, i) => ({ id, ...closed[i] })),
    link: linkClosed,
    held: hold ? held : [],
  };
}
