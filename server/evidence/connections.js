// One record per connection of a run, read from its two capture files (server/packet/capture.js):
// what it sent each way, what the path dropped and why, its retransmissions, its handshake's
// figures and its longest stall. The sent file is the senders' view (every original, every
// resend, every drop with its cause); the received file the receivers' (when each packet arrived).
// What each figure means: docs/evidence.md, "Per-connection records". Pure: bytes in, records out;
// a capture that is cut or corrupt gives what was read and an error, never a throw.
import fs from 'node:fs';
import { dropComments } from '../packet/capture.js';
import { readPcapng } from '../packet/pcapng.js';
import { segmentOf, tcpFlags } from './segments.js';

/** A connection keeps at most this many marks (a timeline's drops and resends); the rest are cut. */
export const maxMarks = 2_000;

/** @typedef {'down'|'up'} Direction  down: server side → browser side */
/** @typedef {ReturnType<typeof readPcapng>} CaptureFile  one file as readPcapng reads it */

/** @typedef {import('../../common/report/result.js').ConnectionRecord} ConnectionRecord  one connection's record (its fields are explained there) */

/**
 * @typedef {object} TcpWay  one direction's sequence space: offsets from its first sequence number
 * @property {number|null} base  its ISN (the SYN's sequence number), or the first one seen
 * @property {number} sentEnd  the highest offset sent, unwrapped
 * @property {number|null} dataStart  the offset of the first payload sent
 * @property {number|null} receivedNext  the offset up to which payload has arrived in order
 * @property {Array<[number, number]>} ahead  what arrived beyond a hole: ranges apart from each other, in order
 */

/**
 * @typedef {object} Connection  a record and what reading the files needs beside it
 * @property {ConnectionRecord} record
 * @property {number|null} clientIsn  a SYN with another ISN on the same ports is a new connection
 * @property {number|null} clientDataMs  when the client's first payload entered the path
 * @property {{ down: TcpWay, up: TcpWay }} tcp
 * @property {number|null} lastProgressMs  the last packet received down that counted for a stall
 */

const TWO_32 = 2 ** 32;

/**
 * The offset of `seq` from `base`, among those 2^32 apart the one nearest `near`: sequence
 * numbers wrap, and a connection may carry more than 4 GiB.
 * @param {number} seq @param {number} base @param {number} near
 */
const offsetOf = (seq, base, near) => {
  const wrapped = (seq - base + TWO_32) % TWO_32;
  return wrapped + Math.round((near - wrapped) / TWO_32) * TWO_32;
};

const perDirection = () => ({ down: 0, up: 0 });

/**
 * @param {import('./segments.js').Segment} s @param {Direction} dir @param {number} atMs
 * @returns {Connection}
 */
function newConnection(s, dir, atMs) {
  const [serverPort, clientPort] = dir === 'down' ? [s.sourcePort, s.destinationPort] : [s.destinationPort, s.sourcePort];
  /** @returns {TcpWay} */
  const way = () => ({ base: null, sentEnd: 0, dataStart: null, receivedNext: null, ahead: [] });
  return {
    record: {
      transport: s.transport, serverPort, clientPort, firstMs: atMs, lastMs: atMs,
      handshake: { startMs: null, replyMs: null, handshakeMs: null },
      packets: perDirection(), bytes: perDirection(), dropped: { loss: perDirection(), queue: perDirection() },
      retransmissions: s.transport === 'tcp' ? perDirection() : null,
      longestStallMs: null, marks: [], marksCut: false,
    },
    clientIsn: null, clientDataMs: null, tcp: { down: way(), up: way() }, lastProgressMs: null,
  };
}

/** @param {Connection} c @param {number} atMs @param {Direction} dir @param {'loss'|'queue'|'retransmission'} kind */
function mark(c, atMs, dir, kind) {
  if (c.record.marks.length < maxMarks) c.record.marks.push({ atMs, dir, kind });
  else c.record.marksCut = true;
}

/**
 * Adds [start, end) to `ranges`, merging what it touches, so that the list holds one range per
 * hole however many segments arrive beyond it. Searched from the end, where a segment usually goes.
 * @param {Array<[number, number]>} ranges @param {number} start @param {number} end
 */
function addRange(ranges, start, end) {
  let first = ranges.length;
  while (first > 0 && ranges[first - 1][1] >= start) first -= 1;
  let last = first;
  for (; last < ranges.length && ranges[last][0] <= end; last += 1) {
    start = Math.min(start, ranges[last][0]);
    end = Math.max(end, ranges[last][1]);
  }
  ranges.splice(first, last - first, [start, end]);
}

