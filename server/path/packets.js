// The packet network's step on the path, per direction: a packet is either carried unshaped (the
// lab UI's traffic), dropped at a full queue, or put on the path (direction.js: paced at the
// rate, arriving one one-way delay after it was sent) and then lost on the wire (loss.js) or
// delivered. Loss comes after the queue, as on a lossy last hop: a lost packet has used its share
// of the path.
import { createLoss } from './loss.js';

/**
 * @param {{ send(bytes: number, deliver: () => void): boolean, hasRoom(): boolean }} direction one direction of a path
 * @param {() => { loss: number, burst: { p: number, r: number } | null }} conditions in %, read per packet
 * @param {() => number} [random] uniform in [0, 1): tests give their own
 */
export function createPacketDirection(direction, conditions, random = Math.random) {
  // onLink: packets on the path now (sent, not yet delivered or lost): 0 on a quiet path.
  const counters = { delivered: 0, deliveredBytes: 0, droppedByLoss: 0, droppedByQueue: 0, unshaped: 0, onLink: 0 };
  const loss = createLoss(conditions, random);

  return {
    counters,
    /** Restarts the loss from seeds (server/path/loss.js seed). @param {{ random: number, burst: number }} seeds */
    seedLoss: (seeds) => loss.seed(seeds),
    /**
     * Carries one packet; `deliver()` puts it out of the other TUN device. Returns its fate, which
     * a capture marks (server/packet/capture.js): 'loss' and 'queue' are the causes of a drop.
     * @param {number} bytes @param {() => void} deliver
     * @param {{ shaped?: boolean }} [o]  shaped: false for what the path leaves alone (the lab UI's traffic)
     * @returns {'unshaped'|'queue'|'loss'|'onLink'}
     */
    carry(bytes, deliver, { shaped = true } = {}) {
      if (!shaped) {
        counters.unshaped += 1;
        deliver();
        return 'unshaped';
      }
      if (!direction.hasRoom()) {
        counters.droppedByQueue += 1;
        return 'queue';
      }
      counters.onLink += 1;
      if (loss.lost()) {
        counters.droppedByLoss += 1;
        direction.send(bytes, () => (counters.onLink -= 1));
        return 'loss';
      }
      direction.send(bytes, () => {
        counters.onLink -= 1;
        counters.delivered += 1;
        counters.deliveredBytes += bytes;
        deliver();
      });
      return 'onLink';
    },
  };
}
