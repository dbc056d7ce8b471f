// Node's way into the packet network: whether it can run here (one line naming what is missing
// and the fix, for the runner's exit 2 and the tests' skip reason), and a command run again
// inside it under launch.py, with the same arguments, when it is not inside already. The same for
// a loopback of its own (launch.py --loopback: the namespaces without the devices).
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { launcherSides } from './sides.js';

const launchPy = fileURLToPath(new URL('./launch.py', import.meta.url));

/**
 * python3's arguments to run launch.py with `rest` (['--probe'] or ['--', command, …]): its sides come from sides.js.
 * @param {string[]} rest
 */
export const launchPyArgs = (rest) => [launchPy, launcherSides(), ...rest];
/** @type {Map<boolean, string|null>} */
const missing = new Map(); // each probe's answer by `loopback`, once per process: it makes namespaces and devices to find out

/**
 * null when launch.py can run here, else what is missing and the fix, in one line.
 * @param {boolean} loopback  a loopback of its own (launch.py --loopback), else the packet network
 * @returns {string|null}
 */
function probe(loopback) {
  const what = loopback ? 'a loopback of its own' : 'the packet network';
  if (process.platform !== 'linux') return `${what} needs Linux (network namespaces${loopback ? '' : ' and TUN devices'}), not ${process.platform}`;
  const done = spawnSync('python3', launchPyArgs([...(loopback ? ['--loopback'] : []), '--probe']), { encoding: 'utf8' });
  if (done.error) return `${what} needs python3 (its launcher uses only the standard library): apt-get install -y python3`;
  return done.status === 0 ? null : (done.stderr.trim().split('\n').at(-1) || `${launchPy} --probe exited ${done.status}`).replace(/^h2lab packet network: /, '');
}

/** @param {boolean} loopback */
function probed(loopback) {
  if (!missing.has(loopback)) missing.set(loopback, probe(loopback));
  return missing.get(loopback) ?? null;
}

/**
 * null when the packet network can run here, else what is missing and the fix, in one line.
 * @returns {string|null}
 */
export const packetNetworkMissing = () => probed(false);

/**
 * null when a command can run on a loopback of its own here (user and network namespaces), else
 * what is missing and the fix, in one line.
 * @returns {string|null}
 */
export const ownLoopbackMissing = () => probed(true);

export { insideOwnLoopback, insidePacketNetwork } from './inside.js';

/**
 * Runs this process's command again inside the packet network and resolves its exit code.
 * launch.py gets its own process group, so a signal reaches it from here alone, whether a
 * terminal's Ctrl-C signalled this whole group or someone signalled this process alone; this one
 * then waits for the command to finish its own shutdown. npm passes the terminal's Ctrl-C on too:
 * a second of the same signal within `echoMs` is that copy and is not passed on; a later one is.
 * @param {{ loopback?: boolean, argv?: string[], execArgv?: string[] }} [o]  loopback: on a loopback of its own, not the packet network
 * @returns {Promise<number>}
 */
export function rerunInside({ loopback = false, argv = process.argv, execArgv = process.execArgv } = {}) {
  const command = [...(loopback ? ['--loopback'] : []), '--', argv[0], ...execArgv, ...argv.slice(1)];
  const child = spawn('python3', launchPyArgs(command), { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  /** @type {Map<NodeJS.Signals, number>} */
  const lastPassedOn = new Map();
  /** @param {NodeJS.Signals} signal */
  const forward = (signal) => {
    if (Date.now() - (lastPassedOn.get(signal) ?? -Infinity) < echoMs) return;
    lastPassedOn.set(signal, Date.now());
    child.kill(signal);
  };
  /** @type {NodeJS.Signals[]} */
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  const stopForwarding = () => signals.forEach((s) => process.off(s, forward));
  return new Promise((resolve, reject) => {
    child.on('error', (err) => {
      stopForwarding();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      stopForwarding();
      resolve(code ?? 128 + os.constants.signals[/** @type {NodeJS.Signals} without a code there is a signal */ (signal)]);
    });
  });
}

// A copy of one Ctrl-C (the terminal's and npm's) arrives within milliseconds; a person's second
// Ctrl-C comes later.
const echoMs = 500;