/**
 * Takes a received segment with payload into its direction's in-order data; true when that moved
 * forward (a hole filled counts; a copy of what arrived before, or data beyond a hole, does not).
 * @param {TcpWay} way @param {import('./segments.js').Segment} s
 */
function inOrderGain(way, s) {
  way.base ??= s.seq; // the sent file has no segment this way (cut before one)
  const next = way.receivedNext ?? way.dataStart ?? offsetOf(s.seq, way.base, 0);
  const start = offsetOf(s.seq, way.base, next);
  const end = start + s.payloadBytes;
  if (start > next) {
    addRange(way.ahead, start, end);
    way.receivedNext = next;
    return false;
  }
  let reached = Math.max(next, end);
  while (way.ahead.length && way.ahead[0][0] <= reached) reached = Math.max(reached, /** @type {[number, number]} */ (way.ahead.shift())[1]);
  way.receivedNext = reached;
  return reached > next;
}

/**
 * A packet placed in its connection's 4-tuple (connectionsOf's place).
 * @typedef {{ s: import('./segments.js').Segment, dir: Direction, key: string, atMs: number }} Placed
 */

/** @param {import('./segments.js').Segment} s @param {Direction} dir */
const isClientSyn = (s, dir) => s.transport === 'tcp' && dir === 'up' && (s.flags & tcpFlags.syn) !== 0 && !(s.flags & tcpFlags.ack);

/**
 * Counts a packet of the sent file into its connection: what it carried, its drop and cause, the
 * handshake's start, the client's first payload, and (TCP) whether it was a resend.
 * @param {Connection} c @param {Placed} placed @param {string|null} comment  the packet's: a drop says so
 * @param {boolean} clientSyn
 */
function takeSent(c, { s, dir, atMs }, comment, clientSyn) {
  const r = c.record;
  r.lastMs = atMs;
  r.packets[dir] += 1;
  r.bytes[dir] += s.payloadBytes;
  if (comment === dropComments.loss || comment === dropComments.queue) {
    const cause = comment === dropComments.loss ? 'loss' : 'queue';
    r.dropped[cause][dir] += 1;
    mark(c, atMs, dir, cause);
  }
  if (clientSyn) {
    c.clientIsn = s.seq;
    r.handshake.startMs ??= atMs;
  }
  if (s.transport === 'udp' && dir === 'up' && s.quicHeader === 'long') r.handshake.startMs ??= atMs;
  if (dir === 'up' && s.payloadBytes > 0) c.clientDataMs ??= atMs;
  if (!r.retransmissions) return; // UDP: no sequence numbers to read
  const syn = (s.flags & tcpFlags.syn) !== 0;
  const fin = (s.flags & tcpFlags.fin) !== 0;
  const way = c.tcp[dir];
  way.base ??= s.seq; // a connection whose SYN the capture missed counts from its first segment
  const start = offsetOf(s.seq, way.base, way.sentEnd);
  // SYN and FIN take a sequence number each, so their resends count as a payload's do.
  const extent = s.payloadBytes + (syn ? 1 : 0) + (fin ? 1 : 0);
  if (!extent) return;
  if (s.payloadBytes) way.dataStart ??= start + (syn ? 1 : 0);
  // A keep-alive (at most one byte at the last sequence number sent) is no resend; tshark agrees.
  const keepAlive = !syn && !fin && s.payloadBytes <= 1 && start === way.sentEnd - 1;
  if (start < way.sentEnd && !keepAlive) {
    r.retransmissions[dir] += 1;
    mark(c, atMs, dir, 'retransmission');
  }
  way.sentEnd = Math.max(way.sentEnd, start + extent);
}

/**
 * Counts a packet of the received file into its connection: its last packet, and down, the
 * handshake's replies and the longest stall between packets that made progress.
 * @param {Connection} c @param {Placed} placed
 */
function takeReceived(c, { s, dir, atMs }) {
  const r = c.record;
  r.lastMs = Math.max(r.lastMs, atMs);
  if (dir !== 'down') return;
  const { startMs } = r.handshake;
  let progress = true; // for UDP every datagram down counts
  if (s.transport === 'tcp') {
    if (startMs !== null && s.flags & tcpFlags.syn && s.flags & tcpFlags.ack) r.handshake.replyMs ??= atMs - startMs;
    if (startMs !== null && s.payloadBytes > 0 && c.clientDataMs !== null && atMs > c.clientDataMs) r.handshake.handshakeMs ??= atMs - startMs;
    progress = s.payloadBytes > 0 && inOrderGain(c.tcp.down, s);
  } else if (startMs !== null && s.quicHeader === 'long') r.handshake.replyMs ??= atMs - startMs;
  else if (startMs !== null && s.quicHeader === 'short') r.handshake.handshakeMs ??= atMs - startMs;
  if (!progress) return;
  if (c.lastProgressMs !== null) r.longestStallMs = Math.max(r.longestStallMs ?? 0, atMs - c.lastProgressMs);
  c.lastProgressMs = atMs;
}

