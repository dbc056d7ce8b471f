// The lab's side of the packet network: forks the emulator (emulator.js) with the TUN devices
// the launcher (launch.py) left to this process, and talks to it over IPC: the conditions in
// force, the counters, and the emulator's end. An emulator that ends while the lab runs is a state
// of the lab, not its end: every later question fails with the exit it had (the control API's
// 503), and a run through it fails with that reason.
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { packetLimits } from '../config.js';
import { NetworkFailed } from '../network-failed.js';
import { presetConditions, publicConditions } from '../path/conditions.js';
import { onBrowserSide, releaseTunDescriptors, tunDescriptors } from './inside.js';
import { emulatorTunFds, tunDevices } from './sides.js';
import { routeUiOverLink } from './ui-link.js';

const emulatorPath = fileURLToPath(new URL('./emulator.js', import.meta.url));

/**
 * The emulator is gone, or failed to answer: what the control API says with a 503.
 * @param {string} message
 */
const failed = (message) => new NetworkFailed('packet', message);

/**
 * Packets each side's kernel dropped at its TUN device's queue before the emulator read them
 * (the device's transmit drops in /proc/net/dev, whose view is the reading process's namespace):
 * `down` the server side's h2lab-s, `up` the browser side's h2lab-b.
 */
async function deviceDrops() {
  const [name, ...argv] = onBrowserSide(['cat', '/proc/net/dev']);
  const [server, browser] = await Promise.all([readFile('/proc/self/net/dev', 'utf8'), promisify(execFile)(name, argv).then((r) => r.stdout)]).catch((err) =>
    Promise.reject(failed(`the TUN devices' counters cannot be read: ${err.message}`)),
  );
  /** @param {string} table @param {string} device */
  const txDropped = (table, device) => {
    const line = table.split('\n').find((l) => l.trim().startsWith(`${device}:`));
    // face: rx bytes packets errs drop fifo frame compressed multicast, tx bytes packets errs drop …
    return line ? Number(line.split(':')[1].trim().split(/\s+/)[11]) : 0;
  };
  return { down: txDropped(server, tunDevices.server), up: txDropped(browser, tunDevices.browser) };
}

/** @typedef {ReturnType<typeof import('../path/packets.js').createPacketDirection>['counters']} DirectionCounters  the emulator's, per direction */
/** @typedef {import('./emulator.js').Answers} Answers */
/** @typedef {import('../path/conditions.js').PathConditions} PathConditions */
/** @typedef {ReturnType<typeof publicConditions>} PublicConditions */
/** @typedef {{ id?: number, type?: string, ok?: boolean, error?: string }} EmulatorMessage  an answer (with its Answers fields) or { type: 'ready' } */

/**
 * Forks the emulator with the TUN devices as its descriptors (sides.js), and closes this process's
 * own copies.
 */
function forkEmulator() {
  const fds = tunDescriptors();
  if (!fds) throw new Error('the packet network runs only under server/packet/launch.py, once per process (no TUN descriptors here)');
  /** @type {Array<import('node:child_process').IOType|'ipc'|number>} */
  const stdio = ['ignore', 'inherit', 'inherit', 'ipc'];
  stdio[emulatorTunFds.server] = fds.serverTun;
  stdio[emulatorTunFds.browser] = fds.browserTun;
  // 'advanced': conditions carry a trace's slots as a Float64Array, which JSON would turn into an object.
  const child = fork(emulatorPath, [], { stdio, serialization: 'advanced' });
  releaseTunDescriptors(); // the emulator has its own copies now
  return child;
}

/**
 * The lab's questions to the emulator over IPC, each answered, refused or failed with why (the
 * emulator's exit, a message that could not be sent, no answer in time), and the emulator's end.
 * @param {import('node:child_process').ChildProcess} child
 * @param {(why: string) => void} onExit  the emulator ended before close()
 */
