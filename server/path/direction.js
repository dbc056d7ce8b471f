// One direction of the emulated path: a FIFO queue (queue.js, droptail in bytes) served at the
// direction's rate (rate.js: constant or a trace); a piece leaves the queue when the rate has sent
// everything ahead of it and arrives one one-way delay (delay.js) later. It knows nothing of
// sockets or packets: the lab link's relays hand it slices of TCP streams and datagrams, the
// packet network's emulator IP packets (packets.js), each with a function that delivers it.
import { pathLimits } from '../config.js';
import { droptailHasRoom, resumeShare } from './queue.js';

/**
 * A piece on the path: the link sends it from startAt to sentAt; it arrives at `at`.
 * @typedef {object} Piece
 * @property {number} startAt
 * @property {number} sentAt
 * @property {number} at
 * @property {number} bytes
 * @property {() => void} deliver
 * @property {unknown} owner  what drop(owner) removes it with; undefined for none
 */

/**
 * One direction of the path. Its interface is all a user needs, whether a piece is a slice of a
 * TCP stream (link/tcp-relay.js), a datagram (link/udp-relay.js) or an IP packet (packets.js:
 * hasRoom() before send()):
 *  - send(bytes, deliver, owner?) puts a piece on the link; deliver() runs when it arrives.
 *  - hasRoom() / whenRoom(callback): whether the queue is under its limits / a call once it is.
 *  - drop(owner): the pieces of `owner` still queued leave it (their destination has gone), and
 *    the link time they held goes to the pieces behind them.
 *  - retime(): the conditions changed; every piece not yet sent is sent again under them.
 *  - sliceBytes(), queued(), clear().
 *  - counters: pieces and bytes delivered since the start.
 * A queued piece costs its bytes plus pathLimits.queuedPieceBytes (its bookkeeping) against
 * pathLimits.maxInFlightBytes, so a flood of 1-byte pieces is bounded in memory, not only in bytes.
 * @param {() => { rate: import('./rate.js').Rate, oneWayMs: number, queueBytes: number }} conditions
 *   read on every piece, so a change applies to the next piece of every open connection
 */
