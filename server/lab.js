// Starts and stops the whole lab: certificates, the test servers of common/servers.js and
// the UI/control server. Used by `npm start`, the tests and the runner alike.
import { once } from 'node:events';
import { ensureCerts } from './certs.js';
import { startIdleCollector } from './idle-gc.js';
import { defaultServerCaps } from '../common/server-caps.js';
import path from 'node:path';
import { caddyLimits, certsDir, defaults, h2Tls, memoryLimits, options as configOptions, transportLimits } from './config.js';
import { caddyVersion, findCaddy, installHint, startCaddy } from './fronts/caddy.js';
import { reservePort } from './fronts/ports.js';
import { createHandler } from './http/handler.js';
import { createLink } from './link/link.js';
import { createPageNetwork } from './devtools/page-network.js';
import { createHeldPorts } from './held-ports.js';
import { startPacketNetwork } from './packet/network.js';
import { createConnectionTracker, createStats } from './stats.js';
import { createUiServer } from './ui.js';
import { configKeyOf, servers } from '../common/servers.js';

const flagOf = (key) => `--${configOptions.find((o) => o.key === key).flag}`;

/** Each registry entry with the config keys of its ports. */
const entries = servers.map((s) => ({ ...s, portKey: configKeyOf(s.portFlag), linkPortKey: configKeyOf(s.linkPortFlag) }));

export class LabError extends Error {}

/** Options for a lab on free ports (tests, benchmarks, the runner), each server's chosen by the OS. */
export const freePorts = Object.freeze(Object.fromEntries(['uiPort', ...entries.flatMap((t) => [t.portKey, t.linkPortKey])].map((k) => [k, 0])));

const loopback = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);
// Where the link reaches a server that listens on every interface.
const reachable = (host) => ({ '0.0.0.0': '127.0.0.1', '::': '::1' })[host] ?? host;

const bracketed = (host) => (host.includes(':') ? `[${host}]` : host);

/** The host name browsers should use: the certificate always covers localhost. */
function publicHost(host) {
  return loopback.has(host) ? 'localhost' : bracketed(host);
}

/**
 * Where a front listens, and the host of an HTTP/3 origin: an address, not localhost, since a
 * browser tries QUIC on the first address a name resolves to (::1 here) and has no fallback.
 */
const literalHost = (host) => (host === 'localhost' ? '127.0.0.1' : reachable(host));

function portError(err, port, host, flag) {
  if (err.code === 'EADDRINUSE') return new LabError(`port ${port} on ${host} is in use: choose another with ${flag}`);
  if (err.code === 'EACCES') return new LabError(`no permission to listen on port ${port}: choose another with ${flag}`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return new LabError(`cannot listen on host ${host}: check --host`);
  return err;
}

async function listen(server, port, host, flag) {
  server.listen(port, host);
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  } catch (err) {
    throw portError(err, port, host, flag);
  }
  return server.address().port;
}

/** What the lab knows of the Caddy front before it starts: { bin, version } or { status, reason }. */
async function discoverCaddy(config) {
  if (config.noCaddy) return { status: 'off', reason: 'left out with --no-caddy' };
  let bin;
  try {
    bin = findCaddy();
  } catch (err) {
    throw new LabError(err.message);
  }
  if (!bin) return { status: 'missing', reason: installHint };
  try {
    return { bin, version: await caddyVersion(bin) };
  } catch (err) {
    return { status: 'failed', reason: `${bin} version failed (${err.message.split('\n')[0]}); ${installHint}` };
  }
}

/**
 * The lab's own origins: the UI, and Vite's dev server while `npm run dev` runs, under every name
 * the certificate covers. Their pages may read the test servers' responses (allowOrigin) and
 * reset them (isLabOrigin); the UI answers only requests addressed to one of those names
 * (isLabHost: no DNS rebinding). The dev server's port is the lab's only while the dev server
 * holds its announcement open (announceDevServer, server/dev-announce.js): 5173 is Vite's default
 * for every project, and another project's dev server must not reset or read the lab.
 */
function originPolicy({ host, uiPort, sans }) {
  const names = [...new Set(['localhost', '127.0.0.1', '[::1]', publicHost(host), ...sans.map(publicHost)])];
  const originsOn = (port) => names.map((n) => `http://${n}:${port}`);
  let allowed = new Set(originsOn(uiPort));
  const devPorts = createHeldPorts(() => (allowed = new Set([...originsOn(uiPort), ...devPorts.ports().flatMap(originsOn)])));
  const primary = `http://${publicHost(host)}:${uiPort}`;
  return {
    allowOrigin: (origin) => (allowed.has(origin) ? origin : primary),
    isLabOrigin: (origin) => allowed.has(origin),
    isLabHost: (hostHeader) => allowed.has(`http://${hostHeader}`),
    /** Trusts a dev server's port until the returned withdraw() is called. */
    announceDevServer: (port) => ({ origins: originsOn(port), withdraw: devPorts.hold(port) }),
  };
}

