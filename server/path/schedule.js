// One direction's timing: the rate stage (rate.js) and the delay stage (delay.js) in series. A
// piece starts to be sent when the rate has sent everything ahead of it, and arrives one one-way
// delay after it is sent, in order. The rate is deterministic (constant or a trace), so a piece's
// times are known when it enters: the queue is the pieces whose sending has not started.
import { createDelayLine } from './delay.js';

/** @typedef {import('./rate.js').Rate} Rate */
/** @typedef {import('./fifo.js').Piece} Piece */

export function createSchedule() {
  let linkFreeAt = 0; // when the rate will have sent everything queued so far
  const delay = createDelayLine();
  return {
    /** When a piece entering at `now` starts to be sent. @param {number} now */
    startAt: (now) => Math.max(now, linkFreeAt),
    /**
     * Books the link for a piece of `bytes` starting at `startAt`: when it is sent and when it arrives.
     * @param {Rate} rate @param {number} oneWayMs @param {number} startAt @param {number} bytes
     */
    book(rate, oneWayMs, startAt, bytes) {
      linkFreeAt = rate.finishAt(startAt, bytes);
      return { sentAt: linkFreeAt, at: delay.inOrder(linkFreeAt + oneWayMs) };
    },
    /** What waits to be sent at `now`, in bytes. @param {Rate} rate @param {number} now */
    backlogBytes: (rate, now) => rate.bytesBetween(now, linkFreeAt),
    /** When the backlog will be down to `bytes`. @param {Rate} rate @param {number} bytes */
    downToAt: (rate, bytes) => rate.timeBefore(linkFreeAt, bytes),
    /**
     * Sends again, under the conditions now, every piece the link has not finished sending: a
     * piece on the wire keeps its arrival, the one being sent sends its remaining share at the
     * rate now, those behind it follow. Order is kept.
     * @param {Piece[]} pieces  in order @param {Rate} rate @param {number} oneWayMs @param {number} now
     */
    retime(pieces, rate, oneWayMs, now) {
      rate.restart();
      linkFreeAt = now;
      delay.restart();
      for (const piece of pieces) {
        if (piece.sentAt > now) {
          const sentShare = piece.startAt < now ? (now - piece.startAt) / (piece.sentAt - piece.startAt) : 0;
          piece.startAt = Math.max(now, linkFreeAt);
          piece.sentAt = rate.finishAt(piece.startAt, Math.ceil(piece.bytes * (1 - sentShare)));
          piece.at = piece.sentAt + oneWayMs;
          linkFreeAt = piece.sentAt;
        }
        piece.at = delay.inOrder(piece.at);
      }
    },
    clear() {
      linkFreeAt = 0;
      delay.restart();
    },
  };
}
