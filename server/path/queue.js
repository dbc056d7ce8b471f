// The path's queue, its disciplines behind one interface (as mahimahi keeps droptail, CoDel, PIE
// and RED behind its AbstractPacketQueue). The buffer's limits hold at the tail for every
// discipline: a piece enters while what waits to be sent is within the queue's limit; past it a
// packet is dropped and a stream's sender is held back (as TCP's flow control would hold it), to
// resume once the queue is down to half (hysteresis, so the path never runs dry while the
// sender's next bytes are on their way). The discipline decides at the head whether a piece is
// sent or dropped. The rate is known in advance (schedule.js), so when a piece enters, when it
// will reach the head and how long it will have waited are known: the discipline decides then,
// in the order the pieces reach the head, which is what it would decide at the head.
import { createCodel } from './codel.js';

/**
 * A piece as it reaches the head of the queue.
 * @typedef {object} Head
 * @property {number} at  when, in performance.now() milliseconds
 * @property {number} sojournMs  how long it waited in the queue
 * @property {number} aheadBytes  what waited to be sent ahead of it when it entered
 */

/**
 * @typedef {object} QueueDiscipline
 * @property {(head: Head) => boolean} drops  whether the piece at the head is dropped instead of
 *   sent; called once per piece, in order
 */

/**
 * @param {{ backlogBytes: number, costBytes: number }} now what waits to be sent, and what every
 *   queued piece costs in memory (its bytes and its bookkeeping)
 * @param {{ queueBytes: number, maxCostBytes: number }} limits
 * @param {number} share 1 to admit, resumeShare to resume a held sender
 */
export const bufferHasRoom = ({ backlogBytes, costBytes }, { queueBytes, maxCostBytes }, share) =>
  backlogBytes <= queueBytes * share && costBytes <= maxCostBytes * share;

/** The share of the queue a held sender waits for. */
export const resumeShare = 0.5;

/** The disciplines conditions may name (conditions.js `queue`); the first is the default. */
export const queueNames = /** @type {const} */ (['droptail', 'codel']);
/** @typedef {(typeof queueNames)[number]} QueueName */

/** @type {Record<QueueName, () => QueueDiscipline>} a new one per direction: CoDel keeps state */
export const queueDisciplines = {
  // Droptail sends every piece that entered: the buffer's limit is its only drop.
  droptail: () => ({ drops: () => false }),
  codel: () => createCodel(),
};
