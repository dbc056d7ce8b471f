// What a process that launch.py started holds of the packet network, taken once, when this module
// loads, so that nothing the process starts afterwards inherits it: Node's spawn passes every
// descriptor not marked close-on-exec to every child, and the variables with the environment.
// - The H2LAB_PACKET_* variables leave process.env at once.
// - The browser side's network namespace is reopened here (Node opens every file close-on-exec)
//   and launch.py's inheritable descriptor closed; a browser enters it by this process's
//   /proc path (onBrowserSide), which only a process of the namespace's owner may use.
// - The two TUN descriptors cannot be reopened (opening /dev/net/tun again makes a new, unattached
//   device): they stay until network.js forks the emulator with them and closes them here
//   (releaseTunDescriptors). The lab forks it before it starts anything else (server/lab.js).
import fs from 'node:fs';
import { packetEnv } from './sides.js';


/** @param {NodeJS.ProcessEnv} [env] */
function take(env = process.env) {
  /** @param {string} name */
  const fd = (name) => (/^\d+$/.test(env[name] ?? '') ? Number(env[name]) : null);
  const found = { serverTun: fd(packetEnv.serverTunFd), browserTun: fd(packetEnv.browserTunFd), browserNetns: fd(packetEnv.browserNetnsFd) };
  for (const name of Object.values(packetEnv)) delete env[name];
  if (Object.values(found).includes(null)) return null;
  const fds = /** @type {Record<keyof typeof found, number>} none null: checked above */ (found);
  const netns = fs.openSync(`/proc/self/fd/${fds.browserNetns}`, 'r');
  fs.closeSync(fds.browserNetns);
  // /proc is the host's (launch.py mounts none of its own): /proc/self names this process by the
  // host's pid, which is what a path into /proc must use; process.pid is the namespace's.
  const hostPid = Number(fs.readlinkSync('/proc/self'));
  return { tun: { serverTun: fds.serverTun, browserTun: fds.browserTun }, browserNetnsPath: `/proc/${hostPid}/fd/${netns}` };
}

// launch.py --loopback sets the same variable to 'loopback': a namespace of the lab's own with no
// devices (runner/browsers/session.js runs Firefox's lab there). Read before take() clears it.
const loopbackOnly = process.env[packetEnv.inside] === 'loopback';
const taken = take();
let tun = taken?.tun ?? null;

/** Whether this process runs on the server side of a packet network (launch.py started it). */
export const insidePacketNetwork = () => taken !== null;

/** Whether this process runs on a loopback of its own (launch.py --loopback started it). */
export const insideOwnLoopback = () => loopbackOnly;

/** The TUN descriptors, for the one process that may hold them (the emulator); null once released. */
export const tunDescriptors = () => tun;

/** Closes this process's TUN descriptors, once the emulator holds its own copies. */
export function releaseTunDescriptors() {
  if (!tun) return;
  fs.closeSync(tun.serverTun);
  fs.closeSync(tun.browserTun);
  tun = null;
}

/** The browser side's network namespace as a path nsenter --net= takes. */
export function browserNetnsPath() {
  if (!taken) throw new Error('not inside the packet network: run under server/packet/launch.py');
  return taken.browserNetnsPath;
}

/**
 * `argv` as a command that runs on the browser side.
 * @param {string[]} argv
 */
export const onBrowserSide = (argv) => ['nsenter', `--net=${browserNetnsPath()}`, '--', ...argv];
