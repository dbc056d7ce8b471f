// What a run could have found: the smallest ratio a comparison would call "faster" (or "slower")
// with 80 % power, from the spread its runs showed and the repeats it ran, at the level its step
// of Holm's ladder needed. Printed beside every "no clear difference", as experimentation
// platforms print a minimum detectable effect beside an inconclusive result.
//
// A t approximation on the log scale (docs/statistics.md, What a run could find): a verdict of
// "faster" needs the interval's upper end below 1 − margin, so with the estimate's standard error
// se and Student's t quantiles at the interval's level and at the power,
//   log ratio = log(1 − margin) − (t(level) + t(power)) · se / √(3/π),
// and "slower" the mirror from log(1 + margin). 3/π is the rank intervals' asymptotic efficiency
// against the t interval at normal log-times. At 6–20 runs a side the rank interval studentized
// by Brunner–Munzel (its spread estimated from the runs' placements) needs more than that: by
// seeded simulation it behaves like t with a quarter of Welch's degrees of freedom (at 8 runs a
// side, Welch's 14 gave 50 % power at the printed ratio, 3.5 gives 80 %). detectable.spec.js
// checks that at the printed ratio the lab's own rule finds the difference in about 80 % of runs.
import { probit } from 'simple-statistics';

/** The power the detectable difference is printed at: the convention of experimentation platforms. */
export const detectablePower = 0.8;

/** The rank intervals' asymptotic efficiency against the t interval at normal log-times (3/π ≈ 0.955). */
const rankEfficiency = 3 / Math.PI;

/**
 * Welch's degrees of freedom over this for an unpaired comparison: calibrated by simulation
 * (6–40 runs a side, lognormal times, 95 and 99.5 %; detectable.spec.js), the placements Brunner–
 * Munzel estimates its spread from carry about a quarter of the information of the times' variance.
 */
const placementDfShare = 4;

/**
 * The pairs' degrees of freedom over this: the Walsh averages' interval from the signed-rank
 * distribution is wider at 6–40 pairs than t's with n − 1 (by the same simulation: 67–78 % power
 * at the printed ratio with n − 1, about 80 % with half of it).
 */
const pairedDfShare = 2;

/** The fewest degrees of freedom used: the quantile's expansion below is within 4 % from 2 on. */
const leastDf = 2;

/**
 * Student's t quantile by the Cornish–Fisher expansion around the normal's (Abramowitz & Stegun
 * 26.7.5): within 0.5 % of the exact value from 4 degrees of freedom on, within 4 % at 2 (4.16
 * for 4.30 at 97.5 %): a few lines where inverting stats.js's t distribution would tie the modules
 * in a cycle.
 * @param {number} p  in (0, 1)
 * @param {number} df  at least 1
 */
export function studentQuantile(p, df) {
  const z = probit(p);
  const [z3, z5, z7] = [z ** 3, z ** 5, z ** 7];
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}

/** The sample variance (n − 1). @param {number[]} xs  at least two */
function variance(xs) {
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((sum, u) => sum + (u - mu) ** 2, 0) / (xs.length - 1);
}

/**
 * The spread of an unpaired comparison's log ratio: Welch's standard error and
 * Welch–Satterthwaite's degrees of freedom, as Brunner–Munzel allows the spreads to differ.
 * @param {number[]} a  the server's times, at least two, positive
 * @param {number[]} b  the baseline's times, at least two, positive
 * @returns {{ se: number, df: number }}
 */
export function unpairedSpread(a, b) {
  const [va, vb] = [variance(a.map(Math.log)) / a.length, variance(b.map(Math.log)) / b.length];
  const v = va + vb;
  const welch = v > 0 ? (v * v) / ((va * va) / (a.length - 1) + (vb * vb) / (b.length - 1)) : a.length + b.length - 2;
  return { se: Math.sqrt(v), df: Math.max(leastDf, welch / placementDfShare) };
}

/**
 * The spread of a paired comparison's log ratio: the pairs' log-ratios' standard error.
 * @param {[number, number][]} pairs  [server, baseline] times, at least two
 * @returns {{ se: number, df: number }}
 */
export function pairedSpread(pairs) {
  const d = pairs.map(([a, b]) => Math.log(a / b));
  return { se: Math.sqrt(variance(d) / d.length), df: Math.max(leastDf, (d.length - 1) / pairedDfShare) };
}

/**
 * The ratios a comparison would have decided with detectablePower: below the first "faster",
 * above the second "slower".
 * @param {{ se: number, df: number }} spread
 * @param {number} level  the level of the interval drawn where the verdict's level was asked for
 *   (at least that: rank intervals reach levels in steps, 96.9 % for 6 pairs asked 95 %)
 * @param {number} margin  the practical margin (stats.js practicalMargin)
 * @returns {[number, number]}
 */
export function detectableRatios({ se, df }, level, margin) {
  const reach = ((studentQuantile(1 - (1 - level) / 2, df) + studentQuantile(detectablePower, df)) * se) / Math.sqrt(rankEfficiency);
  return [(1 - margin) * Math.exp(-reach), (1 + margin) * Math.exp(reach)];
}
