// The path's queue discipline: droptail in bytes. A piece enters while what waits to be sent is
// within the queue's limit; past it a packet is dropped and a stream's sender is held back (as
// TCP's flow control would hold it), to resume once the queue is down to half (hysteresis, so the
// path never runs dry while the sender's next bytes are on their way). Another discipline (CoDel,
// RED) would take the same inputs and answer the same two questions.

/**
 * @param {{ backlogBytes: number, costBytes: number }} now what waits to be sent, and what every
 *   queued piece costs in memory (its bytes and its bookkeeping)
 * @param {{ queueBytes: number, maxCostBytes: number }} limits
 * @param {number} share 1 to admit, 0.5 to resume a held sender
 */
export const droptailHasRoom = ({ backlogBytes, costBytes }, { queueBytes, maxCostBytes }, share) =>
  backlogBytes <= queueBytes * share && costBytes <= maxCostBytes * share;

/** The share of the queue a held sender waits for. */
export const resumeShare = 0.5;
