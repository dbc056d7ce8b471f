// Seeded randomness the lab reproduces: the simulations of the tests, generated traces and the
// packet network's loss. The loss seed of a run comes from the experiment's base seed (the
// lossSeed setting: given, or drawn fresh for each experiment by drawSeed), the run's repeat
// number and the loss model (rate and bursts) alone, so repeat i of every server at one point
// draws the same losses, on this machine or on another running a shard of the experiment (runner
// --shard keeps repeat numbers); the emulator derives from it one stream per direction and kind
// of loss.
//
// Why the model is mixed in: the random part loses a packet when its uniform draw is below the
// rate, so with one stream for every rate a packet lost at 1 % was lost at 2 % and 5 % too, and
// a sweep over loss rates rested on one pattern, nested. Mixed in, each rate (and each burst
// setting) draws a pattern of its own, independent of the others', while the servers of one
// point, which share the model, still lose the same packets repeat by repeat (the pairing of
// common/stats/stats.js comparePaired).

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
 * The parts of a loss model that pick its pattern: each number as the two 32-bit words of its
 * IEEE 754 double, so 1 and 1.5 % (or 0.1 and 0.10000001) differ; bursts off apart from every
 * burst setting.
 * @param {LossModel} model
 */
function modelParts({ loss, burst }) {
  const view = new DataView(new ArrayBuffer(8));
  /** @param {number} x */
  const words = (x) => {
    view.setFloat64(0, x);
    return [view.getUint32(0), view.getUint32(4)];
  };
  return [...words(loss), ...(burst ? [1, ...words(burst.p), ...words(burst.r)] : [0])];
}

/**
 * A run's loss model, as the packet network applies it (server/path/loss.js): random loss in %
 * each way, and Gilbert–Elliott bursts (% per packet from good to bad and back) or none.
 * @typedef {{ loss: number, burst: { p: number, r: number } | null }} LossModel
 */

/**
 * The loss seed of repeat `repeat` of an experiment with base seed `baseSeed` under `model`: every
 * server's run of that repeat at that point gets it (run.lossSeed); another rate or burst setting
 * gets an unrelated one (see the top of this file).
 * @param {number} baseSeed  settings.lossSeed
 * @param {number} repeat  1-based
 * @param {LossModel} model
 */
export const runLossSeed = (baseSeed, repeat, model) => mixSeed(baseSeed, repeat, ...modelParts(model));

/**
 * A fresh seed within `bounds` from the platform's cryptographic source (globalThis.crypto, in
 * Node and in the browser alike), uniform by rejection: a base seed nobody gave, so that two
 * experiments draw independent losses unless a person asks for the same ones.
 * @param {{ min: number, max: number }} bounds  integers, at most 2^32 values
 */
export function drawSeed({ min, max }) {
  const span = max - min + 1;
  const limit = 2 ** 32 - (2 ** 32 % span); // the largest multiple of span: no value favoured
  const word = new Uint32Array(1);
  do globalThis.crypto.getRandomValues(word);
  while (word[0] >= limit);
  return min + (word[0] % span);
}

// The streams a run's seed starts: each direction's random loss and its bursts drawn apart, so
// neither part's draws shift the other's (server/path/loss.js).
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

/**
 * How the summary, the report and the page name an experiment's base seed, where its runs lost
 * packets: with how to draw the same losses again.
 * @param {number} baseSeed  settings.lossSeed
 */
export const lossSeedText = (baseSeed) => `loss seed ${baseSeed} (--loss-seed ${baseSeed} or the page's Loss seed draws the same losses again)`;

/**
 * Whether a result's runs lost packets from its base seed (a lossy packet path): only then is the
 * seed worth naming.
 * @param {{ settings: { lossSeed?: number }, runs: Array<{ lossSeed?: number|null }> }} result
 */
export const seededLosses = (result) => result.settings.lossSeed !== undefined && result.runs.some((r) => r.lossSeed != null);
