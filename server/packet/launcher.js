// Node's way into the packet network: whether it can run here (one line naming what is missing
// and the fix, for the runner's exit 2 and the tests' skip reason), and a command run again
// inside it under launch.py, with the same arguments, when it is not inside already.
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
/** @type {string|null|undefined} */
let missing; // the probe's answer, once per process: it makes namespaces and devices to find out

/**
 * null when the packet network can run here, else what is missing and the fix, in one line.
 * @returns {string|null}
 */
export function packetNetworkMissing() {
  if (missing !== undefined) return missing;
  if (process.platform !== 'linux') return (missing = `the packet network needs Linux (network namespaces and TUN devices), not ${process.platform}`);
  const probe = spawnSync('python3', launchPyArgs(['--probe']), { encoding: 'utf8' });
  if (probe.error) return (missing = 'the packet network needs python3 (its launcher uses only the standard library): apt-get install -y python3');
  missing = probe.status === 0 ? null : (probe.stderr.trim().split('\n').at(-1) || `${launchPy} --probe exited ${probe.status}`).replace(/^h2lab packet network: /, '');
  return missing;
}

export { insidePacketNetwork } from './inside.js';

/**
 * Runs this process's command again inside the packet network and resolves its exit code.
 * launch.py gets its own process group, so a signal reaches it from here alone, whether a
 * terminal's Ctrl-C signalled this whole group or someone signalled this process alone; this one
 * then waits for the command to finish its own shutdown. npm passes the terminal's Ctrl-C on too:
 * a second of the same signal within `echoMs` is that copy and is not passed on; a later one is.
 * @param {string[]} [argv] @param {string[]} [execArgv]
 * @returns {Promise<number>}
 */
export function rerunInside(argv = process.argv, execArgv = process.execArgv) {
  const child = spawn('python3', launchPyArgs(['--', argv[0], ...execArgv, ...argv.slice(1)]), { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
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