function emulatorChannel(child, onExit) {
  let closing = false;
  /** @type {string|null} */
  let failure = null;
  let nextId = 1;
  /** @type {Map<number|undefined, { resolve: (m: EmulatorMessage) => void, reject: (err: Error) => void }>} */
  const pending = new Map();
  /** @param {number|undefined} id */
  const settle = (id) => {
    const waiting = pending.get(id);
    pending.delete(id);
    return waiting;
  };
  // A message that cannot be sent (the channel closed under it) is answered by its callback.
  child.on('error', () => {});
  const exited = once(child, 'exit').then(([code, signal]) => {
    failure = `the packet network's emulator exited (${signal ? `signal ${signal}` : `code ${code}`})`;
    for (const id of [...pending.keys()]) settle(id)?.reject(failed(failure));
    if (!closing) onExit(failure);
    return failure;
  });
  child.on('message', (/** @type {EmulatorMessage} */ m) => {
    const waiting = settle(m.id);
    if (m.ok) waiting?.resolve(m);
    else waiting?.reject(failed(/** @type {string} a refusal says why */ (m.error)));
  });
  /**
   * @template {keyof Answers} T
   * @param {T} type @param {object} [extra]
   * @returns {Promise<Answers[T]>}  with the answer's id and ok
   */
  const ask = (type, extra = {}) =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failed(failure));
      const id = nextId++;
      const timer = setTimeout(() => settle(id)?.reject(failed(`the packet emulator did not answer ${type} within ${packetLimits.answerTimeoutMs} ms`)), packetLimits.answerTimeoutMs);
      /** @template V @param {(value: V) => void} fn @returns {(value: V) => void} */
      const done = (fn) => (value) => {
        clearTimeout(timer);
        fn(value);
      };
      pending.set(id, { resolve: /** @type {(m: EmulatorMessage) => void} the answer to `type` */ (done(resolve)), reject: done(reject) });
      if (!child.connected) return settle(id)?.reject(failed(failure ?? "the packet network's emulator closed its channel"));
      child.send({ id, type, ...extra }, (err) => err && settle(id)?.reject(failed(`the packet emulator could not be asked ${type}: ${err.message}`)));
    });
  return {
    ask,
    exited,
    /** @returns {string|null} */
    failure: () => failure,
    async close() {
      closing = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Resolves once the emulator says it is ready; an emulator that exits first or is not ready in
 * time is killed, and this rejects with why.
 * @param {import('node:child_process').ChildProcess} child @param {Promise<string>} exited  why it exited
 */
async function emulatorReady(child, exited) {
  /** @type {Promise<void>} */
  const ready = new Promise((resolve) => child.on('message', (/** @type {EmulatorMessage} */ m) => m.type === 'ready' && resolve()));
  let timer;
  try {
    await Promise.race([
      ready,
      exited.then((why) => Promise.reject(new Error(why))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the packet emulator did not start within ${packetLimits.answerTimeoutMs} ms`)), packetLimits.answerTimeoutMs))),
    ]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the emulator at no throttling. The lab calls this before it starts anything else, so that
 * no other child of it exists while this process still holds the TUN descriptors.
 * @param {{ onExit?: (why: string) => void }} [o] onExit: the emulator ended while the lab ran
 * @returns {Promise<{ id: 'packet', get(): PublicConditions, set(conditions: PathConditions): Promise<PublicConditions>, seedLoss(seed: number): Promise<void>, exemptUiPort(port: number): Promise<void>, relayTo: null,
 *   counters(): Promise<Record<'down'|'up', DirectionCounters & { droppedByDevice: number }>>, cpuMs(): Promise<number>,
 *   capture: { start(stem: string, whole: boolean): Promise<void>, stop(): Promise<import('./capture.js').CaptureSummary> },
 *   failure(): string|null, exited: Promise<string>, close(): Promise<void> }>}
 */
export async function startPacketNetwork({ onExit = () => {} } = {}) {
  const child = forkEmulator();
  const emulator = emulatorChannel(child, onExit);
  const { ask } = emulator;
  await emulatorReady(child, emulator.exited);
  let conditions = presetConditions('no-throttling');
  await ask('set', { conditions });
  return {
    id: /** @type {const} */ ('packet'),
    /** The conditions in force; once the emulator is gone there are none, and this throws why, as every other question does. */
    get() {
      const failure = emulator.failure();
      if (failure) throw failed(failure);
      return publicConditions(conditions);
    },
    /**
     * For the next packets of every connection, open or new, and those queued.
     * @param {import('../path/conditions.js').PathConditions} next
     */
    async set(next) {
      await ask('set', { conditions: next });
      conditions = next;
      return publicConditions(conditions);
    },
    /**
     * Restarts both directions' loss from a run's seed (common/setup/seeds.js): the same seed and the
     * same packets after it lose the same packets.
     * @param {number} seed
     */
    seedLoss: async (seed) => {
      await ask('seed', { seed });
    },
    /**
     * { down, up }, each { delivered, deliveredBytes, droppedByLoss, droppedByQueue, droppedByReceiver, droppedByDevice, unshaped, onLink }
     * (packets; bytes of IP packets) since the start: droppedByReceiver what the receiving side's
     * device refused when the emulator wrote it, droppedByDevice what the sending side's kernel
     * dropped at its device's queue before the emulator read it.
     */
    counters: async () => {
      const [{ down, up }, drops] = await Promise.all([ask('counters'), deviceDrops()]);
      return { down: { ...down, droppedByDevice: drops.down }, up: { ...up, droppedByDevice: drops.up } };
    },
    /**
     * The lab UI's `port`: the page's TCP to it goes over the UI link, off the devices (ui-link.js),
     * so the page stays quick whatever the conditions or a flood of its side; TCP of that port that
     * still reaches a device (put there by hand) passes the emulator unshaped.
     */
    exemptUiPort: async (port) => {
      await routeUiOverLink(port);
      await ask('set', { uiPort: port });
    },
    /**
     * Starts capturing every shaped packet into `<stem>.sent.pcapng` and `<stem>.received.pcapng`
     * (capture.js), whole or its first bytes; a capture running is ended first.
     * @param {string} stem
     * @param {boolean} whole
     */
    capture: {
      start: async (stem, whole) => {
        await ask('captureStart', { stem, whole });
      },
      /** Ends the capture; resolves what it wrote. @returns {Promise<import('./capture.js').CaptureSummary>} */
      stop: async () => (await ask('captureStop')).summary,
    },
    relayTo: null, // the browser reaches each server at its own port, across the path
    /** The emulator's CPU time since it started, in ms (its pid is the namespace's, not /proc's). */
    cpuMs: async () => {
      const { user, system } = (await ask('cpu')).usage;
      return (user + system) / 1000;
    },
    /** Why the emulator is gone, or null while it runs. */
    failure: emulator.failure,
    exited: emulator.exited,
    close: emulator.close,
  };
}
