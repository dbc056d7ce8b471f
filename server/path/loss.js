// The path's loss, per packet and per direction, in two parts drawn independently: random loss
// (`loss` %, each packet alike), and bursty loss by the Gilbert–Elliott model in its simple form
// (Gilbert 1960): the path is good or bad, passes from good to bad with probability p and from bad
// to good with r per packet, and loses every packet while bad, none while good. Bursts then last
// 1/r packets on average and the long-run loss is p / (p + r): p = 1 %, r = 25 % loses 3.8 % in
// bursts of 4. Each part draws from a stream of its own, which seed() restarts: the same seeds
// and the same packets lose the same packets (the packet network seeds every timed run,
// common/setup/seeds.js), whether or not the other part is on.
import { mulberry32 } from '../../common/setup/seeds.js';

/**
 * @param {() => { loss: number, burst: { p: number, r: number } | null }} conditions in %, read per packet
 * @param {() => number} [random] uniform in [0, 1), both parts' draws until seed(): tests give their own
 */
export function createLoss(conditions, random = Math.random) {
  let draw = { random, burst: random };
  let bad = false;
  return {
    /** Whether the next packet is lost. */
    lost() {
      const { loss, burst } = conditions();
      if (burst) bad = bad ? draw.burst() >= burst.r / 100 : draw.burst() < burst.p / 100;
      else bad = false;
      // Drawn while bad too: the random part's stream then advances one draw per packet, bursts or not.
      const randomly = loss > 0 && draw.random() < loss / 100;
      return bad || randomly;
    },
    /**
     * Restarts both parts from their seeds, in the good state: what comes next is a function of
     * the seeds and the packets alone.
     * @param {{ random: number, burst: number }} seeds  common/setup/seeds.js lossStreamSeeds
     */
    seed(seeds) {
      draw = { random: mulberry32(seeds.random), burst: mulberry32(seeds.burst) };
      bad = false;
    },
  };
}
