// The bottleneck of the lab link: one access link that every connection through the lab's
// twin ports shares, as a home or mobile link is shared by all of a browser's connections.
// Each direction is a FIFO queue served at the link's bandwidth; a piece leaves the queue when
// the link has sent everything ahead of it and arrives one one-way delay (half the round trip)
// later. Senders are told to wait while the queue holds more than its limit, as TCP's flow
// control would hold them back; a datagram sender drops instead (hasRoom). It knows nothing of
// sockets: a relay hands it pieces and a function that delivers each one.
import { linkLimits } from '../config.js';

const serialiseMs = (bytes, bps) => (bps > 0 ? (bytes / bps) * 1000 : 0);

/**
 * One direction of the link. Its interface is all a user needs, whether a piece is a slice of a
 * TCP stream (tcp-relay.js), a datagram (udp-relay.js) or an IP packet (pacing: send(); droptail
 * in bytes: hasRoom() before send()):
 *  - send(bytes, deliver, owner?) puts a piece on the link; deliver() runs when it arrives.
 *  - hasRoom() / whenRoom(callback): whether the queue is under its limits / a call once it is.
 *  - drop(owner): the pieces of `owner` still queued leave it (their destination has gone), and
 *    the link time they held goes to the pieces behind them.
 *  - retime(): the conditions changed; every piece not yet sent is sent again under them.
 *  - sliceBytes(), queued(), clear().
 * A queued piece costs its bytes plus linkLimits.queuedPieceBytes (its bookkeeping) against
 * linkLimits.maxInFlightBytes, so a flood of 1-byte pieces is bounded in memory, not only in bytes.
 * @param {() => { bps: number, oneWayMs: number, queueBytes: number }} conditions read on every
 *   piece, so a change applies to the next piece of every open connection
 */
