// Repeats until decided: a point runs in rounds, and after each round (a look at its runs) it
// stops once every comparison of it but the A/A control's has a verdict, or the cap or the time
// budget is reached. Looking several times gives several chances of a false verdict, so each look
// spends a share of the false-verdict rate, and a look whose runs could not decide anything spends
// none (docs/statistics.md); common/stats/family.js spends each share across the experiment's
// comparisons, and family.spec.js simulates the whole procedure. The runner and the page both run
// it: inRounds, round-robin across the runner's points, point by point on the page.
import { mergeParts } from './merge-parts.js';
import { verdictLevel, verdicts } from './stats.js';
import { twinOf } from '../setup/servers.js';
import { rangeRule } from '../setup/units.js';
import { untilDecided } from '../setup/settings.js';

/**
 * Why a point stopped: all its comparisons decided, each undecided one able to find the difference
 * aimed at (aimed), the cap reached, or the budget spent.
 */
export const stopReasons = Object.freeze({ decided: 'decided', aimed: 'aimed', cap: 'cap', budget: 'budget' });

/** @typedef {'decided'|'aimed'|'cap'|'budget'} StopReason */

/** The rate of false "faster" or "slower" verdicts the looks share: what one look at verdictLevel allows. */
const falseVerdictRate = 1 - verdictLevel;

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
 * The smallest false-verdict rate at which n runs a side (n pairs) can decide anything: every run
 * of one below every run of the other, 2 / C(2n, n) (4 against 4: 2/70); every pair's ratio on one
 * side of 1, 2 / 2ⁿ (4 pairs: 1/8, so at most 87.5 %).
 * @param {number} n
 * @param {boolean} paired
 */
export function leastRate(n, paired) {
  if (paired) return 2 ** (1 - n);
  let ways = 1;
  for (let i = 1; i <= n; i++) ways = (ways * (n + i)) / i;
  return 2 / ways;
}

/**
 * Each look's share of the false-verdict rate (they sum to 1): equal shares over the looks whose
 * runs could decide with their share (leastRate at most share × 5 %), none for those before,
 * which could not decide anything and so spend nothing, as an alpha-spending function of
 * Lan and DeMets (1983) spends nothing before a look that can reject. The looks that can decide
 * are the last ones (the more runs, the less leastRate): the first whose runs reach the rate
 * shared among it and those after it starts them. Bonferroni's bound over the looks: the chance
 * that some look gives a false verdict is at most the sum of their shares of the rate.
 * @param {number} cap
 * @param {boolean} paired  the comparison is paired (loss seeds): pairs reach a level later
 * @returns {number[]}
 */
export function lookShares(cap, paired) {
  const looks = looksOf(cap);
  const first = looks.findIndex((n, i) => leastRate(n, paired) <= falseVerdictRate / (looks.length - i));
  // None can decide (a cap of 4 pairs): the last look keeps the whole rate, deciding nothing either.
  const from = first === -1 ? looks.length - 1 : first;
  return looks.map((_, i) => (i < from ? 0 : 1 / (looks.length - from)));
}

/**
 * The share of the rate of the look `repeatsDone` repeats complete (a point is looked at only at
 * the end of a round).
 * @param {number} cap
 * @param {number} repeatsDone
 * @param {boolean} paired
 */
