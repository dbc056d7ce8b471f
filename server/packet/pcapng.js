// pcapng, the capture format Wireshark and tshark open (IETF draft-ietf-opsawg-pcapng): a section
// header, one interface description per direction of the path, and one enhanced packet block per
// packet, whose comment carries what the emulator did with it (a drop and its cause). Written
// little-endian, which the byte-order magic tells readers. Bare IP packets: LINKTYPE_RAW.

const blockTypes = { section: 0x0a0d0d0a, interface: 0x00000001, packet: 0x00000006 };
const linktypeRaw = 101;
const options = { end: 0, comment: 1, name: 2, description: 3, tsresol: 9, userAppl: 4 };

/** @param {number} n */
const padded = (n) => (n + 3) & ~3;

/**
 * Options as pcapng lays them out: code, length, value padded to 4 bytes, then the end marker.
 * @param {Array<[number, Buffer]>} list
 */
function optionBytes(list) {
  if (!list.length) return Buffer.alloc(0);
  const out = Buffer.alloc(list.reduce((n, [, v]) => n + 4 + padded(v.length), 4));
  let at = 0;
  for (const [code, value] of list) {
    out.writeUInt16LE(code, at);
    out.writeUInt16LE(value.length, at + 2);
    value.copy(out, at + 4);
    at += 4 + padded(value.length);
  }
  return out; // the end marker is the zeros left at the end
}

/**
 * A block: type, total length, body, total length again.
 * @param {number} type
 * @param {Buffer[]} parts  the body, each part padded to 4 bytes by its maker
 */
function block(type, parts) {
  const bodyBytes = parts.reduce((n, p) => n + p.length, 0);
  const out = Buffer.alloc(12 + bodyBytes);
  out.writeUInt32LE(type, 0);
  out.writeUInt32LE(out.length, 4);
  let at = 8;
  for (const p of parts) at += p.copy(out, at);
  out.writeUInt32LE(out.length, at);
  return out;
}

/**
 * The file's first blocks: the section header, then one interface per name.
 * @param {{ interfaces: Array<{ name: string, description: string }>, snapBytes: number, application: string }} o
 *   snapBytes: at most this much of each packet is kept (0: all of it)
 */
export function pcapngHeader({ interfaces, snapBytes, application }) {
  const section = Buffer.alloc(16);
  section.writeUInt32LE(0x1a2b3c4d, 0); // byte-order magic
  section.writeUInt16LE(1, 4); // version 1.0
  section.writeUInt16LE(0, 6);
  section.writeBigInt64LE(-1n, 8); // section length: not given
  const blocks = [block(blockTypes.section, [section, optionBytes([[options.userAppl, Buffer.from(application)]])])];
  for (const { name, description } of interfaces) {
    const head = Buffer.alloc(8);
    head.writeUInt16LE(linktypeRaw, 0);
    head.writeUInt32LE(snapBytes, 4);
    // Timestamps in microseconds (if_tsresol 6, the default, said anyway).
    const opts = optionBytes([[options.name, Buffer.from(name)], [options.description, Buffer.from(description)], [options.tsresol, Buffer.from([6])]]);
    blocks.push(block(blockTypes.interface, [head, opts]));
  }
  return Buffer.concat(blocks);
}

/**
 * The bytes of one packet's block: its fixed fields, what is kept of the packet, and a comment.
 * @param {number} kept  bytes of the packet kept
 * @param {Buffer|null} comment
 */
export const packetBlockBytes = (kept, comment) => 32 + padded(kept) + (comment ? 8 + padded(comment.length) : 0);

/**
 * Writes one packet's block into `target` at `at` (which has packetBlockBytes of room) and returns
 * where it ends: in place, so that a capture costs no allocation per packet.
 * @param {Buffer} target
 * @param {number} at
 * @param {{ interfaceId: number, timeUs: number, packet: Buffer, snapBytes: number, comment: Buffer|null }} o
 *   timeUs: microseconds since the Unix epoch; snapBytes: as in the header (0: all); comment: its UTF-8
 */
