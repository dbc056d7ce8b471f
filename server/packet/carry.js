// The emulator's step for each packet it reads from a TUN device (emulator.js): tell the lab UI's
// TCP (unshaped) from the measured traffic (ip-header.js), hand the packet to its direction of the
// path (server/path/packets.js), and write it out of the other device when the path delivers it.
// Apart from emulator.js so that the tests run this very step on any bytes (test/ip-header.test.js):
// a process on the browser side can put anything on its device, and nothing it puts there may end
// the emulator.
import fs from 'node:fs';
import { isTcpPort } from './ip-header.js';

/**
 * Carries one packet. It is kept as it is until delivered, so it must be memory of its own, no
 * larger than the packet: tun-reader.js reads each packet so. (A slice of a larger buffer would
 * keep all of it: a flood of small packets of which the queue keeps one in a few hundred, each a
 * slice of Node's 8 KiB pool, held 8 KiB per 28-byte packet, 254 MB for 31,000 kept where the
 * queue's bound counts 16 MiB; test/ip-header.test.js.)
 * @param {Buffer} packet
 * @param {{ carry(bytes: number, deliver: () => void, options?: { shaped?: boolean }): 'unshaped'|'queue'|'loss'|'onLink' }} shaper its direction's
 * @param {(packet: Buffer) => unknown} deliver writes the packet out of the other device (writeOrLose):
 *   false when the device refused it
 * @param {{ shaping: boolean, uiPort: number, capture?: ReturnType<typeof import('./capture.js').createCapture> | null }} state
 *   what the lab set: until it sets conditions, every packet passes unshaped; TCP to or from
 *   uiPort always does; a capture running records each shaped packet as it enters and leaves
 * @param {'down'|'up'} [direction]  the packet's, for the capture
 */
export function carryPacket(packet, shaper, deliver, { shaping, uiPort, capture = null }, direction = 'down') {
  const shaped = shaping && !isTcpPort(packet, uiPort);
  // The lab UI's own traffic is not the run's: a capture holds only what the path shaped.
  if (!capture || !shaped) return void shaper.carry(packet.length, () => deliver(packet), { shaped });
  // What the receiving device refused never left: it stays out of the received file. Its record in
  // the sent file, written as it entered, has no drop comment (its end was not known then); the
  // counters say it (packets.js droppedByReceiver).
  const enteredAt = performance.now();
  const fate = shaper.carry(packet.length, () => {
    const written = deliver(packet);
    if (written !== false) capture.received(packet, direction);
    return written;
  });
  if (fate !== 'unshaped') capture.sent(packet, direction, fate, enteredAt);
}

/**
 * Writes one packet to a TUN device; one the device refuses is lost, as on a real path, and false
 * says so: neither IPv4 nor IPv6 (EINVAL), the device down (EIO), no memory or buffer for it
 * (ENOMEM, ENOBUFS, EAGAIN: the descriptor is non-blocking, tun-reader.js).
 * @param {number} fd @param {Buffer} packet
 * @returns {boolean} whether the device took it
 */
export function writeOrLose(fd, packet) {
  try {
    fs.writeSync(fd, packet);
    return true;
  } catch {
    // TCP and QUIC recover from a lost packet; anything else was never going to arrive.
    return false;
  }
}
