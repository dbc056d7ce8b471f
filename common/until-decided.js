// Repeats until decided: a point runs in rounds, and after each round (a look at its runs) it
// stops once every comparison of it has a verdict, or the cap or the time budget is reached.
// Looking several times gives several chances of a false verdict, so each look needs more than
// one look would: the false-verdict rate is spent across the looks (docs/statistics.md), and
// stats.spec.js simulates the whole procedure. The runner and the page both run it.
import { mergeParts } from './merge-parts.js';
import { verdictLevel, verdicts } from './stats.js';
import { rangeRule } from './units.js';

export const untilDecided = Object.freeze({
  // 4 runs a side are the fewest whose ratio interval reaches 97 % (1 − 2/70); 3 reach 90 %, so a
  // first look at 3 could never decide.
  firstRoundRepeats: 4,
  // Later rounds add 4 too: fewer looks share the error rate than with rounds of 2, so each look
  // needs less and finds more (simulated, cap 20, one server 20 % faster with a 20 % skewed
  // spread: found 61 % against 55 %), at about the same repeats on average (15.2 against 15.6;
  // docs/statistics.md); an even round keeps the alternating server order balanced (A B, B A).
  roundRepeats: 4,
  // The cap's bounds: a whole first round at least; at most the lab's most repeats (settings.js).
  maxRepeats: Object.freeze({ min: 4, max: 100, integer: true }),
  // The whole command's wall time: under a second no round finishes; past a week a run should be
  // sharded rather than wait (runner/plan.js).
  budgetSeconds: Object.freeze({ min: 1, max: 7 * 24 * 3600, integer: true }),
});

/** Why a point stopped: all its comparisons decided, the cap reached, or the budget spent. */
export const stopReasons = Object.freeze({ decided: 'decided', cap: 'cap', budget: 'budget' });

/** @typedef {'decided'|'cap'|'budget'} StopReason */

/** What a point's result records of its rounds: see result.js UntilDecidedRecord. */

/** The rate of false "faster" or "slower" verdicts the looks share: what one look at verdictLevel allows. */
const falseVerdictRate = 1 - verdictLevel;

/**
 * The first look spends what 4 runs against 4 need to decide at all (their one interval above
 * 90 %, of level 1 − 2/70); the rest is shared equally by the later looks.
 */
const firstLookRate = 2 / 70;

/**
 * The repeats done at each look: the first round, then round after round up to the cap (the
 * last round shorter where the cap says so).
 * @param {number} cap  at least untilDecided.firstRoundRepeats
 * @returns {number[]}
 */
export function looksOf(cap) {
  const looks = [Math.min(untilDecided.firstRoundRepeats, cap)];
  while (/** @type {number} */ (looks.at(-1)) < cap) looks.push(Math.min(cap, /** @type {number} */ (looks.at(-1)) + untilDecided.roundRepeats));
  return looks;
}

/**
 * The level each look's interval needs before it gives a verdict: the false-verdict rate spent
 * across the looks (Bonferroni's bound: the chance that any look is wrong is at most the sum of
 * each look's), so a verdict from any look keeps the whole procedure's rate within 5 %.
 * @param {number} cap
 * @returns {number[]}
 */
export function requiredLevels(cap) {
  const looks = looksOf(cap).length;
  if (looks === 1) return [verdictLevel];
  const later = (falseVerdictRate - firstLookRate) / (looks - 1);
  return [1 - firstLookRate, ...Array.from({ length: looks - 1 }, () => 1 - later)];
}

/**
 * The level a verdict needs after `repeatsDone` repeats of a point with this cap: that of the look
 * those repeats complete (a point is looked at only at the end of a round).
 * @param {number} cap
 * @param {number} repeatsDone
 */
export function requiredLevelAt(cap, repeatsDone) {
  const look = looksOf(cap).findIndex((done) => done >= repeatsDone);
  return requiredLevels(cap)[look === -1 ? 0 : look];
}

