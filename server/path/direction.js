// One direction of the emulated path, composed of peer stages: a FIFO of pieces (fifo.js) held
// within the queue's limits and sent or dropped at its head by the discipline it is given
// (queue.js), sent at the direction's rate and arriving one one-way delay later (schedule.js:
// rate.js and delay.js in series), delivered when due (arrivals.js), and senders held at a full
// queue (waiters.js). It knows nothing of sockets or packets: the lab link's relays hand it
// slices of TCP streams and datagrams, the packet network's emulator IP packets (packets.js),
// each with a function that delivers it.
import { createArrivals } from './arrivals.js';
import { createFifo } from './fifo.js';
import { pathLimits } from './limits.js';
import { bufferHasRoom, resumeShare } from './queue.js';
import { createSchedule } from './schedule.js';
import { createWaiters } from './waiters.js';

/**
 * What a direction reads on every piece: its rate, its one-way delay, its queue's limit and the
 * queue discipline it is given (queue.js: droptail, CoDel).
 * @typedef {{ rate: import('./rate.js').Rate, oneWayMs: number, queueBytes: number, queue: import('./queue.js').QueueDiscipline }} DirectionConditions
 */

/**
 * How long a slice of a stream is: about sliceMs of the rate's time, within the segment bounds.
 * @param {import('./rate.js').Rate} rate
 */
function sliceBytesAt(rate) {
  if (rate.meanBps <= 0) return pathLimits.maxSliceBytes;
  const bytes = Math.round((rate.meanBps * pathLimits.sliceMs) / 1000);
  return Math.min(pathLimits.maxSliceBytes, Math.max(pathLimits.minSliceBytes, bytes));
}

/**
 * One direction of the path. Its interface is all a user needs, whether a piece is a slice of a
 * TCP stream (link/tcp-relay.js), a datagram (link/udp-relay.js) or an IP packet (packets.js:
 * hasRoom() before send()):
 *  - send(bytes, deliver, owner?, dropped?) puts a piece on the link; deliver() runs when it
 *    arrives, dropped() instead when the discipline drops it at the head.
 *  - hasRoom() / whenRoom(callback): whether the queue is under its limits / a call once it is.
 *  - drop(owner): the pieces of `owner` still queued leave it (their destination has gone), and
 *    the link time they held goes to the pieces behind them.
 *  - retime(): the conditions changed; every piece not yet sent is sent again under them.
 *  - sliceBytes(), queued(), clear().
 *  - counters: pieces and bytes delivered since the start.
 * A queued piece costs its bytes plus pathLimits.queuedPieceBytes (its bookkeeping) against
 * pathLimits.maxInFlightBytes, so a flood of 1-byte pieces is bounded in memory, not only in bytes.
 * @param {() => DirectionConditions} conditions  read on every piece, so a change applies to the
 *   next piece of every open connection
 */
export function createDirection(conditions) {
  const fifo = createFifo((piece) => piece.bytes + pathLimits.queuedPieceBytes);
  const schedule = createSchedule();
  /** @param {number} now @param {number} share */
  const roomFor = (now, share) => {
    const { rate, queueBytes } = conditions();
    return bufferHasRoom({ backlogBytes: schedule.backlogBytes(rate, now), costBytes: fifo.costBytes() }, { queueBytes, maxCostBytes: pathLimits.maxInFlightBytes }, share);
  };
  const waiters = createWaiters(
    (now) => roomFor(now, resumeShare),
    () => {
      const { rate, queueBytes } = conditions();
      return rate.meanBps > 0 ? schedule.downToAt(rate, queueBytes * resumeShare) : null;
    },
  );
  const counters = { delivered: 0, deliveredBytes: 0 };
  /** @param {number} bytes */
  const count = (bytes) => {
    counters.delivered += 1;
    counters.deliveredBytes += bytes;
  };
  const arrivals = createArrivals(fifo, (piece) => count(piece.bytes), () => waiters.wake());
  function rearm() {
    arrivals.rearm();
    waiters.rearm();
  }
  /** Sends again, under the conditions now, what the link has not finished sending (schedule.js). */
  function retime() {
    const { rate, oneWayMs } = conditions();
    schedule.retime(fifo.held(), rate, oneWayMs, performance.now());
    rearm();
  }

  return {
    /**
     * Puts `bytes` on the path; `deliver` is called when they arrive. Pieces arrive in the
     * order they were sent. With no rate limit, no delay and nothing queued, `deliver` runs at
     * once (the pass-through of "no throttling"). When the discipline drops the piece at the
     * head, `dropped` is called instead, at once (its fate is known when it enters: queue.js); a
     * stream's slices meet no such drop, as conditions.js gives a dropping discipline only to a
     * network that loses packets.
     * @param {number} bytes
     * @param {() => void} deliver
     * @param {unknown} [owner] what drop(owner) removes the piece with (e.g. the socket it is for)
     * @param {() => void} [dropped]
     * @returns {boolean} false when the queue is over its limit: the sender should wait (whenRoom)
     */
    send(bytes, deliver, owner, dropped) {
      const now = performance.now();
      const { rate, oneWayMs, queue } = conditions();
      if (rate.meanBps <= 0 && oneWayMs === 0 && !fifo.first()) {
        count(bytes);
        deliver();
        return true;
      }
      const startAt = schedule.startAt(now);
      if (queue.drops({ at: startAt, sojournMs: startAt - now, aheadBytes: schedule.backlogBytes(rate, now) })) dropped?.();
      else {
        fifo.push({ startAt, ...schedule.book(rate, oneWayMs, startAt, bytes), bytes, deliver, owner });
        arrivals.arm();
      }
      return roomFor(now, 1);
    },
    /** Calls `callback` once the queue has room again; returns a function that cancels it. @param {() => void} callback */
    whenRoom: (callback) => waiters.add(callback),
    hasRoom: () => roomFor(performance.now(), 1),
    sliceBytes: () => sliceBytesAt(conditions().rate),
    /**
     * Removes the pieces of `owner` still queued; the link time they held goes to the rest.
     * @param {unknown} owner
     */
    drop(owner) {
      if (!fifo.has(owner)) return;
      const now = performance.now();
      // A piece already on the wire held no link time from those behind it.
      if (fifo.remove(owner).some((piece) => piece.sentAt > now)) retime();
      else rearm();
    },
    /** The conditions changed: what is queued pays them from now on (schedule.js retime). */
    retime,
    counters,
    /** What is queued: pieces, their bytes, and what they cost against maxInFlightBytes. */
    queued: () => fifo.queued(),
    /** Drops everything queued and every timer (the link is closing; its sockets are gone). */
    clear() {
      arrivals.stop();
      fifo.clear();
      schedule.clear();
      waiters.clear();
    },
  };
}
