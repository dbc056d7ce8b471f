// The path's loss, per packet and per direction, in two parts drawn independently: random loss
// (`loss` %, each packet alike), and bursty loss by the Gilbert–Elliott model in its simple form
// (Gilbert 1960): the path is good or bad, passes from good to bad with probability p and from bad
// to good with r per packet, and loses every packet while bad, none while good. Bursts then last
// 1/r packets on average and the long-run loss is p / (p + r): p = 1 %, r = 25 % loses 3.8 % in
// bursts of 4.

/**
 * @param {() => { loss: number, burst: { p: number, r: number } | null }} conditions in %, read per packet
 * @param {() => number} [random] uniform in [0, 1): tests give their own
 * @returns {() => boolean} whether the next packet is lost
 */
export function createLoss(conditions, random = Math.random) {
  let bad = false;
  return () => {
    const { loss, burst } = conditions();
    if (burst) bad = bad ? random() >= burst.r / 100 : random() < burst.p / 100;
    else bad = false;
    return bad || (loss > 0 && random() < loss / 100);
  };
}
