// One run's packet capture, written by the emulator (emulator.js) as two pcapng files beside each
// other: `<stem>.sent.pcapng`, every packet as it entered the emulator (as its sender sent it),
// each drop marked with its cause in the packet's comment; and `<stem>.received.pcapng`, every
// packet as it left (as its receiver got it). Two files, not one with both copies: each is then a
// capture tshark reads as it would one taken at that end, its TCP analysis (retransmissions,
// lost segments) undisturbed by the other copy of the same segment.
import fs from 'node:fs';
import { packetLimits } from '../config.js';
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
 * @property {boolean} whole  whole packets, or their first packetLimits.captureHeaderBytes
 * @property {{ sent: number, received: number, droppedByLoss: number, droppedByQueue: number }} packets
 * @property {number} bytes  both files together
 * @property {string|null} cut  where the capture stopped at its size bound before the run ended, or null
 * @property {string|null} error  a write that failed (a full disk), naming the file: the run fails
 */

/**
 * Starts writing a capture; nothing is written once `stop()` has been called.
 * @param {{ stem: string, whole: boolean }} o  stem: the files' path without `.sent.pcapng`
 */
export function createCapture({ stem, whole }) {
  const snapBytes = whole ? 0 : packetLimits.captureHeaderBytes;
  const header = pcapngHeader({ interfaces, snapBytes, application: 'h2lab packet emulator' });
  const files = { sent: `${stem}.sent.pcapng`, received: `${stem}.received.pcapng` };
  const packets = { sent: 0, received: 0, droppedByLoss: 0, droppedByQueue: 0 };
  /** @type {string|null} */
  let cut = null;
  /** @type {string|null} */
  let error = null;
  let stopped = false; // packets sent before the stop may still arrive after it
  // Each file's blocks gather in a buffer of its own, written when it is full: one write for a
  // few hundred packets, and no allocation per packet.
  const out = Object.fromEntries(
    /** @type {const} */ (['sent', 'received']).map((which) => {
      const chunk = Buffer.allocUnsafe(packetLimits.captureFlushBytes + maxBlockBytes);
      return [which, { path: files[which], fd: fs.openSync(files[which], 'w'), chunk, used: header.copy(chunk), written: 0 }];
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
   */
  function record(which, packet, direction, comment) {
    if (cut || error || stopped) return false;
    const file = out[which];
    const bytes = packetBlockBytes(snapBytes ? Math.min(snapBytes, packet.length) : packet.length, comment);
    if (file.written + file.used + bytes > packetLimits.maxCaptureBytes) {
      cut = `${file.path} reached ${packetLimits.maxCaptureBytes / 1024 / 1024} MiB (packetLimits.maxCaptureBytes)`;
      return false;
    }
    const timeUs = (performance.timeOrigin + performance.now()) * 1000;
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
     */
    sent(packet, direction, fate) {
      if (!record('sent', packet, direction, fate === 'onLink' ? null : commentBytes[fate])) return;
      packets.sent += 1;
      if (fate === 'loss') packets.droppedByLoss += 1;
      if (fate === 'queue') packets.droppedByQueue += 1;
    },
    /** A packet left the emulator. @param {Buffer} packet @param {'down'|'up'} direction */
    received(packet, direction) {
      if (record('received', packet, direction, null)) packets.received += 1;
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
