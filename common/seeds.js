// Seeded randomness the lab reproduces: the simulations of the tests, generated traces and the
// packet network's loss. The loss seed of a run comes from the experiment's base seed (the
// lossSeed setting) and the run's repeat number alone, so repeat i of every server draws the same
// losses, on this machine or on another running a shard of the experiment (runner --shard keeps
// repeat numbers); the emulator derives from it one stream per direction and kind of loss.

/**
 * mulberry32: a tiny seeded PRNG.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * One 32-bit seed from several non-negative integers, each part mixed in with MurmurHash3's
 * finalizer, so neighbouring inputs (repeat 1, 2, 3) give unrelated seeds.
 * @param {number[]} parts
 */
export function mixSeed(...parts) {
  let h = 0x9e3779b9;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/**
 * The loss seed of repeat `repeat` of an experiment with base seed `baseSeed`: every server's
 * run of that repeat gets it (run.lossSeed).
 * @param {number} baseSeed  settings.lossSeed
 * @param {number} repeat  1-based
 */
export const runLossSeed = (baseSeed, repeat) => mixSeed(baseSeed, repeat);

// The streams a run's seed starts: each direction's random loss and its bursts drawn apart, so
// the random losses of a run are the same whether bursts are on or not.
const directions = { down: 1, up: 2 };
const kinds = { random: 1, burst: 2 };

/**
 * The seeds of one direction's two loss streams in a run (server/path/loss.js).
 * @param {number} runSeed  a run's loss seed
 * @param {'down'|'up'} direction
 * @returns {{ random: number, burst: number }}
 */
export const lossStreamSeeds = (runSeed, direction) => ({
  random: mixSeed(runSeed, directions[direction], kinds.random),
  burst: mixSeed(runSeed, directions[direction], kinds.burst),
});