/**
 * The repeat numbers of the next round of a point, continuing its numbering (so the server
 * order keeps alternating), or [] when the cap is reached.
 * @param {number} repeatsDone
 * @param {number} cap
 * @returns {number[]}
 */
export function nextRound(repeatsDone, cap) {
  const upTo = looksOf(cap).find((done) => done > repeatsDone) ?? repeatsDone;
  return Array.from({ length: upTo - repeatsDone }, (_, i) => repeatsDone + i + 1);
}

/**
 * Whether a point stops after a look, and why: every comparison decided (faster, slower or no
 * meaningful difference), else the cap reached, else the budget spent; null to go on.
 * @param {{ comparisons: Array<{ verdict: string }>, repeatsDone: number, cap: number, budgetSpent: boolean }} look
 * @returns {StopReason|null}
 */
export function stopReason({ comparisons, repeatsDone, cap, budgetSpent }) {
  if (comparisons.length && comparisons.every((c) => c.verdict !== verdicts.unclear)) return stopReasons.decided;
  if (repeatsDone >= cap) return stopReasons.cap;
  return budgetSpent ? stopReasons.budget : null;
}

/**
 * The look after a round: the point's rounds so far joined, its verdicts at the level this look
 * needs, and whether it stops; the result records its rounds (result.js UntilDecidedRecord).
 * @param {import('./result.js').Result[]} parts  the point's rounds so far, each numbering its repeats on
 * @param {number} cap
 * @param {boolean} budgetSpent
 * @returns {{ result: import('./result.js').Result, stoppedBy: StopReason|null }}
 */
export function lookAt(parts, cap, budgetSpent) {
  const repeatsDone = parts.reduce((n, p) => n + p.settings.repeats, 0);
  const requiredLevel = requiredLevelAt(cap, repeatsDone);
  const merged = mergeParts(parts, requiredLevel);
  const stoppedBy = stopReason({ comparisons: merged.comparisons, repeatsDone, cap, budgetSpent });
  return { result: { ...merged, untilDecided: { maxRepeats: cap, rounds: parts.length, stoppedBy, requiredLevel } }, stoppedBy };
}

/** @type {Record<StopReason, string>} */
const stoppedText = {
  decided: 'every verdict decided',
  cap: 'at the cap',
  budget: 'the budget spent',
};

/**
 * How many repeats a point took until decided and why it stopped: "8 of at most 12 repeats, 2
 * rounds, every verdict decided"; '' for a result of a fixed number of repeats.
 * @param {Pick<import('./result.js').Result, 'settings'|'untilDecided'>} result
 */
export function roundsText({ settings, untilDecided: record }) {
  if (!record) return '';
  const { maxRepeats, rounds, stoppedBy } = record;
  return `${settings.repeats} of at most ${maxRepeats} repeats, ${rounds} round${rounds > 1 ? 's' : ''}, ${stoppedBy ? stoppedText[stoppedBy] : 'stopped with the command'}`;
}

/** The rules as the flags and the form say them. */
export const maxRepeatsRule = `${rangeRule(untilDecided.maxRepeats)} (the first round alone runs ${untilDecided.firstRoundRepeats})`;
export const budgetRule = 'a wall time such as 90s, 30m or 2h: a whole number with s, m or h, from 1 s to 168 h';

const secondsPer = { s: 1, m: 60, h: 3600 };

/**
 * A budget as typed ("90s", "30m", "2h") in seconds, or null when it is not one within the bounds.
 * @param {string} text
 * @returns {number|null}
 */
export function budgetSeconds(text) {
  const m = /^(\d{1,9})([smh])$/.exec(text.trim());
  if (!m) return null;
  const seconds = Number(m[1]) * secondsPer[/** @type {'s'|'m'|'h'} */ (m[2])];
  const { min, max } = untilDecided.budgetSeconds;
  return seconds >= min && seconds <= max ? seconds : null;
}