export function createDirection(conditions) {
  // { startAt, sentAt, at, bytes, deliver, owner }: the link sends the piece from startAt to
  // sentAt; it arrives at `at`. Both times never decrease along the queue, so the head is due first.
  /** @type {Piece[]} slots before `head` are delivered and emptied */
  let queue = [];
  let head = 0;
  let linkFreeAt = 0; // when the rate will have sent everything queued so far
  let lastAt = 0;
  let costBytes = 0; // what the queued pieces cost: their bytes and their bookkeeping
  /** @type {Map<unknown, number>} */
  const owners = new Map(); // owner → pieces of it still queued
  /** @type {NodeJS.Timeout|null} */
  let deliveryTimer = null;
  /** @type {NodeJS.Timeout|null} */
  let roomTimer = null;
  /** @type {Set<() => void>} */
  const waiting = new Set(); // callbacks to call once there is room again

  const counters = { delivered: 0, deliveredBytes: 0 };

  /** @param {Piece} piece */
  const costOf = (piece) => piece.bytes + pathLimits.queuedPieceBytes;
  /** @param {number} now @param {number} share */
  const roomFor = (now, share) => {
    const { rate, queueBytes } = conditions();
    return droptailHasRoom({ backlogBytes: rate.bytesBetween(now, linkFreeAt), costBytes }, { queueBytes, maxCostBytes: pathLimits.maxInFlightBytes }, share);
  };

  function armDelivery() {
    if (deliveryTimer !== null || head === queue.length) return;
    deliveryTimer = setTimeout(deliverDue, Math.max(0, queue[head].at - performance.now()));
  }

  function rearm() {
    clearTimeout(deliveryTimer ?? undefined);
    deliveryTimer = null;
    clearTimeout(roomTimer ?? undefined);
    roomTimer = null;
    armDelivery();
    wakeWaiting();
  }

  /** @param {Piece} piece */
  function forget(piece) {
    costBytes -= costOf(piece);
    if (piece.owner === undefined) return;
    const left = /** @type {number} */ (owners.get(piece.owner)) - 1; // a queued piece's owner is counted
    if (left) owners.set(piece.owner, left);
    else owners.delete(piece.owner);
  }

  function deliverDue() {
    deliveryTimer = null;
    // Half a millisecond early is on time: timers fire on whole milliseconds at best.
    const now = performance.now() + 0.5;
    while (head < queue.length && queue[head].at <= now) {
      const piece = queue[head];
      queue[head++] = /** @type {never} */ (undefined); // emptied for the GC; only slots from head on are read
      forget(piece);
      counters.delivered += 1;
      counters.deliveredBytes += piece.bytes;
      piece.deliver();
    }
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head); // drop the delivered slots now and then, not on every piece
      head = 0;
    }
    armDelivery();
    wakeWaiting();
  }

  // A held sender resumes when the queue is down to its resume share (queue.js).
  function wakeWaiting() {
    if (!waiting.size) return;
    const now = performance.now();
    if (roomFor(now, resumeShare)) {
      clearTimeout(roomTimer ?? undefined);
      roomTimer = null;
      const callbacks = [...waiting];
      waiting.clear();
      for (const callback of callbacks) callback();
      return;
    }
    // The backlog drains at the rate's known pace: wake when it is down to the resume share.
    // (The cost falls only on delivery, which calls this again.)
    const { rate, queueBytes } = conditions();
    if (roomTimer === null && rate.meanBps > 0) {
      const resumeAt = rate.timeBefore(linkFreeAt, queueBytes * resumeShare);
      roomTimer = setTimeout(() => {
        roomTimer = null;
        wakeWaiting();
      }, Math.max(1, resumeAt - now));
    }
  }

  /**
   * Sends again, under the conditions now, every piece the link has not finished sending: a
   * piece on the wire keeps its arrival, the one being sent sends its remaining share at the
   * rate now, those behind it follow. Order is kept.
   */
  function reschedule() {
    const now = performance.now();
    const { rate, oneWayMs } = conditions();
    rate.restart();
    linkFreeAt = now;
    lastAt = 0;
    for (let i = head; i < queue.length; i++) {
      const piece = queue[i];
      if (piece.sentAt > now) {
        const sentShare = piece.startAt < now ? (now - piece.startAt) / (piece.sentAt - piece.startAt) : 0;
        piece.startAt = Math.max(now, linkFreeAt);
        piece.sentAt = rate.finishAt(piece.startAt, Math.ceil(piece.bytes * (1 - sentShare)));
        piece.at = piece.sentAt + oneWayMs;
        linkFreeAt = piece.sentAt;
      }
      piece.at = lastAt = Math.max(piece.at, lastAt);
    }
    rearm();
  }

  return {
    /**
     * Puts `bytes` on the path; `deliver` is called when they arrive. Pieces arrive in the
     * order they were sent. With no rate limit, no delay and nothing queued, `deliver` runs at
     * once (the pass-through of "no throttling").
     * @param {number} bytes
     * @param {() => void} deliver
     * @param {unknown} [owner] what drop(owner) removes the piece with (e.g. the socket it is for)
     * @returns {boolean} false when the queue is over its limit: the sender should wait (whenRoom)
     */
    send(bytes, deliver, owner) {
      const now = performance.now();
      const { rate, oneWayMs } = conditions();
      if (rate.meanBps <= 0 && oneWayMs === 0 && head === queue.length) {
        counters.delivered += 1;
        counters.deliveredBytes += bytes;
        deliver();
        return true;
      }
      const startAt = Math.max(now, linkFreeAt);
      linkFreeAt = rate.finishAt(startAt, bytes);
      lastAt = Math.max(linkFreeAt + oneWayMs, lastAt);
      const piece = { startAt, sentAt: linkFreeAt, at: lastAt, bytes, deliver, owner };
      queue.push(piece);
      costBytes += costOf(piece);
      if (owner !== undefined) owners.set(owner, (owners.get(owner) ?? 0) + 1);
      armDelivery();
      return roomFor(now, 1);
    },
    /**
     * Calls `callback` once the queue has room again; returns a function that cancels it.
     * @param {() => void} callback
     */
    whenRoom(callback) {
      waiting.add(callback);
      wakeWaiting();
      return () => waiting.delete(callback);
    },
    hasRoom: () => roomFor(performance.now(), 1),
    /** How long a slice of a stream is: about sliceMs of the rate's time, within the segment bounds. */
    sliceBytes() {
      const { rate } = conditions();
      if (rate.meanBps <= 0) return pathLimits.maxSliceBytes;
      const bytes = Math.round((rate.meanBps * pathLimits.sliceMs) / 1000);
      return Math.min(pathLimits.maxSliceBytes, Math.max(pathLimits.minSliceBytes, bytes));
    },
    /**
     * Removes the pieces of `owner` still queued; the link time they held goes to the rest.
     * @param {unknown} owner
     */
    drop(owner) {
      if (!owners.has(owner)) return;
      const now = performance.now();
      let unsent = false;
      /** @type {Piece[]} */
      const kept = [];
      for (let i = head; i < queue.length; i++) {
        const piece = queue[i];
        if (piece.owner !== owner) kept.push(piece);
        else {
          unsent ||= piece.sentAt > now;
          forget(piece);
        }
      }
      queue = kept;
      head = 0;
      // A piece already on the wire held no link time from those behind it.
      if (unsent) reschedule();
      else rearm();
    },
    /** The conditions changed: what is queued pays them from now on (reschedule). */
    retime: () => reschedule(),
    counters,
    /** What is queued: pieces, their bytes, and what they cost against maxInFlightBytes. */
    queued() {
      let bytes = 0;
      for (let i = head; i < queue.length; i++) bytes += queue[i].bytes;
      return { pieces: queue.length - head, bytes, costBytes };
    },
    /** Drops everything queued and every timer (the link is closing; its sockets are gone). */
    clear() {
      clearTimeout(deliveryTimer ?? undefined);
      clearTimeout(roomTimer ?? undefined);
      deliveryTimer = roomTimer = null;
      queue = [];
      head = 0;
      costBytes = 0;
      owners.clear();
      linkFreeAt = lastAt = 0;
      waiting.clear();
    },
  };
}
