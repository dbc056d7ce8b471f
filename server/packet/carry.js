// The emulator's step for each packet it reads from a TUN device (emulator.js): copy it out of
// the read buffer, tell the lab UI's TCP (unshaped) from the measured traffic (ip-header.js),
// hand it to its direction of the path (server/path/packets.js), and write it out of the other
// device when the path delivers it. Apart from emulator.js so that the tests run this very step on any bytes
// (test/ip-header.test.js): a process on the browser side can put anything on its device, and
// nothing it puts there may end the emulator.
import fs from 'node:fs';
import { isTcpPort } from './ip-header.js';

/**
 * Carries the packet in the first `bytes` of `scratch` (a read's buffer, reused by the next read).
 * @param {Buffer} scratch
 * @param {number} bytes what the read returned (0 included)
 * @param {{ carry(bytes: number, deliver: () => void, options?: { shaped?: boolean }): void }} shaper its direction's
 * @param {(packet: Buffer) => void} deliver writes the packet out of the other device (writeOrLose)
 * @param {{ shaping: boolean, uiPort: number }} state what the lab set: until it sets
 *   conditions, every packet passes unshaped; TCP to or from uiPort always does
 */
export function carryPacket(scratch, bytes, shaper, deliver, { shaping, uiPort }) {
  // A copy of its own, not a slice of Node's 8 KiB pool (Buffer.from): a packet the shaper keeps
  // would keep its whole slab, and a flood of small packets of which the queue keeps one in a few
  // hundred held 8 KiB per 28-byte packet (31,000 kept: 254 MB, where the queue's bound counts
  // 16 MiB; test/ip-header.test.js).
  const packet = Buffer.allocUnsafeSlow(bytes);
  scratch.copy(packet, 0, 0, bytes);
  shaper.carry(bytes, () => deliver(packet), { shaped: shaping && !isTcpPort(packet, uiPort) });
}

/** Writes one packet to a TUN device; one the device refuses (not IP, too short) is lost, as on a real path. */
export function writeOrLose(fd, packet) {
  try {
    fs.writeSync(fd, packet);
  } catch {
    // TCP and QUIC recover from a lost packet; anything else was never going to arrive.
  }
}
