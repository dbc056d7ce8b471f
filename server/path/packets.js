// The packet network's step on the path, per direction: a packet is either carried unshaped (the
// lab UI's traffic), dropped at a full queue or by the queue's discipline at its head (CoDel), or
// put on the path (direction.js: paced at the rate, arriving one one-way delay after it was sent)
// and then lost on the wire (loss.js) or delivered. Loss comes after the queue, as on a lossy last
// hop: a lost packet has used its share of the path. A packet the receiving device refuses when
// it arrives (server/packet/carry.js writeOrLose) was not delivered: it counts as dropped by the
// receiver, as a host's NIC counts what it could not take.
import { createLoss } from './loss.js';

/**
 * @param {{ send(bytes: number, deliver: () => void, owner?: unknown, dropped?: () => void): unknown, hasRoom(): boolean }} direction
 *   one direction of a path
 * @param {() => { loss: number, burst: { p: number, r: number } | null }} conditions in %, read per packet
 * @param {() => number} [random] uniform in [0, 1): tests give their own
 */
export function createPacketDirection(direction, conditions, random = Math.random) {
  // onLink: packets on the path now (sent, not yet delivered or lost): 0 on a quiet path. Every
  // packet carried is counted once: delivered, dropped by one cause, unshaped or on the link.
  const counters = { delivered: 0, deliveredBytes: 0, droppedByLoss: 0, droppedByQueue: 0, droppedByReceiver: 0, unshaped: 0, onLink: 0 };
  const loss = createLoss(conditions, random);

  return {
    counters,
    /** Restarts the loss from seeds (server/path/loss.js seed). @param {{ random: number, burst: number }} seeds */
    seedLoss: (seeds) => loss.seed(seeds),
    /**
     * Carries one packet; `deliver()` puts it out of the other TUN device, and returns false when
     * the device refused it. Returns its fate as it enters, which a capture marks
     * (server/packet/capture.js): 'loss' and 'queue' are the causes of a drop.
     * @param {number} bytes @param {() => unknown} deliver
     * @param {{ shaped?: boolean }} [o]  shaped: false for what the path leaves alone (the lab UI's traffic)
     * @returns {'unshaped'|'queue'|'loss'|'onLink'}
     */
    carry(bytes, deliver, { shaped = true } = {}) {
      if (!shaped) {
        if (deliver() === false) counters.droppedByReceiver += 1;
        else counters.unshaped += 1;
        return 'unshaped';
      }
      if (!direction.hasRoom()) {
        counters.droppedByQueue += 1;
        return 'queue';
      }
      counters.onLink += 1;
      // Drawn before the head's verdict: the same packets lose on the wire whichever the discipline.
      const lost = loss.lost();
      let dropped = false;
      const arrived = () => {
        counters.onLink -= 1;
        if (lost) return;
        if (deliver() === false) {
          counters.droppedByReceiver += 1;
          return;
        }
        counters.delivered += 1;
        counters.deliveredBytes += bytes;
      };
      direction.send(bytes, arrived, undefined, () => (dropped = true));
      if (dropped) {
        counters.onLink -= 1;
        counters.droppedByQueue += 1;
        return 'queue';
      }
      if (lost) counters.droppedByLoss += 1;
      return lost ? 'loss' : 'onLink';
    },
  };
}
