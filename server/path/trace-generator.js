// Synthetic traces, so tests and people have variable links without outside data: a rate that
// changes every stepMs by a Markov chain over a few levels (a Markov-modulated rate, the usual
// model of a cellular link's capacity), written in mahimahi's format (trace.js). The levels are
// multiples of the mean; the chain moves one level up or down with equal chance or stays, so it
// spends equal time at each in the long run. Over a finite trace the draws never average to
// exactly that, so the slots are then shared out in proportion to the levels drawn: the trace's
// mean rate is the mean asked for, to one slot.
import { traceBounds } from '../../common/setup/path-limits.js';
import { mulberry32 } from '../../common/setup/seeds.js';

/** The generator's defaults, each with its reason. */
export const markovDefaults = Object.freeze({
  // Seconds the chain holds a level: LTE capacity changes at this scale (Winstein et al. 2013 saw
  // the rate change by 10× within a second).
  stepMs: 500,
  // Levels as multiples of the mean: from a quarter to 1.75×, a 7× swing, as in their traces.
  levels: Object.freeze([0.25, 0.75, 1.25, 1.75]),
  // Chance per step of moving to a neighbouring level (each way); else it stays.
  moveChance: 0.3,
  // A minute repeats seldom enough that a run sees many states, short enough to read.
  seconds: 60,
});

/**
 * @param {{ meanBps: number, seed: number, seconds?: number, stepMs?: number, levels?: readonly number[], moveChance?: number }} o
 * @returns {string} the trace's text, one millisecond per line
 */
export function markovTrace({ meanBps, seed, ...options }) {
  const { seconds, stepMs, levels, moveChance } = { ...markovDefaults, ...options };
  const random = mulberry32(seed); // the same seed makes the same trace
  const steps = Math.round((seconds * 1000) / stepMs);
  const drawn = [];
  let level = Math.floor(random() * levels.length);
  for (let k = 0; k < steps; k++) {
    drawn.push(levels[level]);
    const r = random();
    if (r < moveChance) level = Math.max(0, level - 1);
    else if (r < 2 * moveChance) level = Math.min(levels.length - 1, level + 1);
  }
  const totalSlots = Math.round((meanBps * seconds) / traceBounds.slotBytes);
  const sum = drawn.reduce((a, b) => a + b, 0);
  const lines = [];
  let given = 0;
  let share = 0;
  for (let k = 0; k < steps; k++) {
    share += (totalSlots * drawn[k]) / sum;
    const slots = Math.round(share) - given;
    given += slots;
    // Spread evenly over the step's milliseconds.
    for (let j = 0; j < slots; j++) lines.push(k * stepMs + Math.floor((j * stepMs) / slots));
  }
  // The last line is the period: a trace that repeats every `seconds`.
  const periodMs = steps * stepMs;
  if (!lines.length || /** @type {number} not empty here */ (lines.at(-1)) < periodMs) lines.push(periodMs);
  return `${lines.join('\n')}\n`;
}
