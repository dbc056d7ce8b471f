// The lab's side of the packet network: forks the emulator (emulator.js) with the TUN devices
// the launcher (launch.py) left to this process, and talks to it over IPC: the conditions in
// force, the counters, and the emulator's end, which the lab reports (a run through a dead
// emulator would wait for packets that never come).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { packetLimits } from '../config.js';
import { networkPreset, publicNetworkConditions } from './conditions.js';

const emulatorPath = fileURLToPath(new URL('./emulator.js', import.meta.url));

/** The descriptors launch.py passes down, or null outside the packet network. */
export function packetDescriptors(env = process.env) {
  const fd = (name) => (/^\d+$/.test(env[name] ?? '') ? Number(env[name]) : null);
  const found = { serverTun: fd('H2LAB_PACKET_SERVER_TUN_FD'), browserTun: fd('H2LAB_PACKET_BROWSER_TUN_FD'), browserNetns: fd('H2LAB_PACKET_BROWSER_NETNS_FD') };
  return Object.values(found).includes(null) ? null : found;
}

function withTimeout(promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the packet emulator did not answer ${what} within ${packetLimits.answerTimeoutMs} ms`)), packetLimits.answerTimeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Starts the emulator at no throttling.
 * @param {{ uiPort: number, onExit?: (why: string) => void }} o onExit: the emulator ended while the lab ran
 * @returns {Promise<{ get(), set(conditions): Promise<object>, counters(): Promise<object>, cpuMs(): Promise<number>,
 *   exited: Promise<string>, close(): Promise<void> }>}
 */
export async function startPacketNetwork({ uiPort, onExit = () => {} }) {
  const fds = packetDescriptors();
  if (!fds) throw new Error('the packet network runs only under server/packet/launch.py (no TUN descriptors in the environment)');
  const child = fork(emulatorPath, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc', fds.serverTun, fds.browserTun] });
  let closing = false;
  let nextId = 1;
  const pending = new Map();
  const exited = once(child, 'exit').then(([code, signal]) => {
    const why = `the packet network's emulator exited (${signal ? `signal ${signal}` : `code ${code}`})`;
    for (const { reject } of pending.values()) reject(new Error(why));
    pending.clear();
    if (!closing) onExit(why);
    return why;
  });
  /** @typedef {{ id?: number, type?: string, ok?: boolean, error?: string, [answer: string]: any }} EmulatorMessage */
  child.on('message', (/** @type {EmulatorMessage} */ m) => {
    const waiting = pending.get(m.id);
    if (!waiting) return;
    pending.delete(m.id);
    if (m.ok) waiting.resolve(m);
    else waiting.reject(new Error(m.error));
  });
  const ask = (type, extra = {}) =>
    withTimeout(
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        child.send({ id, type, ...extra });
      }),
      type,
    );
  const ready = new Promise((resolve) => child.on('message', (/** @type {EmulatorMessage} */ m) => m.type === 'ready' && resolve()));
  try {
    await withTimeout(Promise.race([ready, exited.then((why) => Promise.reject(new Error(why)))]), 'at start');
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  let conditions = networkPreset('no-throttling');
  await ask('set', { conditions, uiPort });
  return {
    get: () => publicNetworkConditions(conditions),
    /** For the next packets of every connection, open or new. */
    async set(next) {
      await ask('set', { conditions: next });
      conditions = next;
      return publicNetworkConditions(conditions);
    },
    /** { down, up }, each { delivered, deliveredBytes, droppedByLoss, droppedByQueue, unshaped } (packets; bytes of IP packets) since the start. */
    counters: async () => {
      const { down, up } = await ask('counters');
      return { down, up };
    },
    /** The emulator's CPU time since it started, in ms (its pid is the namespace's, not /proc's). */
    cpuMs: async () => {
      const { user, system } = (await ask('cpu')).usage;
      return (user + system) / 1000;
    },
    exited,
    async close() {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
