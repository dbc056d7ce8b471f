// Caddy as a child of the lab: the front of the Caddy family (common/setup/servers.js, front 'caddy').
// It terminates TLS and speaks HTTP/1.1, HTTP/2 or HTTP/3 to the browser, and forwards every
// request over the same cleartext hop to the lab (server/transports/upstream.js). Caddy never
// outlives the lab: stopped on every exit path, and (Linux) told by the kernel when the lab dies.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { caddyConfig } from './caddy-config.js';
import { makeOwnedDir } from '../owned-dirs.js';
import { caddyLimits } from '../config.js';
import { findBinary, startChild } from './child.js';

/** The one line that says how to add the family when Caddy is missing. */
export const installHint = 'HTTP/3 and the Caddy family need Caddy: apt-get install caddy (Debian), brew install caddy (macOS), or set CADDY_PATH';

/**
 * The caddy binary: $CADDY_PATH, else the first on PATH; null when there is none.
 * @throws {Error} when CADDY_PATH names a missing file (a typo must not pass for "not installed")
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string|null}
 */
export const findCaddy = (env = process.env) => findBinary('caddy', 'CADDY_PATH', env);

/**
 * `caddy version` as x.y.z (Debian's build prints "2.6.2", upstream's "v2.7.5 h1:…").
 * @param {string} bin
 */
export async function caddyVersion(bin) {
  const { stdout } = await promisify(execFile)(bin, ['version'], { timeout: 5_000 });
  return stdout.match(/v?(\d+\.\d+\.\d+)/)?.[1] ?? stdout.trim();
}

/**
 * Runs Caddy with the family's servers: started now, and again after each hold()/release().
 * @param {object} o
 * @param {string} o.bin the caddy binary
 * @param {Parameters<typeof caddyConfig>[0]} o.config what caddyConfig() takes
 * @param {(why: string) => void} o.onDied called once if Caddy exits when nobody asked it to
 * @returns {Promise<{ alive: boolean, hold(): Promise<void>, release(): Promise<void>, stop(): Promise<void> }>}
 * @throws {Error & { log?: string, portInUse?: number }} when Caddy exits or times out while starting
 */
export async function startCaddy({ bin, config, onDied }) {
  // A private directory for the configuration, and as HOME, so Caddy writes nothing of its own
  // into the person's home (it creates ~/.step even with the admin API off).
  const dir = makeOwnedDir('h2lab-caddy-');
  const configFile = path.join(dir, 'caddy.json');
  fs.writeFileSync(configFile, JSON.stringify(caddyConfig(config)), { mode: 0o600 });
  // Caddy 2.6 ends HTTP/3 connections without a CONNECTION_CLOSE (on exit, on a reload): the
  // browser learns only when its next datagram draws an ICMP port unreachable from the closed
  // port (server/lab.js has the page send one), or after about 7 s of silence (Chromium's
  // black-hole detection). Caddy binds every listener, the HTTP/3 UDP socket included, before it
  // serves, and TCP on its HTTP/3 port too: the TCP ports say it is up.
  return startChild({
    title: 'Caddy',
    command: [bin, 'run', '--config', configFile],
    env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir },
    listeners: config.servers.map((s) => ({ port: s.port, host: s.listenHost })),
    limits: caddyLimits,
    stopSignal: 'SIGTERM',
    portInUse,
    cleanUp: () => fs.rmSync(dir, { recursive: true, force: true }),
    onDied,
  });
}

/**
 * The Caddy front as the lab's fronts take one (fronts.js): found, asked its version, started in
 * front of its servers.
 * @type {import('./fronts.js').Front}
 */
export const caddyFront = {
  id: 'caddy',
  title: 'Caddy',
  offKey: 'noCaddy',
  installHint,
  find: findCaddy,
  version: caddyVersion,
  start: ({ bin, servers, certFiles, keyFile, limits, onDied }) =>
    startCaddy({ bin, config: { servers, certFiles, keyFile, limits, caddyLimits }, onDied }),
  heldMaxMs: caddyLimits.heldMaxMs,
};

/**
 * The port of Caddy's "bind: address already in use" line, if that is why it exited.
 * @param {string[]} lines
 */
function portInUse(lines) {
  const line = lines.find((l) => l.includes('address already in use'));
  return line ? Number(line.match(/:(\d+): bind/)?.[1]) || null : null;
}

