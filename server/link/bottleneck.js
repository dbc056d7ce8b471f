// The bottleneck of the lab link: one access link that every connection through the lab's
// twin ports shares, as a home or mobile link is shared by all of a browser's connections.
// Each direction is a FIFO queue served at the link's bandwidth; a byte leaves the queue when
// the link has sent everything ahead of it and arrives one one-way delay (half the round trip)
// later. Senders are told to wait while the queue holds more than its limit, as TCP's flow
// control would hold them back. It knows nothing of sockets: a relay hands it pieces and a
// function that delivers each one, so a TCP relay and, later, a datagram relay can share it.
import { linkLimits } from '../config.js';

/**
 * One direction of the link.
 * @param {() => { bps: number, oneWayMs: number, queueBytes: number }} conditions read on every
 *   piece, so a change applies to the next piece of every open connection
 */
function createDirection(conditions) {
  const queue = []; // { at, bytes, deliver }, `at` never decreasing, so the head is due first
  let head = 0;
  let linkFreeAt = 0; // when the link will have sent everything queued so far
  let lastAt = 0;
  let inFlightBytes = 0; // queued or on their way, not yet delivered
  let deliveryTimer = null;
  let roomTimer = null;
  const waiting = new Set(); // callbacks to call once there is room again

  const backlogBytes = (now, bps) => (bps > 0 ? (Math.max(0, linkFreeAt - now) * bps) / 1000 : 0);
  const roomFor = (now, share) => {
    const { bps, queueBytes } = conditions();
    return backlogBytes(now, bps) <= queueBytes * share && inFlightBytes <= linkLimits.maxInFlightBytes * share;
  };

  function armDelivery() {
    if (deliveryTimer !== null || head === queue.length) return;
    deliveryTimer = setTimeout(deliverDue, Math.max(0, queue[head].at - performance.now()));
  }

  function deliverDue() {
    deliveryTimer = null;
    // Half a millisecond early is on time: timers fire on whole milliseconds at best.
    const now = performance.now() + 0.5;
    while (head < queue.length && queue[head].at <= now) {
      const piece = queue[head];
      queue[head++] = undefined;
      inFlightBytes -= piece.bytes;
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
    // The backlog drains at a known pace: wake when it reaches half the limit. (In-flight bytes
    // fall only on delivery, which calls this again.)
    const { bps, queueBytes } = conditions();
    if (roomTimer === null && bps > 0) {
      const halfAt = linkFreeAt - ((queueBytes / 2) / bps) * 1000;
      roomTimer = setTimeout(() => {
        roomTimer = null;
        wakeWaiting();
      }, Math.max(1, halfAt - now));
    }
  }

  return {
    /**
     * Puts `bytes` on the link; `deliver` is called when they arrive. Pieces arrive in the
     * order they were sent. With no bandwidth limit, no delay and nothing queued, `deliver`
     * runs at once (the pass-through of "no throttling").
     * @returns {boolean} false when the queue is over its limit: the sender should wait (whenRoom)
     */
    send(bytes, deliver) {
      const now = performance.now();
      const { bps, oneWayMs } = conditions();
      if (bps <= 0 && oneWayMs === 0 && head === queue.length) {
        deliver();
        return true;
      }
      let sentAt = now;
      if (bps > 0) {
        sentAt = Math.max(now, linkFreeAt) + (bytes / bps) * 1000;
        linkFreeAt = sentAt;
      }
      lastAt = Math.max(sentAt + oneWayMs, lastAt);
      queue.push({ at: lastAt, bytes, deliver });
      inFlightBytes += bytes;
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
    /** Drops everything queued and every timer (the link is closing; its sockets are gone). */
    clear() {
      clearTimeout(deliveryTimer);
      clearTimeout(roomTimer);
      deliveryTimer = roomTimer = null;
      queue.length = 0;
      head = 0;
      inFlightBytes = 0;
      linkFreeAt = lastAt = 0;
      waiting.clear();
    },
  };
}

/**
 * @param {() => import('./conditions.js').LinkConditions} current the conditions now in force
 * @returns {{ down, up, clear(): void }} down: server → browser, up: browser → server
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
    clear() {
      down.clear();
      up.clear();
    },
  };
}
