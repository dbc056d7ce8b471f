// Verdicts across a whole experiment: its points (one, or a sweep's) each compare several servers,
// and a reader acts on any verdict of the table, so the rate of false "faster" or "slower" verdicts
// is kept within 5 % across all of them, not per comparison (with 4 points × 3 comparisons and no
// real difference anywhere, 5 % each gave at least one false verdict in 15 % of experiments).
//
// Holm's step-down (1979): order the comparisons by the rate at which each decides (stats.js
// pDecided), the i-th of m needs 5 %/(m − i + 1), and the first that fails stops the ladder. Why
// Holm: it assumes nothing about how the comparisons depend on each other (they share baselines
// and runs), it decides everything Bonferroni's 5 %/m decides and more, and it is a few lines a
// reader can check. Under repeats until decided each comparison's rate is its look's share
// (until-decided.js lookShares): the comparison counts as p/share, a valid p-value whatever the
// looks (the chance that p ≤ share × a at some look is at most a, summed over the shares), so Holm
// over those keeps the whole procedure within 5 % of experiments. family.spec.js simulates it.
import { summarizeResult, verdictLevel } from './stats.js';
import { baselinesOf, measuredServers } from '../setup/servers.js';
import { shareAt } from './until-decided.js';

/** The rate of experiments with any false "faster" or "slower" verdict the lab allows. */
export const familyRate = 1 - verdictLevel;

/**
 * How many comparisons a point's settings make: every measured server against each of its
 * baselines that is measured too (the A/A slot against its twin included).
 * @param {import('../report/result.js').Settings} settings
 */
export function plannedComparisons(settings) {
  const ids = measuredServers(settings);
  return ids.reduce((n, id) => n + baselinesOf(id).filter((b) => ids.includes(b)).length, 0);
}

/** @param {{ server: string, baseline: string }} c */
const keyOf = (c) => `${c.server} ${c.baseline}`;

/**
 * A comparison's share of the rate: its look's under repeats until decided, else all of it.
 * @param {import('../report/result.js').Result} result
 * @param {boolean} paired
 */
const shareOf = (result, paired) => (result.untilDecided ? shareAt(result.untilDecided.maxRepeats, result.settings.repeats, paired) : 1);

/**
 * Holm's step-down over the experiment's comparisons: the level each needs, by point and key. The
 * i-th (from 1) by rate/share needs 1 − share × 5 %/(m − i + 1); those from the first that fails
 * on stand at that step, where none of them decides.
 * @param {Array<{ point: number, key: string, share: number, p: number }>} entries
 * @param {number} m  the family's size
 * @returns {Map<string, number>}  by `${point} ${key}`
 */
export function holmLevels(entries, m) {
  const ranked = entries.map((e) => ({ ...e, adjusted: e.share > 0 ? e.p / e.share : Infinity })).sort((a, b) => a.adjusted - b.adjusted);
  let step = 0;
  // A tolerance of rounding: stats.js draws the interval at the level asked for with the same one.
  while (step < ranked.length && ranked[step].adjusted <= familyRate / (m - step) + 1e-12) step += 1;
  return new Map(ranked.map((e, i) => [`${e.point} ${e.key}`, 1 - (e.share * familyRate) / (m - Math.min(i, step))]));
}

/**
 * The points of one experiment judged together: each point's comparisons drawn again at the level
 * its step of Holm's ladder needs, and each result saying the family it was judged in
 * (result.family). The same runs always give the same verdicts, so it may run again on results
 * judged before (merge-results, the report).
 * @param {import('../report/result.js').Result[]} results  the experiment's points measured so far
 * @param {number} [planned]  the comparisons the experiment plans, points not yet measured included;
 *   by default those of the points given (plannedComparisons: a server without a valid run counts)
 * @returns {import('../report/result.js').Result[]}
 */
export function judgeExperiment(results, planned = results.reduce((n, r) => n + (r.settings?.servers ? plannedComparisons(r.settings) : 0), 0)) {
  const first = results.map((r) => summarizeResult(r.runs));
  const entries = first.flatMap((s, point) => s.comparisons.map((c) => ({ point, key: keyOf(c), share: shareOf(results[point], Boolean(c.paired)), p: c.pDecided ?? 1 })));
  const m = Math.max(planned, entries.length);
  const levels = holmLevels(entries, m);
  return results.map((r, point) => {
    const judged = summarizeResult(r.runs, (c) => levels.get(`${point} ${keyOf(c)}`) ?? verdictLevel);
    const least = Math.min(...judged.comparisons.map((c) => c.requiredLevel ?? verdictLevel));
    const untilDecided = r.untilDecided && { untilDecided: { ...r.untilDecided, requiredLevel: Number.isFinite(least) ? least : verdictLevel } };
    return { ...r, ...judged, family: { comparisons: m, rate: familyRate }, ...untilDecided };
  });
}

/**
 * The scope of a family's verdicts in words: "5 % across the 12 comparisons of this experiment".
 * @param {{ comparisons: number, rate: number }|undefined} family  absent in results saved before 2026-11-27
 */
export function scopeText(family) {
  if (!family) return `${Math.round(familyRate * 100)} % per comparison (a result saved before verdicts were judged across an experiment)`;
  const rate = `${Math.round(family.rate * 100)} %`;
  if (family.comparisons === 0) return 'no comparison: one server has nothing to be compared with';
  return family.comparisons === 1 ? `${rate} for the one comparison of this experiment` : `${rate} across the ${family.comparisons} comparisons of this experiment`;
}

/**
 * Every experiment's points judged within it (judgeExperiment): what summary.md, the CSVs, the
 * report and results.json print, from the runner or from merge-results.
 * @template {{ points: Array<{ result: import('../report/result.js').Result }> }} E
 * @param {E[]} experiments
 * @returns {E[]}
 */
export function judgeExperiments(experiments) {
  return experiments.map((e) => {
    const judged = judgeExperiment(e.points.map((p) => p.result));
    return { ...e, points: e.points.map((p, i) => ({ ...p, result: judged[i] })) };
  });
}