/**
 * @param {Partial<typeof defaults> & { transportLimits?: Partial<typeof transportLimits> }} options
 *   transportLimits overrides config.js's values (tests shorten timeouts with it)
 * @param {{ handlerFor?: Function, onNotice?: (line: string) => void }} hooks handlerFor(transportId,
 *   shared) replaces the shared handler (the server benchmark's bare servers); onNotice hears
 *   what happens to the lab while it runs (Caddy exiting)
 */
export async function startLab(options = {}, hooks = {}) {
  const config = { ...defaults, ...options };
  const transport = { ...transportLimits, ...options.transportLimits };
  const certs = await ensureCerts({ dir: certsDir, sans: config.sans });
  const tls = { key: certs.key, cert: certs.cert };
  const limits = { maxSizeMiB: config.maxSizeMiB, maxDelayMs: config.maxDelayMs, maxStreams: config.maxStreams, maxAssets: defaultServerCaps.maxAssets };
  const caddyFound = await discoverCaddy(config);
  // fronts.caddy: { status: 'running'|'off'|'missing'|'failed'|'exited', version?, reason? }
  const fronts = { caddy: { status: caddyFound.status ?? 'starting', version: caddyFound.version ?? null, reason: caddyFound.reason ?? null } };
  let caddy = null;

  // The fronts' ports, held from when they are chosen until the front starts (fronts/ports.js).
  const reservations = [];
  const releaseReservations = () => Promise.all(reservations.splice(0).map((r) => r.release()));
  const running = [];
  // Every TCP socket, including those that never finish a TLS handshake or never speak h2 (the
  // trackers count only real connections), so close() can end them all.
  const rawSockets = new Set();
  let openedSinceCheck = false;
  const remember = (socket) => {
    openedSinceCheck = true;
    rawSockets.add(socket);
    socket.once('close', () => {
      rawSockets.delete(socket);
      // The last connection gone ends a burst (an attack, a run): its garbage goes now, before
      // the next one, not in it. On the next turn, once the closing connection is unreachable.
      if (!rawSockets.size) setImmediate(() => rawSockets.size || collector.collectIfGrown());
    });
  };
  const link = createLink();
  const pageNetwork = createPageNetwork(); // presets applied through a Chrome's DevTools port
  let cutAtCheck = 0;
  const collector = startIdleCollector({
    quiet() {
      const quiet = !rawSockets.size && !openedSinceCheck;
      openedSinceCheck = false;
      return quiet;
    },
    storm() {
      const cut = lab.stats().reduce((n, s) => n + s.responsesCut, 0);
      const stormy = cut - cutAtCheck >= memoryLimits.stormCutResponses;
      cutAtCheck = cut;
      return stormy;
    },
  });
  // Hold, release and reset one at a time: two lab tabs, or a tab and the runner, may ask at
  // once, and a release that came during a hold must wait for Caddy to stop before starting it.
  let turn = Promise.resolve();
  const inTurn = (job) => (...args) => {
    const run = turn.then(() => job(...args));
    turn = run.catch(() => {});
    return run;
  };
  const software = (t) => (t.front ? `Caddy ${fronts.caddy.version} → Node ${process.version}` : `Node ${process.version}`);
  const lab = {
    config,
    certs,
    running,
    link,
    pageNetwork,
    fronts,
    describe: () => ({
      ui: lab.uiOrigin,
      servers: running.map(({ id, label, protocol, capabilities, origin, port, linkOrigin, linkPort, software, available, unavailableReason }) => ({
        id, label, origin, port, linkOrigin, linkPort, protocol, capabilities, software, available, unavailableReason,
      })),
      fronts,
      limits,
      certificate: { spkiSha256: certs.spkiSha256 },
      // Who can throttle this lab's runs: the page offers the packet network only where it runs.
      networks: ['devtools', 'link', ...(config.packet ? ['packet'] : [])],
    }),
    stats: () => running.map(({ id, tracker }) => ({ id, ...tracker.snapshot() })),
    /**
     * Closes every connection so the next run starts cold. HTTP/3 connections need the browser's
     * help: with `hold`, the HTTP/3 ports (Caddy's and their twins) stay closed until release()
     * (or heldMaxMs), and `held` lists their origins; a request the browser sends to each in the
     * meantime draws an ICMP port unreachable, which ends its QUIC connection at once
     * (client/lab/api.js). Without `hold` the ports reopen before this returns. `for`: the ids
     * the next run uses; Caddy is restarted only when one of them is behind it (a restart costs
     * about 100 ms, and runs on the Node servers do not need one).
     */
    reset: inTurn(async ({ hold = false, for: forIds } = {}) => {
      // The link's side first: a browser must not send its next request into a dying relay.
      const linkClosed = link.closeAll();
      const needsFront = !forIds || running.some((r) => r.front && forIds.includes(r.id));
      const fronts = needsFront ? holdFronts() : Promise.resolve([]);
      const closed = await Promise.all(running.map(({ tracker }) => tracker.closeAll()));
      const held = await fronts;
      // Between runs: the last runs' garbage goes now, not in the middle of the next one.
      collector.collectIfGrown();
      if (!hold) await releaseFronts();
      else if (held.length) releaseTimer = setTimeout(() => lab.release(), caddyLimits.heldMaxMs).unref();
      const total = (key) => closed.reduce((sum, c) => sum + c[key], 0);
      // stillOpen: connections that had not gone resetWaitMs after they were told to.
      return {
        closed: total('closed'),
        stillOpen: total('stillOpen'),
        servers: running.map(({ id }, i) => ({ id, ...closed[i] })),
        link: linkClosed,
        held: hold ? held : [],
      };
    }),
    /** Reopens what reset({ hold: true }) held; resolves once it accepts connections again. */
    release: inTurn(() => releaseFronts()),
    /** Stops at once (after a reset or release under way): every connection is destroyed, in-flight responses are cut off. */
    async close() {
      await turn; // Caddy is not stopped while one of them starts it
      const closed = stopListening();
      await lab.packet?.close();
      ui.closeAllConnections();
      await pageNetwork.close(); // no preset outlives the lab in a person's Chrome
      await caddy?.stop();
      caddy = null;
      await lab.reset();
      for (const socket of rawSockets) socket.destroy();
      await closed;
    },
    /**
     * Stops accepting, lets in-flight responses finish (HTTP/2 sessions get GOAWAY, idle
     * HTTP/1.1 sockets close, Caddy drains its own), and after graceMs destroys whatever is
     * left. Resolves { drained: true } when nothing had to be cut off.
     */
    async shutdown(graceMs = transport.shutdownGraceMs) {
      await turn;
      const closed = stopListening();
      ui.closeAllConnections();
      let timer;
      const drained = await Promise.race([
        Promise.all([caddy?.stop(), ...running.map(({ tracker }) => tracker.drainAll())]).then(() => true),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs, false))),
      ]);
      clearTimeout(timer);
      await lab.close();
      await closed;
      return { drained };
    },
  };

  function stopListening() {
    collector.stop();
    // A twin port held by a reset is closed too, so that nothing binds it again.
    clearTimeout(releaseTimer);
    const held = holding.splice(0);
    const servers = [ui, ...running.flatMap((r) => [r.server, r.relay])].filter((s) => s?.listening || held.includes(s));
    const closed = Promise.all(servers.map((s) => once(s, 'close')));
    for (const s of servers) s.close();
    return closed;
  }

  function caddyGone(why) {
    Object.assign(fronts.caddy, { status: 'exited', reason: why });
    for (const r of running) {
      if (r.front === 'caddy') Object.assign(r, { available: false, unavailableReason: why });
    }
    hooks.onNotice?.(`${why}; the Caddy servers are unavailable until the lab restarts`);
  }

  let releaseTimer = null;
  const holding = []; // the link's UDP relays held by reset(), until release()

  /** Takes Caddy's servers and the HTTP/3 twin ports down; answers the HTTP/3 origins held. */
  async function holdFronts() {
    const h3 = running.filter((r) => r.protocol === 'h3' && r.available);
    if (!caddy?.alive || !h3.length || holding.length) return [];
    holding.push(...h3.map((r) => r.relay));
    try {
      await Promise.all([caddy.hold(), ...h3.map((r) => r.relay.hold())]);
    } catch (err) {
      caddyGone(`Caddy failed a reset: ${err.message}`);
    }
    return h3.flatMap((r) => [r.origin, r.linkOrigin]);
  }

  /** Reopens what holdFronts() held. */
  async function releaseFronts() {
    clearTimeout(releaseTimer);
    const relays = holding.splice(0);
    if (!relays.length) return;
    try {
      await Promise.all([caddy?.alive && caddy.release(), ...relays.map((r) => r.release())]);
    } catch (err) {
      caddyGone(`the Caddy servers did not come back after a reset: ${err.message}`);
    }
  }

  const ui = createUiServer(lab);
  try {
    const uiPort = await listen(ui, config.uiPort, config.host, flagOf('uiPort'));
    lab.uiOrigin = `http://${publicHost(config.host)}:${uiPort}`;
    const { allowOrigin, isLabOrigin, isLabHost, announceDevServer } = originPolicy({ host: config.host, uiPort, sans: config.sans });
    Object.assign(lab, { isLabOrigin, isLabHost, announceDevServer });
    // options.packet: the lab runs on the server side of the packet network (server/packet/).
    if (config.packet) lab.packet = await startPacketNetwork({ uiPort, onExit: hooks.onNotice });
    for (const t of entries) {
      if (t.front && !caddyFound.bin) continue;
      const { createServer } = await import(`./transports/${t.transport}.js`);
      const stats = createStats();
      const tracker = createConnectionTracker(stats, transport.resetWaitMs);
      const shared = createHandler({ serverId: t.id, limits, stats, allowOrigin });
      const handler = hooks.handlerFor?.(t.id, shared) ?? shared;
      const isH2 = t.protocol === 'h2';
      const server = createServer({ tls: isH2 ? { ...tls, ...h2Tls } : tls, handler, tracker, maxStreams: config.maxStreams, limits: transport });
      if (isH2) server.on('secureConnection', (socket) => socket.disableRenegotiation());
      server.on('tlsClientError', () => {}); // scanners and aborted handshakes are not our errors
      server.on('connection', remember);
      const entry = { id: t.id, label: t.label, protocol: t.protocol, capabilities: t.capabilities, front: t.front, software: software(t), available: true, server, tracker };
      running.push(entry);
      const flag = flagOf(t.portKey);
      if (t.front) {
        // The front owns the public port; the lab's server is its cleartext upstream on loopback.
        entry.upstreamPort = await listen(server, 0, '127.0.0.1', flag);
        // On the packet network's server side the browser comes from the other namespace.
        entry.listenHost = config.packet ? config.host : literalHost(config.host);
        const reserved = await reservePort(config[t.portKey], entry.listenHost, { udp: t.protocol === 'h3' }).catch((err) => Promise.reject(portError(err, config[t.portKey], config.host, flag)));
        reservations.push(reserved);
        entry.port = reserved.port;
      } else {
        entry.port = await listen(server, config[t.portKey], config.host, flag);
      }
      const originHost = t.protocol === 'h3' ? bracketed(literalHost(config.host)) : publicHost(config.host);
      entry.origin = `https://${originHost}:${entry.port}`;
      entry.relay = link.relayTo(entry.port, entry.listenHost ?? reachable(config.host), { udp: t.protocol === 'h3' });
      entry.linkPort = await listen(entry.relay, config[t.linkPortKey], config.host, flagOf(t.linkPortKey));
      entry.linkOrigin = `https://${originHost}:${entry.linkPort}`;
    }
    const fronted = running.filter((r) => r.front === 'caddy');
    await releaseReservations(); // the front binds them now
    if (fronted.length) caddy = await launchCaddy(fronted);
  } catch (err) {
    await releaseReservations();
    await lab.close().catch(() => {});
    throw err;
  }
  return lab;

  async function launchCaddy(fronted) {
    const config = {
      servers: fronted,
      certFile: path.join(certsDir, 'server.crt'),
      keyFile: path.join(certsDir, 'server.key'),
      limits: transport,
      caddyLimits,
    };
    try {
      const started = await startCaddy({ bin: caddyFound.bin, config, caddyLimits, onDied: caddyGone });
      fronts.caddy.status = 'running';
      return started;
    } catch (err) {
      const taken = fronted.find((r) => r.port === err.portInUse);
      if (taken) throw new LabError(`port ${taken.port} on ${taken.listenHost} is in use: choose another with ${flagOf(entries.find((t) => t.id === taken.id).portKey)}`);
      // Anything else leaves the lab running without the family, and says why.
      caddyGone(`Caddy did not start: ${err.message}${err.log ? ` (${err.log.split('\n').at(-1)})` : ''}`);
      fronts.caddy.status = 'failed';
      return null;
    }
  }
}