export function writePacketBlock(target, at, { interfaceId, timeUs, packet, snapBytes, comment }) {
  const kept = snapBytes ? Math.min(snapBytes, packet.length) : packet.length;
  const length = packetBlockBytes(kept, comment);
  const time = Math.round(timeUs);
  target.writeUInt32LE(blockTypes.packet, at);
  target.writeUInt32LE(length, at + 4);
  target.writeUInt32LE(interfaceId, at + 8);
  target.writeUInt32LE(Math.floor(time / 2 ** 32), at + 12);
  target.writeUInt32LE(time % 2 ** 32, at + 16);
  target.writeUInt32LE(kept, at + 20);
  target.writeUInt32LE(packet.length, at + 24);
  packet.copy(target, at + 28, 0, kept);
  let end = at + 28 + padded(kept);
  target.fill(0, at + 28 + kept, end);
  if (comment) {
    target.writeUInt16LE(options.comment, end);
    target.writeUInt16LE(comment.length, end + 2);
    comment.copy(target, end + 4);
    target.fill(0, end + 4 + comment.length, end + 4 + padded(comment.length) + 4); // padding and the end of options
    end += 8 + padded(comment.length);
  }
  target.writeUInt32LE(length, end);
  return end + 4;
}

/**
 * @typedef {object} CapturedPacket  one enhanced packet block, read back
 * @property {number} interfaceId
 * @property {number} timeUs  microseconds since the Unix epoch
 * @property {Buffer} data  what was kept of the packet
 * @property {number} length  the packet's length on the wire
 * @property {string|null} comment
 */

/**
 * Reads a pcapng file this module wrote (little-endian, one section): its interfaces' names and
 * its packets. A file cut short (a run that failed mid-write) gives the whole blocks before the cut
 * and `truncated: true`, as does one with a packet block whose lengths do not fit (the blocks
 * before it are given); a file that does not start as pcapng is an Error.
 * @param {Buffer} bytes
 * @returns {{ interfaces: string[], packets: CapturedPacket[], truncated: boolean }}
 */
export function readPcapng(bytes) {
  if (bytes.length < 12 || bytes.readUInt32LE(0) !== blockTypes.section || bytes.readUInt32LE(8) !== 0x1a2b3c4d) {
    throw new Error('not a little-endian pcapng file');
  }
  /** @type {string[]} */
  const interfaces = [];
  /** @type {CapturedPacket[]} */
  const packets = [];
  let at = 0;
  while (at + 12 <= bytes.length) {
    const type = bytes.readUInt32LE(at);
    const length = bytes.readUInt32LE(at + 4);
    if (length < 12 || length % 4 || at + length > bytes.length) break;
    const body = bytes.subarray(at + 8, at + length - 4);
    if (type === blockTypes.interface) {
      interfaces.push(readOptions(body.subarray(8)).get(options.name)?.toString() ?? `interface ${interfaces.length}`);
    } else if (type === blockTypes.packet) {
      // A block too short for its fields or for the bytes it says it kept is where the file went
      // bad: read as a cut, not thrown, so that what came before it is still read.
      if (body.length < 20) break;
      const kept = body.readUInt32LE(12);
      if (20 + padded(kept) > body.length) break;
      const comment = readOptions(body.subarray(20 + padded(kept))).get(options.comment);
      packets.push({
        interfaceId: body.readUInt32LE(0),
        timeUs: body.readUInt32LE(4) * 2 ** 32 + body.readUInt32LE(8),
        data: body.subarray(20, 20 + kept),
        length: body.readUInt32LE(16),
        comment: comment ? comment.toString() : null,
      });
    }
    at += length;
  }
  return { interfaces, packets, truncated: at !== bytes.length };
}

/** @param {Buffer} bytes  a block's options */
function readOptions(bytes) {
  /** @type {Map<number, Buffer>} */
  const found = new Map();
  let at = 0;
  while (at + 4 <= bytes.length) {
    const code = bytes.readUInt16LE(at);
    const length = bytes.readUInt16LE(at + 2);
    if (code === options.end) break;
    found.set(code, bytes.subarray(at + 4, at + 4 + length));
    at += 4 + padded(length);
  }
  return found;
}