/**
 * The connections of a run's capture, in the order of their first packet.
 * @param {{ sent: CaptureFile, received: CaptureFile, error?: string|null }} files  error: one
 *   from reading them (readCaptureFiles), passed on
 * @returns {{ connections: ConnectionRecord[], originEpochMs: number|null, skipped: number, error: string|null }}
 *   originEpochMs: the wall-clock time (ms since 1970) of the sent file's first packet, every
 *   record's 0, which lines them up with the page's clock; skipped:
 *   packets of either file in no connection (not IPv4 TCP or UDP, a fragment, a header cut short,
 *   a received packet whose connection the sent file does not have); error: a file cut or corrupt
 */
export function connectionsOf({ sent, received, error = null }) {
  const originUs = sent.packets[0]?.timeUs ?? received.packets[0]?.timeUs ?? 0;
  /** @param {number} timeUs */
  const msOf = (timeUs) => (timeUs - originUs) / 1000;
  let skipped = 0;
  /** @type {Map<string, Connection[]>} each 4-tuple's connections, the latest last */
  const byTuple = new Map();
  /** @type {Connection[]} */
  const all = [];

  /**
   * The packet's segment, direction and 4-tuple, or null (counted as skipped).
   * @param {CaptureFile} file @param {import('../packet/pcapng.js').CapturedPacket} p
   */
  const place = (file, p) => {
    const dir = file.interfaces[p.interfaceId];
    const s = segmentOf(p.data, p.length);
    if ((dir !== 'down' && dir !== 'up') || !s) {
      skipped += 1;
      return null;
    }
    const [server, client] = dir === 'down' ? [`${s.source}:${s.sourcePort}`, `${s.destination}:${s.destinationPort}`] : [`${s.destination}:${s.destinationPort}`, `${s.source}:${s.sourcePort}`];
    return { s, dir: /** @type {Direction} */ (dir), key: `${s.transport} ${server} ${client}`, atMs: msOf(p.timeUs) };
  };

  for (const p of sent.packets) {
    const placed = place(sent, p);
    if (!placed) continue;
    const { s, dir, key, atMs } = placed;
    const clientSyn = isClientSyn(s, dir);
    let c = byTuple.get(key)?.at(-1);
    // A SYN with the same ISN is its connection's own resend; with another, the ports' next connection.
    if (!c || (clientSyn && c.clientIsn !== s.seq)) {
      c = newConnection(s, dir, atMs);
      byTuple.set(key, [...(byTuple.get(key) ?? []), c]); // a new array only per connection, not per packet
      all.push(c);
    }
    takeSent(c, placed, p.comment, clientSyn);
  }

  for (const p of received.packets) {
    const placed = place(received, p);
    if (!placed) continue;
    // Of the connections on these ports, the latest to have started by the time it arrived.
    const c = byTuple.get(placed.key)?.findLast((candidate) => candidate.record.firstMs <= placed.atMs);
    if (c) takeReceived(c, placed);
    else skipped += 1;
  }

  const errors = [error];
  for (const [which, file] of /** @type {const} */ ([['sent', sent], ['received', received]])) {
    if (file.truncated) errors.push(`the ${which} file is cut short or corrupt after ${file.packets.length} packets`);
  }
  // `all` is in the order of each connection's first sent packet, the sent file's order.
  return { connections: all.map((c) => c.record), originEpochMs: originUs ? originUs / 1000 : null, skipped, error: errors.filter(Boolean).join('; ') || null };
}

/**
 * Reads `<stem>.sent.pcapng` and `<stem>.received.pcapng`, for connectionsOf. A file that cannot
 * be read or is not pcapng reads as empty, and `error` names it.
 * @param {string} stem
 * @returns {{ sent: CaptureFile, received: CaptureFile, error: string|null }}
 */
export function readCaptureFiles(stem) {
  /** @type {string[]} */
  const errors = [];
  /** @param {'sent'|'received'} which @returns {CaptureFile} */
  const read = (which) => {
    const file = `${stem}.${which}.pcapng`;
    try {
      return readPcapng(fs.readFileSync(file));
    } catch (err) {
      errors.push(`${file}: ${/** @type {Error} */ (err).message}`);
      return { interfaces: [], packets: [], truncated: false };
    }
  };
  const sent = read('sent');
  const received = read('received');
  return { sent, received, error: errors.length ? errors.join('; ') : null };
}
