// Caddy as a child of the lab: the front of the Caddy family (common/setup/servers.js, front 'caddy').
// It terminates TLS and speaks HTTP/1.1, HTTP/2 or HTTP/3 to the browser, and forwards every
// request over the same cleartext hop to the lab (server/transports/upstream.js). Caddy never
// outlives the lab: stopped on every exit path, and (Linux) told by the kernel when the lab dies.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { caddyConfig } from './caddy-config.js';
import { makeOwnedDir } from '../owned-dirs.js';
import { caddyLimits } from '../config.js';

/** The one line that says how to add the family when Caddy is missing. */
export const installHint = 'HTTP/3 and the Caddy family need Caddy: apt-get install caddy (Debian), brew install caddy (macOS), or set CADDY_PATH';

/** @param {string} file */
const isFile = (file) => {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** @param {string} name @param {NodeJS.ProcessEnv} env */
const onPath = (name, env) => (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name)).find(isFile);

/**
 * The caddy binary: $CADDY_PATH, else the first on PATH; null when there is none.
 * @throws {Error} when CADDY_PATH names a missing file (a typo must not pass for "not installed")
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string|null}
 */
export function findCaddy(env = process.env) {
  if (env.CADDY_PATH) {
    if (!isFile(env.CADDY_PATH)) throw new Error(`CADDY_PATH points to a missing file: ${env.CADDY_PATH}`);
    return env.CADDY_PATH;
  }
  return onPath('caddy', env) ?? null;
}

/**
 * `caddy version` as x.y.z (Debian's build prints "2.6.2", upstream's "v2.7.5 h1:…").
 * @param {string} bin
 */
export async function caddyVersion(bin) {
  const { stdout } = await promisify(execFile)(bin, ['version'], { timeout: 5_000 });
  return stdout.match(/v?(\d+\.\d+\.\d+)/)?.[1] ?? stdout.trim();
}

/**
 * Resolves once something accepts TCP connections on host:port (Caddy binds every listener before it serves).
 * @param {number} port @param {string} host
 * @returns {Promise<boolean>}
 */
function accepts(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** @param {number} ms @returns {Promise<void>} */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
  // setpriv --pdeathsig: the kernel sends Caddy SIGTERM when the lab dies, even by SIGKILL;
  // without it (not Linux) the exit handlers below are all there is.
  const setpriv = onPath('setpriv', process.env);
  const command = setpriv ? [setpriv, '--pdeathsig', 'SIGTERM', bin] : [bin];
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir };
  /** @type {Array<[number, string]>} */
  const ports = config.servers.map((s) => [s.port, s.listenHost]);
  /** @type {string[]} */
  const tail = [];
  /** @type {import('node:child_process').ChildProcess|null} */
  let child = null;
  let expectExit = false; // a hold or a stop, not a death
  let stopped = false;
  /** @param {import('node:child_process').ChildProcess|null} c */
  const running = (c) => c !== null && c.exitCode === null && c.signalCode === null;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);
  const cleanUp = () => {
    process.off('exit', killOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  async function launch() {
    const current = spawn(command[0], [...command.slice(1), 'run', '--config', configFile], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child = current;
    current.stderr.setEncoding('utf8');
    current.stderr.on('data', (text) => {
      tail.push(...text.split('\n').filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - caddyLimits.logTailLines));
    });
    /** @param {string} why */
    const failure = (why) => Object.assign(new Error(why), { log: tail.join('\n'), portInUse: portInUse(tail) });
    const deadline = Date.now() + caddyLimits.startTimeoutMs;
    for (;;) {
      if (!running(current)) throw failure(`Caddy exited while starting (${current.exitCode ?? current.signalCode})`);
      // Caddy binds every listener, the HTTP/3 UDP socket included, before it serves.
      if ((await Promise.all(ports.map(([port, host]) => accepts(port, host)))).every(Boolean)) break;
      if (Date.now() > deadline) {
        current.kill('SIGKILL');
        throw failure(`Caddy did not accept connections within ${caddyLimits.startTimeoutMs} ms`);
      }
      await sleep(20);
    }
    current.once('exit', () => {
      if (expectExit || child !== current) return;
      cleanUp();
      onDied(`Caddy exited (${current.exitCode ?? current.signalCode})${tail.length ? `: ${tail.at(-1)}` : ''}`);
    });
  }

  async function halt() {
    const current = /** @type {import('node:child_process').ChildProcess} running() is false for null */ (child);
    if (!running(current)) return;
    const exited = once(current, 'exit');
    current.kill('SIGTERM');
    const timer = setTimeout(() => current.kill('SIGKILL'), caddyLimits.stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  try {
    await launch();
  } catch (err) {
    cleanUp();
    throw err;
  }
  return {
    get alive() {
      return !stopped && (expectExit || running(child));
    },
    /**
     * Stops Caddy until release(), every connection and port with it. Caddy 2.6 ends HTTP/3
     * connections without a CONNECTION_CLOSE (on exit, on a reload): the browser learns only when
     * its next datagram draws an ICMP port unreachable from the closed port (server/lab.js has
     * the page send one), or after about 7 s of silence (Chromium's black-hole detection). A new
     * process each time also means no QUIC or TLS session state carries over to the next run.
     */
    async hold() {
      expectExit = true;
      await halt();
    },
    /** Starts Caddy again; resolves once it accepts connections. */
    async release() {
      await launch();
      expectExit = false;
    },
    async stop() {
      if (stopped) return;
      stopped = expectExit = true;
      await halt();
      cleanUp();
    },
  };
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
  start: ({ bin, servers, certFile, keyFile, limits, onDied }) =>
    startCaddy({ bin, config: { servers, certFile, keyFile, limits, caddyLimits }, onDied }),
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

