// One direction of the packet network: a packet from one TUN device is either carried unshaped
// (the lab UI's traffic), dropped at a full queue, or put on the link (server/link/bottleneck.js:
// paced at the bandwidth, arriving one one-way delay after the link has sent it) and then lost on
// the wire or delivered. Loss comes after the queue, as on a lossy last hop: a lost packet has
// used its share of the link.
//
// Loss has two parts, drawn independently per packet: random loss (`loss` %, each packet alike),
// and bursty loss by the Gilbert–Elliott model in its simple form (Gilbert 1960): the path is
// good or bad, passes from good to bad with probability p and from bad to good with r per
// packet, and loses every packet while bad, none while good. Bursts then last 1/r packets on
// average and the long-run loss is p / (p + r): p = 1 %, r = 25 % loses 3.8 % in bursts of 4.

/**
 * @param {{ send(bytes, deliver): boolean, hasRoom(): boolean }} link one direction of a bottleneck
 * @param {() => { loss: number, burst: { p: number, r: number } | null }} conditions in %, read per packet
 * @param {() => number} [random] uniform in [0, 1): tests give their own
 */
export function createShaper(link, conditions, random = Math.random) {
  // onLink: packets on the link now (sent, not yet delivered or lost): 0 on a quiet path.
  const counters = { delivered: 0, deliveredBytes: 0, droppedByLoss: 0, droppedByQueue: 0, unshaped: 0, onLink: 0 };
  let bad = false;

  function lost() {
    const { loss, burst } = conditions();
    if (burst) bad = bad ? random() >= burst.r / 100 : random() < burst.p / 100;
    else bad = false;
    return bad || (loss > 0 && random() < loss / 100);
  }

  return {
    counters,
    /** Carries one packet; `deliver()` puts it out of the other TUN device. */
    carry(bytes, deliver, { shaped = true } = {}) {
      if (!shaped) {
        counters.unshaped += 1;
        deliver();
        return;
      }
      if (!link.hasRoom()) {
        counters.droppedByQueue += 1;
        return;
      }
      counters.onLink += 1;
      if (lost()) {
        counters.droppedByLoss += 1;
        link.send(bytes, () => (counters.onLink -= 1));
        return;
      }
      link.send(bytes, () => {
        counters.onLink -= 1;
        counters.delivered += 1;
        counters.deliveredBytes += bytes;
        deliver();
      });
    },
  };
}
