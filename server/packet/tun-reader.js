// Reads IP packets from a TUN device on the event loop itself: the device's descriptor opened as
// a libuv stream, so that epoll says when a packet waits and the loop reads it, with no thread in
// between. fs.read ran each read in libuv's thread pool: a hop to a pool thread and back for every
// packet, whose futex waits, wakes and context switches were most of the emulator's CPU
// (docs/performance.md, "The packet network's emulator"). A worker thread blocked in readSync,
// handing packets over a SharedArrayBuffer ring, still woke two threads per burst of packets and
// cost about 40 % more CPU than this.
//
// Node has no public API that polls a descriptor other than a socket, a pipe or a terminal, and a
// TUN device is a character device. net.Socket over a Pipe handle opened on it is how Node reads
// its own pipes; process.binding('pipe_wrap') is documentation-only deprecated (DEP0111) and on
// process.binding's allowlist from Node 20 to Node's current source. test/tun-reader.test.js
// checks it on the Node it runs on.
//
// A TUN device gives one packet per read (IFF_NO_PI: the bare IP packet), and libuv reads into
// 64 KiB, more than an IP packet can hold (65,535 bytes): no read cuts one short. Node hands each
// read over in memory of its own, exactly the packet's length, so a packet the shaper keeps holds
// no more than its bytes (carry.js). A read shorter than its buffer ends libuv's turn at the
// device, so the loop reads one packet per turn: timers and the lab's IPC keep their turns in a flood.
import net from 'node:net';
import { getSystemErrorName } from 'node:util';

// Not in @types/node, which leaves deprecated APIs out: typed here as far as this file uses it.
/** @typedef {{ binding(name: 'pipe_wrap'): { Pipe: new (type: number) => { open(fd: number): number }, constants: { SOCKET: number } } }} PipeWrap */
const { Pipe, constants: PipeConstants } = /** @type {PipeWrap} */ (/** @type {unknown} */ (process)).binding('pipe_wrap');

/**
 * Calls onPacket(packet) for every packet read from `fd`, from the event loop, until reading fails.
 * @param {number} fd a TUN device's descriptor (it becomes non-blocking, which its writes never notice)
 * @param {(packet: Buffer) => void} onPacket
 * @param {(why: string) => void} onFailure once, when the device can be read no longer
 */
export function readPackets(fd, onPacket, onFailure) {
  const handle = new Pipe(PipeConstants.SOCKET);
  const err = handle.open(fd);
  if (err) return onFailure(`fd ${fd} cannot be read from the event loop: ${getSystemErrorName(err)}`);
  const device = new net.Socket(/** @type {import('node:net').SocketConstructorOpts} `handle` is an option Node keeps to itself */ ({ handle, readable: true, writable: false }));
  let failed = false;
  /** @param {string} why */
  const fail = (why) => {
    if (failed) return;
    failed = true;
    device.destroy();
    onFailure(why);
  };
  device.on('data', onPacket);
  device.on('error', (e) => fail(`reading fd ${fd} failed: ${e.message}`));
  // A read of 0 bytes is the end of a stream to libuv; a TUN device never gives one (the kernel
  // refuses an empty packet on the device: test/packet-hostile.test.js).
  device.on('end', () => fail(`fd ${fd} gave a read of 0 bytes`));
}
