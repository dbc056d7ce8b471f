// The packet network's emulator: a process of its own (forked by server/packet/network.js) that
// carries every IP packet between the two TUN devices, at the fork's stdio positions of
// sides.js emulatorTunFds, over an emulated path (server/path/path.js) with loss per packet
// (server/path/packets.js). TCP to or from the lab UI's port passes unshaped, so the page and its
// controls stay quick whatever the conditions.
//
// IPC: { id, type: 'set', conditions, uiPort }, { id, type: 'counters' } and 'cpu' are answered with
// { id, ok, ... }; 'ready' is sent once both devices are read. A disconnected IPC channel (the lab
// gone) ends the process.
import fs from 'node:fs';
import { packetLimits } from '../config.js';
import { presetConditions } from '../path/conditions.js';
import { createPacketDirection } from '../path/packets.js';
import { createPath } from '../path/path.js';
import { carryPacket, writeOrLose } from './carry.js';
import { emulatorTunFds } from './sides.js';

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

let shaping = false; // until the lab sets conditions, every packet passes unshaped
let uiPort = -1;
const path = createPath(presetConditions('no-throttling'));
const shapers = {
  down: createPacketDirection(path.down, path.conditions),
  up: createPacketDirection(path.up, path.conditions),
};

function fail(why) {
  process.stderr.write(`h2lab packet emulator: ${why}\n`);
  process.exit(1);
}

/** Reads one packet at a time from `from` (a blocking read, in libuv's thread pool) forever. */
function pump(from, to, shaper) {
  const scratch = Buffer.allocUnsafe(packetLimits.readBytes);
  const next = () => fs.read(from, scratch, 0, scratch.length, null, onPacket);
  function onPacket(err, bytes) {
    if (err) return fail(`reading the TUN device on fd ${from} failed: ${err.message}`);
    carryPacket(scratch, bytes, shaper, (packet) => writeOrLose(to, packet), { shaping, uiPort });
    next();
  }
  next();
}

const answers = {
  set(message) {
    if (message.conditions) {
      path.set(message.conditions); // what is queued is re-timed, as on the lab link
      shaping = true;
    }
    uiPort = message.uiPort ?? uiPort;
    return {};
  },
  counters: () => ({ down: { ...shapers.down.counters }, up: { ...shapers.up.counters } }),
  cpu: () => ({ usage: process.cpuUsage() }),
};

process.on('message', (/** @type {{ id: number, type: string, [field: string]: any }} */ message) => {
  const answer = answers[message.type];
  process.send(answer ? { id: message.id, ok: true, ...answer(message) } : { id: message.id, ok: false, error: `unknown request ${message.type}` });
});
process.on('disconnect', () => process.exit(0));

pump(emulatorTunFds.server, emulatorTunFds.browser, shapers.down);
pump(emulatorTunFds.browser, emulatorTunFds.server, shapers.up);
process.send({ type: 'ready' });
