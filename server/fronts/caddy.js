// Caddy as a child of the lab: the front of the Caddy family (common/servers.js, front 'caddy').
// It terminates TLS and speaks HTTP/1.1, HTTP/2 or HTTP/3 to the browser, and forwards every
// request over the same cleartext hop to the lab (server/transports/upstream.js). Caddy never
// outlives the lab: stopped on every exit path, and (Linux) told by the kernel when the lab dies.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** The one line that says how to add the family when Caddy is missing. */
export const installHint = 'HTTP/3 and the Caddy family need Caddy: apt-get install caddy (Debian), brew install caddy (macOS), or set CADDY_PATH';

const isFile = (file) => {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

const onPath = (name, env) => (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name)).find(isFile);

/**
 * The caddy binary: $CADDY_PATH, else the first on PATH; null when there is none.
 * @throws {Error} when CADDY_PATH names a missing file (a typo must not pass for "not installed")
 */
export function findCaddy(env = process.env) {
  if (env.CADDY_PATH) {
    if (!isFile(env.CADDY_PATH)) throw new Error(`CADDY_PATH points to a missing file: ${env.CADDY_PATH}`);
    return env.CADDY_PATH;
  }
  return onPath('caddy', env) ?? null;
}

/** `caddy version` as x.y.z (Debian's build prints "2.6.2", upstream's "v2.7.5 h1:…"). */
export async function caddyVersion(bin) {
  const { stdout } = await promisify(execFile)(bin, ['version'], { timeout: 5_000 });
  return stdout.match(/v?(\d+\.\d+\.\d+)/)?.[1] ?? stdout.trim();
}

/** Resolves once something accepts TCP connections on host:port (Caddy binds every listener before it serves). */
function accepts(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts Caddy with the family's servers and waits until it accepts on their ports.
 * @param {object} o
 * @param {string} o.bin the caddy binary
 * @param {object} o.config Caddy's configuration (caddyConfig())
 * @param {[number, string][]} o.ports [port, host] of every server: ready when all accept TCP
 * @param {{ startTimeoutMs, stopTimeoutMs, logTailLines }} o.caddyLimits
 * @param {(why: string) => void} o.onDied called once if Caddy exits when nobody asked it to
 * @returns {Promise<{ pid: number, restart(): Promise<void>, stop(): Promise<void> }>}
 * @throws {Error & { log?: string, portInUse?: number }} when Caddy exits or times out while starting
 */
export async function startCaddy({ bin, config, ports, caddyLimits, onDied }) {
  // A private directory for the configuration, and as HOME, so Caddy writes nothing of its own
  // into the person's home (it creates ~/.step even with the admin API off).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-caddy-'));
  const configFile = path.join(dir, 'caddy.json');
  fs.writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
  // setpriv --pdeathsig: the kernel sends Caddy SIGTERM when the lab dies, even by SIGKILL;
  // without it (not Linux) the exit handlers below are all there is.
  const setpriv = onPath('setpriv', process.env);
  const command = setpriv ? [setpriv, '--pdeathsig', 'SIGTERM', bin] : [bin];
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir };

  let child = null;
  let stopping = false;
  let dead = false; // exited on its own
  let stopped = false;
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  async function launch() {
    const tail = [];
    child = spawn(command[0], [...command.slice(1), 'run', '--config', configFile], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    const current = child;
    current.stderr.setEncoding('utf8');
    current.stderr.on('data', (text) => {
      tail.push(...text.split('\n').filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - caddyLimits.logTailLines));
    });
    const exited = once(current, 'exit');
    const failure = (why) => Object.assign(new Error(why), { log: tail.join('\n'), portInUse: portInUse(tail) });
    const deadline = Date.now() + caddyLimits.startTimeoutMs;
    for (;;) {
      if (current.exitCode !== null || current.signalCode !== null) throw failure(`Caddy exited while starting (${current.exitCode ?? current.signalCode})`);
      if ((await Promise.all(ports.map(([port, host]) => accepts(port, host)))).every(Boolean)) break;
      if (Date.now() > deadline) {
        current.kill('SIGKILL');
        throw failure(`Caddy did not accept connections within ${caddyLimits.startTimeoutMs} ms`);
      }
      await sleep(20);
    }
    exited.then(() => {
      if (stopping || child !== current || dead) return;
      dead = true;
      onDied(`Caddy exited (${current.exitCode ?? current.signalCode})${tail.length ? `: ${tail.at(-1)}` : ''}`);
    });
  }

  async function halt() {
    const current = child;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    const exited = once(current, 'exit');
    current.kill('SIGTERM');
    const timer = setTimeout(() => current.kill('SIGKILL'), caddyLimits.stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  const cleanUp = () => {
    process.off('exit', killOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await launch();
  } catch (err) {
    cleanUp();
    throw err;
  }
  return {
    get pid() {
      return child.pid;
    },
    get alive() {
      return !dead && !stopped;
    },
    /**
     * Stops and starts Caddy: every browser connection to it ends (an HTTP/3 connection with a
     * CONNECTION_CLOSE, which Caddy has no other way to send on demand), and new ones start cold.
     */
    async restart() {
      stopping = true;
      try {
        await halt();
        await launch();
        dead = false;
      } finally {
        stopping = false;
      }
    },
    async stop() {
      if (stopped) return;
      stopped = stopping = true;
      await halt();
      cleanUp();
    },
  };
}

/** The port of Caddy's "bind: address already in use" line, if that is why it exited. */
function portInUse(lines) {
  const line = lines.find((l) => l.includes('address already in use'));
  return line ? Number(line.match(/:(\d+): bind/)?.[1]) || null : null;
}

