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
/** @typedef {{ down: number, up: number }} PerDirection */

/**
 * @typedef {object} ConnectionRecord
 * @property {'tcp'|'udp'} transport
 * @property {number} serverPort
 * @property {number} clientPort
 * @property {number} firstMs  its first packet in the sent file, ms after the sent file's first packet
 * @property {number} lastMs  its last packet in either file, on the same clock
 * @property {{ startMs: number|null, replyMs: number|null, handshakeMs: number|null }} handshake
 *   startMs: the client's first SYN (TCP) or first long-header datagram, its Initial (QUIC), as it
 *   entered the path, on the firstMs clock; replyMs, after startMs: the browser side received the
 *   first SYN-ACK (TCP) or the first datagram from the server starting with a long header (QUIC);
 *   handshakeMs, after startMs: the browser side received the first server payload sent after the
 *   client's first payload (TCP; over TLS the start of the server's first flight) or the first
 *   datagram from the server starting with a short (1-RTT) header (QUIC). null: not seen
 * @property {PerDirection} packets  in the sent file, dropped ones included
 * @property {PerDirection} bytes  transport payload in the sent file (resends and drops included), by length on the wire
 * @property {{ loss: PerDirection, queue: PerDirection }} dropped  by the path's cause
 * @property {PerDirection|null} retransmissions  TCP: sent segments (payload, SYN or FIN) starting
 *   below the highest sequence number already sent that way; null for UDP
 * @property {number|null} longestStallMs  the longest gap between two packets the browser side
 *   received down that moved its in-order data forward (TCP: new bytes its application could
 *   read) or between any two it received down (UDP); null with fewer than two
 * @property {Array<{ atMs: number, dir: Direction, kind: 'loss'|'queue'|'retransmission' }>} marks  in the sent file's order
 * @property {boolean} marksCut  more than maxMarks marks: the first maxMarks are kept
 * @property {import('../../runner/netlog.js').NetLogConnection|null} [netlog]  what Chromium's NetLog
 *   says of the same connection (same transport and ports: runner/netlog.js withNetLog): ALPN, TLS
 *   version, resumption, 0-RTT, QUIC's own loss count; null where the NetLog has none; absent
 *   where no NetLog was read
 */

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
 * The connections of a run's capture, in the order of their first packet.
 * @param {{ sent: CaptureFile, received: CaptureFile, error?: string|null }} files  error: one
 *   from reading them (readCaptureFiles), passed on
 * @returns {{ connections: ConnectionRecord[], skipped: number, error: string|null }}  skipped:
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
    const syn = (s.flags & tcpFlags.syn) !== 0;
    const fin = (s.flags & tcpFlags.fin) !== 0;
    const clientSyn = s.transport === 'tcp' && dir === 'up' && syn && !(s.flags & tcpFlags.ack);
    let c = byTuple.get(key)?.at(-1);
    // A SYN with the same ISN is its connection's own resend; with another, the ports' next connection.
    if (!c || (clientSyn && c.clientIsn !== s.seq)) {
      c = newConnection(s, dir, atMs);
      byTuple.set(key, [...(byTuple.get(key) ?? []), c]); // a new array only per connection, not per packet
      all.push(c);
    }
    const r = c.record;
    r.lastMs = atMs;
    r.packets[dir] += 1;
    r.bytes[dir] += s.payloadBytes;
    if (p.comment === dropComments.loss || p.comment === dropComments.queue) {
      const cause = p.comment === dropComments.loss ? 'loss' : 'queue';
      r.dropped[cause][dir] += 1;
      mark(c, atMs, dir, cause);
    }
    if (clientSyn) {
      c.clientIsn = s.seq;
      r.handshake.startMs ??= atMs;
    }
    if (s.transport === 'udp' && dir === 'up' && s.quicHeader === 'long') r.handshake.startMs ??= atMs;
    if (dir === 'up' && s.payloadBytes > 0) c.clientDataMs ??= atMs;
    if (!r.retransmissions) continue; // UDP: no sequence numbers to read
    const way = c.tcp[dir];
    way.base ??= s.seq; // a connection whose SYN the capture missed counts from its first segment
    const start = offsetOf(s.seq, way.base, way.sentEnd);
    // SYN and FIN take a sequence number each, so their resends count as a payload's do.
    const extent = s.payloadBytes + (syn ? 1 : 0) + (fin ? 1 : 0);
    if (!extent) continue;
    if (s.payloadBytes) way.dataStart ??= start + (syn ? 1 : 0);
    // A keep-alive (at most one byte at the last sequence number sent) is no resend; tshark agrees.
    const keepAlive = !syn && !fin && s.payloadBytes <= 1 && start === way.sentEnd - 1;
    if (start < way.sentEnd && !keepAlive) {
      r.retransmissions[dir] += 1;
      mark(c, atMs, dir, 'retransmission');
    }
    way.sentEnd = Math.max(way.sentEnd, start + extent);
  }

  for (const p of received.packets) {
    const placed = place(received, p);
    if (!placed) continue;
    const { s, dir, key, atMs } = placed;
    // Of the connections on these ports, the latest to have started by the time it arrived.
    const c = byTuple.get(key)?.findLast((candidate) => candidate.record.firstMs <= atMs);
    if (!c) {
      skipped += 1;
      continue;
    }
    const r = c.record;
    r.lastMs = Math.max(r.lastMs, atMs);
    if (dir !== 'down') continue;
    const { startMs } = r.handshake;
    let progress = true; // for UDP every datagram down counts
    if (s.transport === 'tcp') {
      if (startMs !== null && s.flags & tcpFlags.syn && s.flags & tcpFlags.ack) r.handshake.replyMs ??= atMs - startMs;
      if (startMs !== null && s.payloadBytes > 0 && c.clientDataMs !== null && atMs > c.clientDataMs) r.handshake.handshakeMs ??= atMs - startMs;
      progress = s.payloadBytes > 0 && inOrderGain(c.tcp.down, s);
    } else if (startMs !== null && s.quicHeader === 'long') r.handshake.replyMs ??= atMs - startMs;
    else if (startMs !== null && s.quicHeader === 'short') r.handshake.handshakeMs ??= atMs - startMs;
    if (!progress) continue;
    if (c.lastProgressMs !== null) r.longestStallMs = Math.max(r.longestStallMs ?? 0, atMs - c.lastProgressMs);
    c.lastProgressMs = atMs;
  }

  const errors = [error];
  for (const [which, file] of /** @type {const} */ ([['sent', sent], ['received', received]])) {
    if (file.truncated) errors.push(`the ${which} file is cut short or corrupt after ${file.packets.length} packets`);
  }
  // `all` is in the order of each connection's first sent packet, the sent file's order.
  return { connections: all.map((c) => c.record), skipped, error: errors.filter(Boolean).join('; ') || null };
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
