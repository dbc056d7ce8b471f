// A front's process as a child of the lab (fronts.js): started and watched until its ports take
// connections, stopped for a hold and started again on release (a new process: no TLS or QUIC
// session state carries over to the next run), and never outliving the lab: stopped on every
// exit path and (Linux, setpriv --pdeathsig) told by the kernel when the lab dies, even by SIGKILL.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** @param {string} file */
export const isFile = (file) => {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** @param {string} name @param {NodeJS.ProcessEnv} env */
export const onPath = (name, env) => (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name)).find(isFile);

/**
 * A front's binary: the path `envVar` names, else the first `name` on PATH (or in `extraDirs`);
 * null when there is none.
 * @throws {Error} when the variable names a missing file (a typo must not pass for "not installed")
 * @param {string} name @param {string} envVar @param {NodeJS.ProcessEnv} env @param {string[]} [extraDirs]
 */
export function findBinary(name, envVar, env, extraDirs = []) {
  const given = env[envVar];
  if (given) {
    if (!isFile(given)) throw new Error(`${envVar} points to a missing file: ${given}`);
    return given;
  }
  return onPath(name, { PATH: [env.PATH ?? '', ...extraDirs].join(path.delimiter) }) ?? null;
}

/**
 * Whether a UDP socket is bound to `port`, from the kernel's tables (Linux): a probe that bound
 * the port itself could take it from the front in the instant it binds. Elsewhere: assumed bound
 * once the front's TCP listeners accept.
 * @param {number} port
 */
function udpBound(port) {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')} `;
  const tables = ['/proc/net/udp', '/proc/net/udp6'].filter(isFile);
  return !tables.length || tables.some((t) => fs.readFileSync(t, 'utf8').split('\n').some((line) => line.trim().split(/\s+/)[1]?.endsWith(hex.trim())));
}

/**
 * Whether host:port is taken now: TCP by something accepting connections, UDP by a bound socket
 * (a front binds every listener before it serves; the lab's own reservation is gone by then).
 * @param {{ port: number, host: string, udp?: boolean }} listener
 * @returns {Promise<boolean>}
 */
function listening({ port, host, udp = false }) {
  if (udp) return Promise.resolve(udpBound(port));
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
 * @typedef {object} ChildSpec
 * @property {string} title  in messages ("Caddy exited …")
 * @property {string[]} command  the binary and its arguments
 * @property {NodeJS.ProcessEnv} env
 * @property {Array<{ port: number, host: string, udp?: boolean }>} listeners  every one bound once it serves
 * @property {{ startTimeoutMs: number, stopTimeoutMs: number, logTailLines: number }} limits
 * @property {NodeJS.Signals} stopSignal  what asks it to end (then SIGKILL after stopTimeoutMs)
 * @property {(lines: string[]) => number|null} portInUse  the port its log says was taken, if that is why it exited
 * @property {() => void} cleanUp  after its last stop, or a death nobody asked for
 * @property {(why: string) => void} onDied  called once if it exits when nobody asked it to
 */

/**
 * Runs the child: started now, and again after each hold()/release().
 * @param {ChildSpec} spec
 * @returns {Promise<import('./fronts.js').RunningFront>}
 * @throws {Error & { log?: string, portInUse?: number|null }} when it exits or times out while starting
 */
export async function startChild({ title, command, env, listeners, limits, stopSignal, portInUse, cleanUp, onDied }) {
  const setpriv = onPath('setpriv', process.env);
  const argv = setpriv ? [setpriv, '--pdeathsig', 'SIGTERM', ...command] : command;
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
  const finish = () => {
    process.off('exit', killOnExit);
    cleanUp();
  };

  async function launch() {
    const current = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child = current;
    current.stderr?.setEncoding('utf8');
    current.stderr?.on('data', (text) => {
      tail.push(...String(text).split('\n').filter(Boolean));
      tail.splice(0, Math.max(0, tail.length - limits.logTailLines));
    });
    /** @param {string} why */
    const failure = (why) => Object.assign(new Error(why), { log: tail.join('\n'), portInUse: portInUse(tail) });
    const deadline = Date.now() + limits.startTimeoutMs;
    for (;;) {
      if (!running(current)) throw failure(`${title} exited while starting (${current.exitCode ?? current.signalCode})`);
      if ((await Promise.all(listeners.map(listening))).every(Boolean)) break;
      if (Date.now() > deadline) {
        current.kill('SIGKILL');
        throw failure(`${title} did not take connections within ${limits.startTimeoutMs} ms`);
      }
      await sleep(20);
    }
    current.once('exit', () => {
      if (expectExit || child !== current) return;
      finish();
      onDied(`${title} exited (${current.exitCode ?? current.signalCode})${tail.length ? `: ${tail.at(-1)}` : ''}`);
    });
  }

  async function halt() {
    const current = /** @type {import('node:child_process').ChildProcess} running() is false for null */ (child);
    if (!running(current)) return;
    const exited = once(current, 'exit');
    current.kill(stopSignal);
    const timer = setTimeout(() => current.kill('SIGKILL'), limits.stopTimeoutMs);
    await exited;
    clearTimeout(timer);
  }

  try {
    await launch();
  } catch (err) {
    finish();
    throw err;
  }
  return {
    get alive() {
      return !stopped && (expectExit || running(child));
    },
    async hold() {
      expectExit = true;
      await halt();
    },
    async release() {
      await launch();
      expectExit = false;
    },
    async stop() {
      if (stopped) return;
      stopped = expectExit = true;
      await halt();
      finish();
    },
  };
}