export function shareAt(cap, repeatsDone, paired) {
  const look = looksOf(cap).findIndex((done) => done >= repeatsDone);
  return lookShares(cap, paired)[look === -1 ? 0 : look];
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
 * A point's real comparisons: all but the A/A control's, which is reported and holds nothing back.
 * @template {{ server: string }} C
 * @param {C[]} comparisons
 */
const realComparisons = (comparisons) => comparisons.filter((c) => twinOf(c.server) === null);

/**
 * Whether a point stops after a look, and why: every comparison decided (faster, slower or no
 * meaningful difference); else, with a difference aimed at, every undecided one's runs able to
 * find a difference of that size (common/stats/detectable.js: its detectable ratios within ±aim), so
 * more repeats would look for a smaller one than the person cares about; else the cap reached,
 * else the budget spent; null to go on. The A/A control's comparison is reported beside the
 * others but holds no point back: under loss it seldom fits within ±2 %, and a point waiting for
 * it ran to its cap every time.
 * @param {{ comparisons: Array<{ server: string, verdict: string, detectable?: [number, number]|null }>, repeatsDone: number, cap: number, budgetSpent: boolean, aim?: number|null }} look
 *   aim: the difference aimed at as a fraction of the baseline's time (0.1: 10 %), absent or null for none
 * @returns {StopReason|null}
 */
export function stopReason({ comparisons, repeatsDone, cap, budgetSpent, aim = null }) {
  const real = realComparisons(comparisons);
  if (real.length && real.every((c) => c.verdict !== verdicts.unclear)) return stopReasons.decided;
  /** @param {{ detectable?: [number, number]|null }} c */
  const findsAim = ({ detectable }) => aim != null && detectable != null && detectable[0] >= 1 - aim && detectable[1] <= 1 + aim;
  if (aim != null && real.length && real.every((c) => c.verdict !== verdicts.unclear || findsAim(c))) return stopReasons.aimed;
  if (repeatsDone >= cap) return stopReasons.cap;
  return budgetSpent ? stopReasons.budget : null;
}

/**
 * The look after a round: the point's rounds so far joined, its verdicts judged by `judge` (the
 * experiment's Holm step-down, common/stats/family.js, with the share of this look), and whether it
 * stops; the result records its rounds (result.js UntilDecidedRecord).
 * @param {import('../report/result.js').Result[]} parts  the point's rounds so far, each numbering its repeats on
 * @param {number} cap
 * @param {boolean} budgetSpent
 * @param {(result: import('../report/result.js').Result) => import('../report/result.js').Result} judge  the point's
 *   result judged within its experiment
 * @param {number|null} [aimPercent]  the difference aimed at, in % (stopReason), recorded with the rounds
 * @returns {{ result: import('../report/result.js').Result, stoppedBy: StopReason|null }}
 */
export function lookAt(parts, cap, budgetSpent, judge, aimPercent = null) {
  const repeatsDone = parts.reduce((n, p) => n + p.settings.repeats, 0);
  const merged = mergeParts(parts);
  const aimed = aimPercent == null ? {} : { aimPercent };
  const result = judge({ ...merged, untilDecided: { maxRepeats: cap, rounds: parts.length, stoppedBy: null, requiredLevel: verdictLevel, ...aimed } });
  const stoppedBy = stopReason({ comparisons: result.comparisons, repeatsDone, cap, budgetSpent, aim: aimPercent == null ? null : aimPercent / 100 });
  return { result: { ...result, untilDecided: { ...(/** @type {import('../report/result.js').UntilDecidedRecord} */ (result.untilDecided)), stoppedBy } }, stoppedBy };
}

/**
 * @template P
 * @typedef {object} RoundsOptions  how inRounds runs its points
 * @property {number} cap  the most repeats a point runs
 * @property {'round-robin'|'point-by-point'} order  round-robin: a round of every open point, then
 *   the next round of those still open, so a budget spent leaves every point with its first rounds
 *   rather than the last points with none (the runner); point-by-point: a point's rounds until it
 *   stops, then the next point, so a person may switch the throttling between points (the page)
 * @property {number|null} [aimPercent]  the difference aimed at, in % (lookAt)
 * @property {() => boolean} [budgetSpent]  whether the time budget is spent (none: never)
 * @property {(point: P, repeatNumbers: number[]) => Promise<import('../report/result.js').Result>} measure  one round of
 *   a point, its repeats numbered on from its rounds before
 * @property {(point: P, result: import('../report/result.js').Result) => import('../report/result.js').Result} judge
 *   the point's result judged within its experiment, with the other points' results so far
 * @property {(point: P, result: import('../report/result.js').Result) => void} onLook  the point's result after each
 *   look, its rounds joined and judged (result.untilDecided says how it went): where the caller keeps it
 * @property {(point: P, why: StopReason, repeatsDone: number) => void} [onStop]  a point stopped
 *   after repeatsDone repeats (0: the budget was spent before it began)
 * @property {(point: P) => Promise<boolean>} [beforePoint]  before a point's first round; false
 *   ends the loop there (a person cancelled)
 */

/**
 * Runs points in rounds until each stops: after each round a look (lookAt) judges the point's
 * rounds so far and says whether it stops. A round that comes back stopped (Stop, or the lab gone
 * after some runs) ends the loop after its look; so does beforePoint saying no. Answers the points
 * that never began and the point whose round came back stopped, if any.
 * @template P
 * @param {P[]} points
 * @param {RoundsOptions<P>} o
 * @returns {Promise<{ unbegun: P[], stopped: P|null }>}
 */
export async function inRounds(points, { cap, order, aimPercent = null, budgetSpent = () => false, measure, judge, onLook, onStop = () => {}, beforePoint = async () => true }) {
  const tracks = points.map((point) => ({ point, parts: /** @type {import('../report/result.js').Result[]} */ ([]) }));
  let ended = false;
  /** @type {P|null} */
  let stopped = null;
  /**
   * A point's next round, unless a look stops it first. Answers whether the point goes on.
   * @param {{ point: P, parts: import('../report/result.js').Result[] }} track
   */
  const step = async ({ point, parts }) => {
    /** @param {import('../report/result.js').Result} result */
    const judgeIt = (result) => judge(point, result);
    const repeatsDone = parts.reduce((n, r) => n + r.settings.repeats, 0);
    // Looked at again first, round-robin: the other points' looks since its last move Holm's
    // ladder and may have decided it. Point by point nothing moved since its own last look.
    const again = parts.length && order === 'round-robin' ? lookAt(parts, cap, budgetSpent(), judgeIt, aimPercent) : null;
    if (again) onLook(point, again.result);
    const why = again ? again.stoppedBy : budgetSpent() ? stopReasons.budget : null;
    if (why) {
      onStop(point, why, repeatsDone);
      return false;
    }
    if (!parts.length && !(await beforePoint(point))) {
      ended = true;
      return false;
    }
    const result = await measure(point, nextRound(repeatsDone, cap));
    parts.push(result);
    const look = lookAt(parts, cap, budgetSpent(), judgeIt, aimPercent);
    onLook(point, look.result);
    if (look.stoppedBy) onStop(point, look.stoppedBy, look.result.settings.repeats);
    if (result.stopped) {
      ended = true;
      stopped = point;
    }
    return !look.stoppedBy && !ended;
  };
  if (order === 'point-by-point') {
    for (const track of tracks) {
      let goesOn = true;
      while (goesOn) goesOn = await step(track);
      if (ended) break;
    }
  } else {
    let open = tracks;
    while (open.length && !ended) {
      const next = [];
      for (const track of open) {
        if (await step(track)) next.push(track);
        if (ended) break;
      }
      open = next;
    }
  }
  return { unbegun: tracks.filter((t) => !t.parts.length).map((t) => t.point), stopped };
}

/** @type {Record<StopReason, string>} */
const stoppedText = {
  decided: 'every verdict decided',
  aimed: 'every open verdict able to find the difference aimed at',
  cap: 'at the cap',
  budget: 'the budget spent',
};

/**
 * How many repeats a point took until decided and why it stopped: "8 of at most 12 repeats, 2
 * rounds, every verdict decided"; '' for a result of a fixed number of repeats. A point that
 * stopped decided and is open when judged again (merge-results under a later rule) says so.
 * @param {Pick<import('../report/result.js').Result, 'settings'|'untilDecided'> & { comparisons?: import('../report/result.js').Comparison[] }} result
 */
export function roundsText({ settings, untilDecided: record, comparisons = [] }) {
  if (!record) return '';
  const { maxRepeats, rounds, stoppedBy, aimPercent } = record;
  const aim = aimPercent == null ? '' : ` (aiming at ${aimPercent} %)`;
  const openNow = stoppedBy === stopReasons.decided && realComparisons(comparisons).some((c) => c.verdict === verdicts.unclear);
  const why = stoppedBy ? `${stoppedText[stoppedBy]}${openNow ? ' by the rule it ran under, some open under today\'s' : ''}` : 'stopped with the command';
  return `${settings.repeats} of at most ${maxRepeats} repeats, ${rounds} round${rounds > 1 ? 's' : ''}, ${why}${aim}`;
}

/** The rules as the flags and the form say them. */
export const maxRepeatsRule = `${rangeRule(untilDecided.maxRepeats)} (the first round alone runs ${untilDecided.firstRoundRepeats})`;
export const aimRule = `${rangeRule(untilDecided.aimPercent)} (a difference in % of the baseline's time)`;
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
