// The packet network's emulator: a process of its own (forked by server/packet/network.js) that
// carries every IP packet between the two TUN devices, at the fork's stdio positions of
// sides.js emulatorTunFds, over an emulated path (server/path/path.js) with loss per packet
// (server/path/packets.js). The page's TCP to the lab UI goes over a link of its own
// (ui-link.js); any TCP of the UI's port that reaches a device all the same passes unshaped,
// never measured. It reads both devices on its event loop
// (tun-reader.js) and writes each packet with one write when it is due.
//
// IPC: { id, type: 'set', conditions, uiPort }, { id, type: 'seed', seed }, { id, type: 'counters' }, 'cpu',
// { type: 'captureStart', stem, whole } and 'captureStop' are answered with { id, ok, ... } (or
// { id, ok: false, error }); 'ready' is sent once both devices are read. A disconnected IPC channel (the lab
// gone) ends the process.
import fs from 'node:fs';
import { lossStreamSeeds } from '../../common/setup/seeds.js';
import { presetConditions } from '../path/conditions.js';
import { createPacketDirection } from '../path/packets.js';
import { createPath } from '../path/path.js';
import { createCapture } from './capture.js';
import { carryPacket, writeOrLose } from './carry.js';
import { emulatorTunFds } from './sides.js';
import { readPackets } from './tun-reader.js';

// The lab's own copies of the devices came along with the fork (launch.py made them inheritable):
// only the two at emulatorTunFds stay, so that this process holds each device once.
for (const name of fs.readdirSync('/proc/self/fd')) {
  const fd = Number(name);
  if (fd === emulatorTunFds.server || fd === emulatorTunFds.browser) continue;
  let target = null;
  try {
    target = fs.readlinkSync(`/proc/self/fd/${name}`);
  } catch {
    // the listing's own descriptor, gone by now
  }
  if (target === '/dev/net/tun') fs.closeSync(fd);
}

// Until the lab sets conditions, every packet passes unshaped; TCP to or from uiPort always does.
// A capture, while one runs, records every shaped packet (capture.js).
/** @type {{ shaping: boolean, uiPort: number, capture: ReturnType<typeof createCapture> | null }} */
const state = { shaping: false, uiPort: -1, capture: null };
const path = createPath(presetConditions('no-throttling'));
const shapers = {
  down: createPacketDirection(path.down, path.conditions),
  up: createPacketDirection(path.up, path.conditions),
};

/** @param {string} why @returns {never} */
function fail(why) {
  process.stderr.write(`h2lab packet emulator: ${why}\n`);
  process.exit(1);
}

/**
 * Carries every packet read from `from` to `to` through `shaper`, for as long as the process runs.
 * @param {number} from @param {number} to
 * @param {ReturnType<typeof createPacketDirection>} shaper
 * @param {'down'|'up'} direction  the packets', for a capture
 */
function pump(from, to, shaper, direction) {
  /** @param {Buffer} packet */
  const deliver = (packet) => writeOrLose(to, packet);
  readPackets(from, (packet) => carryPacket(packet, shaper, deliver, state, direction), (why) => fail(`the TUN device on fd ${from}: ${why}`));
}

/**
 * @typedef {{ id: number, type: string, conditions?: import('../path/conditions.js').PathConditions, uiPort?: number,
 *   seed?: number, stem?: string, whole?: boolean }} Request  from network.js
 */

const answers = {
  /** @param {Request} message */
  set(message) {
    if (message.conditions) {
      path.set(message.conditions); // what is queued is re-timed, as on the lab link
      state.shaping = true;
    }
    state.uiPort = message.uiPort ?? state.uiPort;
    return {};
  },
  // A timed run's loss seed: both directions' loss restarts from it (common/setup/seeds.js) before its first packet.
  /** @param {Request} message */
  seed({ seed }) {
    for (const direction of /** @type {const} */ (['down', 'up'])) shapers[direction].seedLoss(lossStreamSeeds(/** @type {number} network.js sends it */ (seed), direction));
    return {};
  },
  counters: () => ({ down: { ...shapers.down.counters }, up: { ...shapers.up.counters } }),
  // One capture at a time: a new one ends the one before (a run that failed before stopping it).
  /** @param {Request} message */
  captureStart({ stem, whole }) {
    state.capture?.stop();
    state.capture = null;
    state.capture = createCapture({ stem: /** @type {string} network.js sends it */ (stem), whole: Boolean(whole) });
    return {};
  },
  captureStop() {
    if (!state.capture) throw new Error('no capture is running');
    const summary = state.capture.stop();
    state.capture = null;
    return { summary };
  },
  cpu: () => ({ usage: process.cpuUsage() }),
};

/** @typedef {{ [K in keyof typeof answers]: ReturnType<(typeof answers)[K]> }} Answers  each request's answer, beside its id and ok */

// process.send is there: network.js forks this with an IPC channel.
/** @typedef {NonNullable<typeof process.send>} Send */
const send = /** @type {Send} */ (process.send).bind(process);

process.on('message', (/** @type {Request} */ message) => {
  const answer = /** @type {Partial<Record<string, (message: Request) => object>>} */ (answers)[message.type];
  if (!answer) return send({ id: message.id, ok: false, error: `unknown request ${message.type}` });
  try {
    send({ id: message.id, ok: true, ...answer(message) });
  } catch (err) {
    // A request it cannot do (a capture file that cannot be opened) is answered, never the end of the emulator.
    send({ id: message.id, ok: false, error: /** @type {Error} */ (err).message });
  }
});
process.on('disconnect', () => process.exit(0));

pump(emulatorTunFds.server, emulatorTunFds.browser, shapers.down, 'down');
pump(emulatorTunFds.browser, emulatorTunFds.server, shapers.up, 'up');
send({ type: 'ready' });
