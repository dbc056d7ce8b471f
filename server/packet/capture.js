// One run's packet capture, written by the emulator (emulator.js) as two pcapng files beside each
// other: `<stem>.sent.pcapng`, every packet as it entered the emulator (as its sender sent it),
// each drop marked with its cause in the packet's comment; and `<stem>.received.pcapng`, every
// packet as it left (as its receiver got it). Two files, not one with both copies: each is then a
// capture tshark reads as it would one taken at that end, its TCP analysis (retransmissions,
// lost segments) undisturbed by the other copy of the same segment.
import fs from 'node:fs';
import { packetLimits } from '../config.js';
import { createPrivateFile } from '../private-files.js';
import { packetBlockBytes, pcapngHeader, writePacketBlock } from './pcapng.js';

/** The path's two directions, as pcapng interfaces 0 and 1 of both files. */
const interfaces = [
  { name: 'down', description: 'server side → browser side' },
  { name: 'up', description: 'browser side → server side' },
];

/** What a drop's comment says, by the path's cause (server/path/packets.js). */
export const dropComments = { loss: 'dropped: loss model', queue: 'dropped: queue full' };
const commentBytes = { loss: Buffer.from(dropComments.loss), queue: Buffer.from(dropComments.queue) };
// The largest block: a whole 65,535-byte packet with the longer comment.
const maxBlockBytes = packetBlockBytes(65_535, commentBytes.queue);

/**
 * @typedef {object} CaptureSummary  what a capture wrote (the lab's answer to stopping it)
 * @property {{ sent: string, received: string }} files
 * @property {boolean} whole  whole packets, or bulk cut to its first packetLimits.captureHeaderBytes (keptBytes)
 * @property {{ sent: number, received: number, droppedByLoss: number, droppedByQueue: number }} packets
 * @property {number} bytes  both files together
 * @property {string|null} cut  where the capture stopped at its size bound before the run ended, or null
 * @property {string|null} error  a write that failed (a full disk), naming the file: the run fails
 */

/**
 * How much of a packet a capture of headers keeps (0: all of it). Control is kept whole, bulk
 * is cut: every packet up (the browser's requests, handshakes and ACKs) and a packet down that
 * carries a handshake (TCP payload opening with a TLS handshake record, the ServerHello; a QUIC
 * long header) are whole, so tshark decrypts every request with the run's keys; of the rest, the
 * response bytes that make a run large, the first captureHeaderBytes.
 * @param {Buffer} packet  IPv4 (the packet network has IPv6 off) @param {'down'|'up'} direction
 */
export function keptBytes(packet, direction) {
  if (direction === 'up') return 0;
  const ipBytes = (packet[0] & 0x0f) * 4;
  if (packet[0] >> 4 !== 4 || packet.length <= ipBytes + 8) return packetLimits.captureHeaderBytes;
  const protocol = packet[9];
  if (protocol === 17) return packet[ipBytes + 8] & 0x80 ? 0 : packetLimits.captureHeaderBytes; // QUIC's long header
  if (protocol !== 6 || packet.length <= ipBytes + 12) return packetLimits.captureHeaderBytes;
  const payloadAt = ipBytes + (packet[ipBytes + 12] >> 4) * 4;
  return packet[payloadAt] === 0x16 ? 0 : packetLimits.captureHeaderBytes; // a TLS handshake record
}

/**
 * Creates both files, 0600, neither over a name that exists nor through a link
 * (server/private-files.js): when the second is refused, the first is removed again.
 * @param {{ sent: string, received: string }} files
 */
function openBoth(files) {
  const sent = createPrivateFile(files.sent);
  try {
    return { sent, received: createPrivateFile(files.received) };
  } catch (err) {
    fs.closeSync(sent);
    fs.rmSync(files.sent);
    throw err;
  }
}

/**
 * Starts writing a capture; nothing is written once `stop()` has been called. Throws (EEXIST,
 * ELOOP) where a file of the stem's names is there already.
 * @param {{ stem: string, whole: boolean }} o  stem: the files' path without `.sent.pcapng`
 */