function createDirection(conditions) {
  // { startAt, sentAt, at, bytes, deliver, owner }: the link sends the piece from startAt to
  // sentAt; it arrives at `at`. Both times never decrease along the queue, so the head is due first.
  let queue = [];
  let head = 0;
  let linkFreeAt = 0; // when the link will have sent everything queued so far
  let lastAt = 0;
  let costBytes = 0; // what the queued pieces cost: their bytes and their bookkeeping
  const owners = new Map(); // owner → pieces of it still queued
  let deliveryTimer = null;
  let roomTimer = null;
  const waiting = new Set(); // callbacks to call once there is room again

  const costOf = (piece) => piece.bytes + linkLimits.queuedPieceBytes;
  const backlogBytes = (now, bps) => (bps > 0 ? (Math.max(0, linkFreeAt - now) * bps) / 1000 : 0);
  const roomFor = (now, share) => {
    const { bps, queueBytes } = conditions();
    return backlogBytes(now, bps) <= queueBytes * share && costBytes <= linkLimits.maxInFlightBytes * share;
  };

  function armDelivery() {
    if (deliveryTimer !== null || head === queue.length) return;
    deliveryTimer = setTimeout(deliverDue, Math.max(0, queue[head].at - performance.now()));
  }

  function rearm() {
    clearTimeout(deliveryTimer);
    deliveryTimer = null;
    clearTimeout(roomTimer);
    roomTimer = null;
    armDelivery();
    wakeWaiting();
  }

  function forget(piece) {
    costBytes -= costOf(piece);
    if (piece.owner === undefined) return;
    const left = owners.get(piece.owner) - 1;
    if (left) owners.set(piece.owner, left);
    else owners.delete(piece.owner);
  }

  function deliverDue() {
    deliveryTimer = null;
    // Half a millisecond early is on time: timers fire on whole milliseconds at best.
    const now = performance.now() + 0.5;
    while (head < queue.length && queue[head].at <= now) {
      const piece = queue[head];
      queue[head++] = undefined;
      forget(piece);
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

  // Hysteresis: a paused sender resumes when the queue is down to half its limit, so the link
  // never runs dry while the sender's next bytes are on their way.
  function wakeWaiting() {
    if (!waiting.size) return;
    const now = performance.now();
    if (roomFor(now, 0.5)) {
      clearTimeout(roomTimer);
      roomTimer = null;
      const callbacks = [...waiting];
      waiting.clear();
      for (const callback of callbacks) callback();
      return;
    }
    // The backlog drains at a known pace: wake when it reaches half the limit. (The cost falls
    // only on delivery, which calls this again.)
    const { bps, queueBytes } = conditions();
    if (roomTimer === null && bps > 0) {
      const halfAt = linkFreeAt - serialiseMs(queueBytes / 2, bps);
      roomTimer = setTimeout(() => {
        roomTimer = null;
        wakeWaiting();
      }, Math.max(1, halfAt - now));
    }
  }

  /**
   * Sends again, under the conditions now, every piece the link has not finished sending: a
   * piece on the wire keeps its arrival, the one being sent sends its remaining share at the
   * rate now, those behind it follow. Order is kept.
   */
  function reschedule() {
    const now = performance.now();
    const { bps, oneWayMs } = conditions();
    linkFreeAt = now;
    lastAt = 0;
    for (let i = head; i < queue.length; i++) {
      const piece = queue[i];
      if (piece.sentAt > now) {
        const sentShare = piece.startAt < now ? (now - piece.startAt) / (piece.sentAt - piece.startAt) : 0;
        piece.startAt = Math.max(now, linkFreeAt);
        piece.sentAt = piece.startAt + serialiseMs(piece.bytes * (1 - sentShare), bps);
        piece.at = piece.sentAt + oneWayMs;
        linkFreeAt = piece.sentAt;
      }
      piece.at = lastAt = Math.max(piece.at, lastAt);
    }
    rearm();
  }

  return {
    /**
     * Puts `bytes` on the link; `deliver` is called when they arrive. Pieces arrive in the
     * order they were sent. With no bandwidth limit, no delay and nothing queued, `deliver`
     * runs at once (the pass-through of "no throttling").
     * @param {number} bytes
     * @param {() => void} deliver
     * @param {unknown} [owner] what drop(owner) removes the piece with (e.g. the socket it is for)
     * @returns {boolean} false when the queue is over its limit: the sender should wait (whenRoom)
     */
    send(bytes, deliver, owner) {
      const now = performance.now();
      const { bps, oneWayMs } = conditions();
      if (bps <= 0 && oneWayMs === 0 && head === queue.length) {
        deliver();
        return true;
      }
      const startAt = Math.max(now, linkFreeAt);
      linkFreeAt = startAt + serialiseMs(bytes, bps);
      lastAt = Math.max(linkFreeAt + oneWayMs, lastAt);
      const piece = { startAt, sentAt: linkFreeAt, at: lastAt, bytes, deliver, owner };
      queue.push(piece);
      costBytes += costOf(piece);
      if (owner !== undefined) owners.set(owner, (owners.get(owner) ?? 0) + 1);
      armDelivery();
      return roomFor(now, 1);
    },
    /** Calls `callback` once the queue has room again; returns a function that cancels it. */
    whenRoom(callback) {
      waiting.add(callback);
      wakeWaiting();
      return () => waiting.delete(callback);
    },
    hasRoom: () => roomFor(performance.now(), 1),
    /** How long a slice of the link is: about sliceMs of its time, within the segment bounds. */
    sliceBytes() {
      const { bps } = conditions();
      if (bps <= 0) return linkLimits.maxSliceBytes;
      const bytes = Math.round((bps * linkLimits.sliceMs) / 1000);
      return Math.min(linkLimits.maxSliceBytes, Math.max(linkLimits.minSliceBytes, bytes));
    },
    /** Removes the pieces of `owner` still queued; the link time they held goes to the rest. */
    drop(owner) {
      if (!owners.has(owner)) return;
      const now = performance.now();
      let unsent = false;
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
    /** What is queued: pieces, their bytes, and what they cost against maxInFlightBytes. */
    queued() {
      let bytes = 0;
      for (let i = head; i < queue.length; i++) bytes += queue[i].bytes;
      return { pieces: queue.length - head, bytes, costBytes };
    },
    /** Drops everything queued and every timer (the link is closing; its sockets are gone). */
    clear() {
      clearTimeout(deliveryTimer);
      clearTimeout(roomTimer);
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

/**
 * @param {() => import('./conditions.js').LinkConditions} current the conditions now in force
 * @returns {{ down, up, retime(): void, clear(): void }} down: server → browser, up: browser →
 *   server; retime() after the conditions change
 */
export function createBottleneck(current) {
  const direction = (bpsKey) =>
    createDirection(() => {
      const c = current();
      return { bps: c[bpsKey], oneWayMs: c.rttMs / 2, queueBytes: c.queueBytes };
    });
  const down = direction('downloadBps');
  const up = direction('uploadBps');
  return {
    down,
    up,
    retime() {
      down.retime();
      up.retime();
    },
    clear() {
      down.clear();
      up.clear();
    },
  };
}