export function createCapture({ stem, whole }) {
  // Each packet says what it kept (keptBytes): the interfaces set no limit.
  const header = pcapngHeader({ interfaces, snapBytes: 0, application: 'h2lab packet emulator' });
  const files = { sent: `${stem}.sent.pcapng`, received: `${stem}.received.pcapng` };
  const packets = { sent: 0, received: 0, droppedByLoss: 0, droppedByQueue: 0 };
  /** @type {string|null} */
  let cut = null;
  /** @type {string|null} */
  let error = null;
  let stopped = false; // packets sent before the stop may still arrive after it
  const fds = openBoth(files);
  // Each file's blocks gather in a buffer of its own, written when it is full: one write for a
  // few hundred packets, and no allocation per packet.
  const out = Object.fromEntries(
    /** @type {const} */ (['sent', 'received']).map((which) => {
      const chunk = Buffer.allocUnsafe(packetLimits.captureFlushBytes + maxBlockBytes);
      return [which, { path: files[which], fd: fds[which], chunk, used: header.copy(chunk), written: 0 }];
    }),
  );

  /** @param {typeof out.sent} file */
  function flush(file) {
    if (!file.used) return;
    fs.writeSync(file.fd, file.chunk, 0, file.used);
    file.written += file.used;
    file.used = 0;
  }

  /**
   * @param {'sent'|'received'} which
   * @param {Buffer} packet
   * @param {'down'|'up'} direction
   * @param {Buffer|null} comment
   * @param {number} atMs  performance.now() when it happened
   */
  function record(which, packet, direction, comment, atMs) {
    if (cut || error || stopped) return false;
    const file = out[which];
    const snapBytes = whole ? 0 : keptBytes(packet, direction);
    const bytes = packetBlockBytes(snapBytes ? Math.min(snapBytes, packet.length) : packet.length, comment);
    if (file.written + file.used + bytes > packetLimits.maxCaptureBytes) {
      cut = `${file.path} reached ${packetLimits.maxCaptureBytes / 1024 / 1024} MiB (packetLimits.maxCaptureBytes)`;
      return false;
    }
    const timeUs = (performance.timeOrigin + atMs) * 1000;
    file.used = writePacketBlock(file.chunk, file.used, { interfaceId: direction === 'down' ? 0 : 1, timeUs, packet, snapBytes, comment });
    try {
      if (file.used >= packetLimits.captureFlushBytes) flush(file);
    } catch (err) {
      error = `writing ${file.path} failed: ${/** @type {Error} */ (err).message}`;
    }
    return true;
  }

  return {
    /**
     * A packet entered the emulator: `fate` is what the path did with it.
     * @param {Buffer} packet
     * @param {'down'|'up'} direction
     * @param {'onLink'|'loss'|'queue'} fate
     * @param {number} [enteredAt]  performance.now() before the path saw it: a time taken after
     *   could fall later than the path's own, and a round trip read from the files look short
     */
    sent(packet, direction, fate, enteredAt = performance.now()) {
      if (!record('sent', packet, direction, fate === 'onLink' ? null : commentBytes[fate], enteredAt)) return;
      packets.sent += 1;
      if (fate === 'loss') packets.droppedByLoss += 1;
      if (fate === 'queue') packets.droppedByQueue += 1;
    },
    /** A packet left the emulator. @param {Buffer} packet @param {'down'|'up'} direction */
    received(packet, direction) {
      if (record('received', packet, direction, null, performance.now())) packets.received += 1;
    },
    /** Writes what is pending and closes both files. @returns {CaptureSummary} */
    stop() {
      stopped = true;
      for (const file of Object.values(out)) {
        try {
          if (!error) flush(file);
        } catch (err) {
          error = `writing ${file.path} failed: ${/** @type {Error} */ (err).message}`;
        }
        fs.closeSync(file.fd);
      }
      const bytes = Object.values(out).reduce((n, f) => n + f.written, 0);
      return { files, whole, packets, bytes, cut, error };
    },
  };
}
