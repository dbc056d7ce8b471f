// Summaries and HTTP/2-vs-HTTP/1.1 verdicts over the total times of runs. Medians, because a run
// time has a long right tail (GC, a slow connection set-up). Their intervals are exact and assume
// no distribution, and each says its level: a handful of runs cannot give 95 % (docs/statistics.md).
// - A median's: between two order statistics, from the binomial (3 runs: min–max, 75 %).
// - A ratio's: the Hodges–Lehmann interval of the shift between the two sets' logarithms, the wider
//   of two: its level from the Mann–Whitney distribution (exact up to 20 runs a side: 3 runs
//   against 3 give at most 90 %, 4 against 4 97 %), which is exact when the two shapes are equal,
//   and from Brunner and Munzel's (2000) studentized rank statistic, which stays valid when the
//   spreads differ (one server steady, the other not).
// - A paired ratio's (runs under the same loss seed, repeat against repeat): the Hodges–Lehmann
//   interval of the pairs' log-ratios, between Walsh averages, from the Wilcoxon signed-rank
//   distribution (exact up to exactSignedRankPairs pairs): 4 pairs give at most 87.5 %, 5 93.75 %,
//   6 96.9 %. Pairing takes out what the two runs of a repeat share (the same losses).
// A verdict needs a 95 % interval from one comparison alone; across the comparisons of a whole
// experiment (common/stats/family.js, Holm's step-down) each needs more, so that two servers that do not
// differ get "faster" or "slower" in at most 5 % of experiments (family.spec.js and stats.spec.js
// simulate it on skewed, bimodal, heavy-tailed, tied and unequally spread times, paired too).
import { max, mean, median, min, quantileSorted, sampleStandardDeviation } from 'simple-statistics';
import { baselineOf, baselinesOf, inServerOrder, serverLabel, twinOf } from '../setup/servers.js';
import { detectableRatios, pairedSpread, unpairedSpread } from './detectable.js';

/**
 * A ratio whose whole interval lies within this fraction of 1 is "no meaningful difference", and
 * "faster" or "slower" needs the whole interval beyond it: 2 % is about the run-to-run spread of a
 * quiet machine's medians (docs/performance.md) and below what a person would act on when
 * choosing a protocol.
 */
export const practicalMargin = 0.02;

/**
 * The level an interval must reach before a verdict is drawn from it, when one look at the data
 * decides; repeats until decided (common/stats/until-decided.js) ask more of each of several looks.
 */
export const verdictLevel = 0.95;

/** The verdicts, from the interval of a ratio (< 1: the server is faster than its baseline). */
export const verdicts = Object.freeze({
  faster: 'faster',
  slower: 'slower',
  meaningless: 'no meaningful difference',
  unclear: 'no clear difference',
});

/**
 * @param {[number, number]} interval  of the ratio, at `level`
 * @param {number} level
 * @param {number} margin
 * @param {number} required  the level a verdict needs
 * @returns {import('../report/result.js').Verdict}
 */
function verdictOf([lo, hi], level, margin, required) {
  if (level < required - 1e-12) return verdicts.unclear;
  if (lo >= 1 - margin && hi <= 1 + margin) return verdicts.meaningless;
  if (hi < 1 - margin) return verdicts.faster;
  if (lo > 1 + margin) return verdicts.slower;
  return verdicts.unclear;
}

/** @param {number[]} values */
const sorted = (values) => [...values].sort((a, b) => a - b);

/**
 * The largest k (1-based, at most `half`) whose two-sided coverage 1 − 2·cdf(k − 1) reaches
 * `target`, or k = 1 when none does; with that coverage.
 * @param {(u: number) => number} cdf  P(statistic ≤ u) under the null
 * @param {number} half
 * @param {number} target
 */
function orderIndex(cdf, half, target) {
  let k = 1;
  while (k < half && 1 - 2 * cdf(k) >= target) k += 1;
  return { k, level: 1 - 2 * cdf(k - 1) };
}

/**
 * Nested intervals between order statistics: the k-th smallest and k-th largest of `values`,
 * k = 1 … half, rung k at level(k), decreasing in k. A ratio's rungs are logarithms.
 * @typedef {{ values: number[], half: number, level: (k: number) => number }} Ladder
 */

/**
 * The smallest k in 1 … half + 1 for which `holds` is true, `holds` being false below some k
 * and true from it on (half + 1 when it holds nowhere): by bisection, as a level costs an
 * incomplete beta function and the simulations ask for thousands.
 * @param {number} half @param {(k: number) => boolean} holds
 */
function firstRung(half, holds) {
  let [lo, hi] = [1, half + 1];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** @param {Ladder} ladder @param {number} k @returns {[number, number]} rung k as a ratio */
const rungInterval = ({ values }, k) => [Math.exp(values[k - 1]), Math.exp(values[values.length - k])];

/**
 * The rung a target level asks for: the narrowest interval whose level reaches it (the widest,
 * k = 1, when none does), as a ratio. The tolerance is that of verdictOf.
 * @param {Ladder} ladder
 * @param {number} target
 * @returns {{ interval: [number, number], level: number }}
 */
function rungFor(ladder, target) {
  const k = Math.max(1, firstRung(ladder.half, (j) => ladder.level(j) < target - 1e-12) - 1);
  return { interval: rungInterval(ladder, k), level: ladder.level(k) };
}

/**
 * The smallest false-verdict rate at which the ladder gives a verdict: 1 − the level of its widest
 * interval that is decided (faster, slower or no meaningful difference), 1 when none is. The
 * intervals are nested, so every narrower one is decided too: a level asked for decides exactly
 * when it is at most 1 − this. Holm's step-down (common/stats/family.js) orders comparisons by it.
 * @param {Ladder} ladder
 * @param {number} margin
 */
function decisionRate(ladder, margin) {
  const k = firstRung(ladder.half, (j) => verdictOf(rungInterval(ladder, j), 1, margin, 0) !== verdicts.unclear);
  return k > ladder.half ? 1 : Math.min(1, Math.max(0, 1 - ladder.level(k)));
}

/** P(Binomial(n, ½) ≤ u) @param {number} n @param {number} u */
function binomialHalfCdf(n, u) {
  let term = 0.5 ** n;
  let sum = 0;
  for (let i = 0; i <= u; i++) {
    sum += term;
    term *= (n - i) / (i + 1);
  }
  return sum;
}

// Up to this many pairs the Mann–Whitney distribution is counted exactly.
const exactPairs = 400;

/** mannWhitneyCdf's answers by m and n: the simulations of repeats until decided ask for the same few thousands of times. */
/** @type {Map<string, (u: number) => number>} */
const mannWhitneyCdfs = new Map();

/**
 * P(U ≤ u) for the Mann–Whitney U of m against n values under no difference: exact (counted by
 * the usual recurrence) up to exactPairs pairs, the normal approximation with a continuity
 * correction beyond.
 * @param {number} m @param {number} n
 * @returns {(u: number) => number}
 */
function mannWhitneyCdf(m, n) {
  const key = `${m} ${n}`;
  let cdf = mannWhitneyCdfs.get(key);
  if (!cdf) mannWhitneyCdfs.set(key, (cdf = countedMannWhitneyCdf(m, n)));
  return cdf;
}

/** mannWhitneyCdf, worked out. @param {number} m @param {number} n @returns {(u: number) => number} */
function countedMannWhitneyCdf(m, n) {
  if (m * n > exactPairs) {
    const mu = (m * n) / 2;
    const sigma = Math.sqrt((m * n * (m + n + 1)) / 12);
    return (u) => normalCdf((u + 0.5 - mu) / sigma);
  }
  // ways[j][u]: arrangements of i values against j giving U = u, row by row over i.
  let ways = Array.from({ length: n + 1 }, () => [1]);
  for (let i = 1; i <= m; i++) {
    /** @type {number[][]} */
    const next = [[1]];
    for (let j = 1; j <= n; j++) {
      const row = new Array(i * j + 1).fill(0);
      // The largest value is one of the i (U gains j) or one of the j (U unchanged).
      ways[j].forEach((w, u) => (row[u + j] += w));
      next[j - 1].forEach((w, u) => (row[u] += w));
      next.push(row);
    }
    ways = next;
  }
  const counts = ways[n];
  const total = counts.reduce((a, b) => a + b, 0);
  /** @type {number[]} */
  const cumulative = [];
  let sum = 0;
  for (const c of counts) cumulative.push((sum += c) / total);
  return (u) => (u < 0 ? 0 : cumulative[Math.min(u, cumulative.length - 1)]);
}

// Up to this many pairs the signed-rank distribution is counted exactly (the settings allow 100
// repeats: 100 · 5,050 sums, a few milliseconds); the normal approximation beyond.
const exactSignedRankPairs = 100;

/**
 * P(T⁺ ≤ t) for the Wilcoxon signed-rank statistic of n pairs under no difference (each pair's
 * sign a fair coin): exact up to exactSignedRankPairs, the normal approximation beyond.
 * @param {number} n
 * @returns {(t: number) => number}
 */
function signedRankCdf(n) {
  const most = (n * (n + 1)) / 2;
  if (n > exactSignedRankPairs) {
    const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
    return (t) => normalCdf((t + 0.5 - most / 2) / sigma);
  }
  // ways[t]: subsets of the ranks 1…i summing to t, rank by rank.
  let ways = [1];
  for (let rank = 1; rank <= n; rank++) {
    const next = [...ways, ...new Array(rank).fill(0)];
    ways.forEach((w, t) => (next[t + rank] += w));
    ways = next;
  }
  const total = 2 ** n;
  /** @type {number[]} */
  const cumulative = [];
  let sum = 0;
  for (const w of ways) cumulative.push((sum += w) / total);
  return (t) => (t < 0 ? 0 : cumulative[Math.min(t, most)]);
}

/** Φ, by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). @param {number} z */
function normalCdf(z) {
  const t = 1 / (1 + 0.3275911 * Math.abs(z) / Math.SQRT2);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * The median's interval between order statistics: [x(k), x(n+1−k)] and its exact level.
 * @param {number[]} xs  sorted, at least two
 * @returns {{ interval: [number, number], level: number }}
 */
export function medianInterval(xs) {
  const n = xs.length;
  const { k, level } = orderIndex((u) => binomialHalfCdf(n, u), Math.floor(n / 2), verdictLevel);
  return { interval: [xs[k - 1], xs[n - k]], level };
}

/**
 * The ratio's ladder: the m·n pairwise differences log a − log b, sorted, each rung at the lower
 * of two levels: the Mann–Whitney distribution's (exact, when both sets have one shape) and
 * Brunner and Munzel's (valid when the spreads differ: brunnerMunzelLevels).
 * @param {number[]} a  at least two, positive
 * @param {number[]} b  at least two, positive
 * @returns {Ladder}
 */
function ratioLadder(a, b) {
  const x = a.map(Math.log);
  const y = b.map(Math.log);
  const values = sorted(x.flatMap((u) => y.map((v) => u - v)));
  const cdf = mannWhitneyCdf(a.length, b.length);
  const studentized = brunnerMunzelLevel(x, y, median(values));
  return { values, half: Math.floor(values.length / 2), level: (k) => Math.min(1 - 2 * cdf(k - 1), studentized(k)) };
}

/**
 * The ratio's interval: exp of the Hodges–Lehmann interval of log a − log b, the k-th smallest and
 * k-th largest of the m·n pairwise differences, at the lower of the Mann–Whitney and the
 * Brunner–Munzel levels (ratioLadder).
 * @param {number[]} a  at least two, positive
 * @param {number[]} b  at least two, positive
 * @param {number} [target]  the level to reach where the runs allow it; verdictLevel unless given
 * @returns {{ interval: [number, number], level: number }}
 */
export const ratioInterval = (a, b, target = verdictLevel) => rungFor(ratioLadder(a, b), target);

/**
 * The level of rung k of the shift interval by Brunner and Munzel's (2000) statistic: rung k
 * leaves out a shift δ when the share p̂(δ) of pairs with x − y above δ lies k or more pairs from
 * the middle, and p̂'s standard error is estimated from the runs (its placements' variances, with
 * the sets aligned at the Hodges–Lehmann shift), not from the equal-shape null as Mann–Whitney's
 * is; the level from Student's t with Welch–Satterthwaite's degrees of freedom, with a continuity
 * correction of half a pair.
 * @param {number[]} x  log times of the server
 * @param {number[]} y  log times of the baseline
 * @param {number} shift  the Hodges–Lehmann shift, median of x − y
 * @returns {(k: number) => number}
 */
function brunnerMunzelLevel(x, y, shift) {
  const [m, n] = [x.length, y.length];
  // Above the aligned shift 1, on it ½, below 0; a tolerance for the shift computed from two differences.
  /** @param {number} d */
  const side = (d) => (Math.abs(d - shift) <= 1e-12 ? 0.5 : d > shift ? 1 : 0);
  const px = x.map((u) => y.reduce((sum, v) => sum + side(u - v), 0) / n);
  const py = y.map((v) => x.reduce((sum, u) => sum + side(u - v), 0) / m);
  const [vx, vy] = [variance(px) / m, variance(py) / n];
  const v = vx + vy;
  const pairs = m * n;
  // No spread in the placements (every difference on the shift): the runs show nothing to widen.
  if (!(v > 0)) return () => 1;
  const df = Math.max(1, (v * v) / ((vx * vx) / (m - 1) + (vy * vy) / (n - 1)));
  const se = Math.sqrt(v);
  return (k) => 2 * studentCdf((pairs / 2 - (k - 1) - 0.5) / (pairs * se), df) - 1;
}

/** The sample variance (n − 1). @param {number[]} xs  at least two */
function variance(xs) {
  const mu = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((sum, u) => sum + (u - mu) ** 2, 0) / (xs.length - 1);
}

/**
 * P(T ≤ t) for Student's t with df degrees of freedom (not necessarily whole), t ≥ 0 here, by the
 * regularized incomplete beta function: P(|T| > t) = I_{df/(df+t²)}(df/2, ½).
 * @param {number} t @param {number} df
 */
function studentCdf(t, df) {
  const tail = incompleteBeta(df / (df + t * t), df / 2, 0.5) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The regularized incomplete beta function I_x(a, b), by its continued fraction (Numerical
 * Recipes, 2nd ed., 6.4: betai and betacf), to 1e-12.
 * @param {number} x @param {number} a @param {number} b
 */
function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast for x below its mean; above it, by symmetry I_x(a, b) = 1 − I_{1−x}(b, a).
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** betacf of Numerical Recipes: the continued fraction of I_x(a, b), by Lentz's method. @param {number} x @param {number} a @param {number} b */
function betaFraction(x, a, b) {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let h = d;
  for (let i = 1; i <= 300; i++) {
    const i2 = 2 * i;
    for (const term of [(i * (b - i) * x) / ((a + i2 - 1) * (a + i2)), (-(a + i) * (a + b + i) * x) / ((a + i2) * (a + i2 + 1))]) {
      d = 1 + term * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + term / c;
      if (Math.abs(c) < tiny) c = tiny;
      h *= d * c;
    }
    if (Math.abs(d * c - 1) < 1e-12) break;
  }
  return h;
}

/** ln Γ(z), z > 0, by Lanczos's approximation (g = 7, 9 terms: about 15 digits). @param {number} z @returns {number} */
function logGamma(z) {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (z < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * z))) - logGamma(1 - z);
  const w = z - 1;
  let sum = g[0];
  for (let i = 1; i < 9; i++) sum += g[i] / (w + i);
  const t = w + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (w + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * The paired ratio's ladder: the pairs' log-ratios' n(n+1)/2 Walsh averages, sorted, at the
 * signed-rank distribution's levels.
 * @param {[number, number][]} pairs  at least two, positive: [a, b] of the same repeat
 * @returns {Ladder}
 */
function pairedLadder(pairs) {
  const d = pairs.map(([a, b]) => Math.log(a) - Math.log(b));
  const values = sorted(d.flatMap((x, i) => d.slice(i).map((y) => (x + y) / 2)));
  const cdf = signedRankCdf(d.length);
  return { values, half: Math.floor(values.length / 2), level: (k) => 1 - 2 * cdf(k - 1) };
}

/**
 * The paired ratio's interval: exp of the Hodges–Lehmann interval of the pairs' log-ratios, the
 * k-th smallest and k-th largest of their n(n+1)/2 Walsh averages, with its level from the
 * signed-rank distribution; and the estimate, exp of the Walsh averages' median. Exact when each
 * pair's log-ratio is symmetric about the shift, as it is for two servers that do not differ and
 * share each pair's conditions.
 * @param {[number, number][]} pairs  at least two, positive: [a, b] of the same repeat
 * @param {number} [target]  the level to reach where the pairs allow it (verdictLevel unless given)
 * @returns {{ ratio: number, interval: [number, number], level: number }}
 */
export function pairedRatioInterval(pairs, target = verdictLevel) {
  const ladder = pairedLadder(pairs);
  return { ratio: Math.exp(median(ladder.values)), ...rungFor(ladder, target) };
}

/**
 * @param {number[]} values
 * @returns {import('../report/result.js').Summary}
 */
export function summarize(values) {
  const n = values.length;
  if (n === 0) return { n, median: null, mean: null, p95: null, min: null, max: null, sd: null, ci95: null, ciLevel: null };
  const xs = sorted(values);
  // One run has no spread to draw an interval from.
  const ci = n >= 2 ? medianInterval(xs) : null;
  return {
    n,
    median: median(xs),
    mean: mean(xs),
    p95: quantileSorted(xs, 0.95),
    min: min(xs),
    max: max(xs),
    sd: n >= 2 ? sampleStandardDeviation(xs) : 0,
    ci95: ci?.interval ?? null,
    ciLevel: ci?.level ?? null,
  };
}

/**
 * The ratios these runs would have decided with 80 % power at the level required, with the
 * interval drawn for it (common/stats/detectable.js), or null where their interval cannot reach that
 * level at any difference.
 * @param {{ se: number, df: number }} spread @param {number} level  the level the runs reached
 * @param {number} margin @param {number} required
 * @returns {[number, number]|null}
 */
const detectableWithin = (spread, level, margin, required) => (level < required - 1e-12 ? null : detectableRatios(spread, level, margin));

/**
 * How a server's times compare with its baseline's: the ratio of the medians, its interval and
 * the verdict. With fewer than two values on either side there is no interval and no verdict.
 * @param {number[]} h2Values  non-empty
 * @param {number[]} h1Values  non-empty
 * @param {number} [margin] practicalMargin unless given
 * @param {number} [required]  the level a verdict needs: verdictLevel unless given (a look of
 *   several, common/stats/until-decided.js), and then said in the answer as requiredLevel
 * @returns {import('../report/result.js').Ratio}
 */
export function compare(h2Values, h1Values, margin = practicalMargin, required = verdictLevel) {
  if (h2Values.length === 0 || h1Values.length === 0) throw new RangeError('compare needs at least one value on each side');
  const a = sorted(h2Values);
  const b = sorted(h1Values);
  const ratio = median(a) / median(b);
  const asked = required === verdictLevel ? {} : { requiredLevel: required };
  if (a.length < 2 || b.length < 2) return { ratio, ci95: null, ciLevel: null, verdict: verdicts.unclear, pDecided: 1, ...asked };
  const ladder = ratioLadder(a, b);
  const { interval, level } = rungFor(ladder, required);
  const detectable = detectableWithin(unpairedSpread(a, b), level, margin, required);
  return { ratio, ci95: interval, ciLevel: level, verdict: verdictOf(interval, level, margin, required), pDecided: decisionRate(ladder, margin), detectable, ...asked };
}

/**
 * How a server's times compare with its baseline's repeat by repeat, under the same loss seed: the
 * pairs' ratio (pairedRatioInterval), its interval and the verdict by the same rule as compare's.
 * With fewer than two pairs there is no interval and no verdict; with none, the ratio is that of
 * the medians of all valid runs (the `unpaired` values), for the tables.
 * @param {[number, number][]} pairs  [server, baseline] times of the same repeat
 * @param {{ a: number[], b: number[] }} unpaired  each side's valid times, non-empty
 * @param {number} [margin] practicalMargin unless given
 * @param {number} [required]  the level a verdict needs (compare)
 * @returns {import('../report/result.js').Ratio & { paired: true, pairs: number }}
 */
export function comparePaired(pairs, unpaired, margin = practicalMargin, required = verdictLevel) {
  const n = pairs.length;
  const asked = required === verdictLevel ? {} : { requiredLevel: required };
  if (n < 2) {
    const ratio = n ? pairs[0][0] / pairs[0][1] : median(unpaired.a) / median(unpaired.b);
    return { ratio, ci95: null, ciLevel: null, verdict: verdicts.unclear, pDecided: 1, paired: true, pairs: n, ...asked };
  }
  const ladder = pairedLadder(pairs);
  const { interval, level } = rungFor(ladder, required);
  const ratio = Math.exp(median(ladder.values));
  const detectable = detectableWithin(pairedSpread(pairs), level, margin, required);
  return { ratio, ci95: interval, ciLevel: level, verdict: verdictOf(interval, level, margin, required), pDecided: decisionRate(ladder, margin), detectable, paired: true, pairs: n, ...asked };
}

/**
 * The runs of `server` and `baseline` as pairs, when every valid run of both drew its losses from
 * a seed (a lossy packet path: run.lossSeed): [server, baseline] times of each repeat both ran
 * validly under the same seed; a run without its partner drops out. Null when not every valid run
 * has a seed: those runs are compared unpaired.
 * @param {import('../report/result.js').RunRecord[]} runs
 * @param {string} server @param {string} baseline
 * @returns {[number, number][]|null}
 */
function seededPairs(runs, server, baseline) {
  const a = runs.filter((r) => r.valid && r.server === server);
  const b = runs.filter((r) => r.valid && r.server === baseline);
  if (![...a, ...b].every((r) => r.lossSeed != null)) return null;
  const partners = new Map(b.map((r) => [r.repeat, r]));
  return a.flatMap((r) => {
    const partner = partners.get(r.repeat);
    return partner && partner.lossSeed === r.lossSeed ? [/** @type {[number, number]} */ ([r.totalMs, partner.totalMs])] : [];
  });
}

/**
 * "95 %", "90 %": an interval's level as printed (rounded down, so it never claims more); "" for
 * a result saved before intervals said their level. A level a look of several required is
 * printed with a decimal ("98.9 %"), and so are the intervals beside it, rounded down alike.
 * @param {number|null|undefined} level
 * @param {number} [decimals]
 */
export const levelText = (level, decimals = 0) => (level == null ? '' : `${(Math.floor(level * 100 * 10 ** decimals + 1e-9) / 10 ** decimals).toFixed(decimals)} %`);

/**
 * Median server CPU and connections per valid run (null where no run recorded them).
 * @param {import('../report/result.js').RunRecord[]} runs
 * @param {string} server
 * @returns {import('../report/result.js').ServerCost}
 */
function serverCost(runs, server) {
  const paid = runs.filter((r) => r.server === server && r.valid && r.serverStats).map((r) => /** @type {NonNullable<typeof r.serverStats>} */ (r.serverStats));
  return {
    serverCpuMs: paid.length ? median(paid.map((p) => p.cpuMs)) : null,
    connectionsPerRun: paid.length ? median(paid.map((p) => p.connectionsOpened)) : null,
  };
}

/**
 * Summary per server over its valid runs, and a comparison of every server with each of its
 * baselines (common/setup/servers.js baselinesOf: the family's HTTP/1.1 server; for HTTP/3 also the
 * family's HTTP/2 server) when both have at least one valid run: paired repeat by repeat when
 * their runs lost packets from seeds (seededPairs), unpaired otherwise.
 * @param {import('../report/result.js').RunRecord[]} runs
 * @param {number | ((c: { server: string, baseline: string, paired: boolean }) => number)} [required]  the level a verdict
 *   needs (compare): one for every comparison, or each its own (common/stats/family.js: its step of Holm's)
 * @returns {{ summary: Record<string, import('../report/result.js').ServerSummary>, comparisons: import('../report/result.js').Comparison[] }}
 */
export function summarizeResult(runs, required = verdictLevel) {
  /** @type {Map<string, number[]>} */
  const totals = new Map();
  for (const run of runs) {
    if (!totals.has(run.server)) totals.set(run.server, []);
    if (run.valid) totals.get(run.server)?.push(run.totalMs);
  }
  // In the registry's order, not the alternating order the runs happened in.
  const entries = inServerOrder(totals.keys()).map((id) => /** @type {[string, number[]]} */ ([id, totals.get(id)]));
  const summary = Object.fromEntries(entries.map(([server, values]) => [server, { ...summarize(values), ...serverCost(runs, server) }]));
  const comparisons = entries
    .flatMap(([server, values]) => baselinesOf(server).map((baseline) => ({ server, baseline, values })))
    .filter(({ baseline, values }) => values.length > 0 && (totals.get(baseline)?.length ?? 0) > 0)
    .map(({ server, baseline, values }) => {
      const base = /** @type {number[]} */ (totals.get(baseline));
      const pairs = seededPairs(runs, server, baseline);
      const level = typeof required === 'number' ? required : required({ server, baseline, paired: pairs !== null });
      return { server, baseline, ...(pairs ? comparePaired(pairs, { a: values, b: base }, practicalMargin, level) : compare(values, base, practicalMargin, level)) };
    });
  return { summary, comparisons: againstControl(comparisons) };
}

/**
 * With an A/A control, every faster or slower verdict whose ratio lies inside the A/A interval
 * says so: two measurements of one server differed that much, so the difference is no finding.
 * @param {import('../report/result.js').Comparison[]} comparisons
 * @returns {import('../report/result.js').Comparison[]}
 */
function againstControl(comparisons) {
  const spread = comparisons.find((c) => twinOf(c.server) !== null)?.ci95;
  if (!spread) return comparisons;
  /** @type {import('../report/result.js').Verdict[]} */
  const decided = [verdicts.faster, verdicts.slower];
  return comparisons.map((c) => (twinOf(c.server) === null && decided.includes(c.verdict) && c.ratio >= spread[0] && c.ratio <= spread[1] ? { ...c, insideControl: spread } : c));
}

/** @param {number} x */
const two = (x) => x.toFixed(2);

/**
 * "0.44× (faster)", "0.44× (faster, paired)": a ratio and its verdict, short, for tables.
 * @param {{ ratio: number, verdict: string, paired?: boolean }} ratio
 */
export const ratioWithVerdict = ({ ratio, verdict, paired }) => `${two(ratio)}× (${verdict}${paired ? ', paired' : ''})`;

/**
 * One sentence for a comparison, with the servers' labels; a paired one says so and how many pairs.
 * @param {{ server: string, baseline?: string, insideControl?: [number, number] } & import('../report/result.js').Ratio} comparison  baseline: absent in results saved before comparisons named it
 */
export function verdictText({ server, baseline, ratio, ci95, ciLevel, verdict, paired, pairs, insideControl, requiredLevel }) {
  const twin = twinOf(server);
  const name = twin === null ? serverLabel(server) : `A/A control: ${serverLabel(twin)} measured again`;
  const base = serverLabel(/** @type {string} */ (baseline ?? baselineOf(server))); // results saved before comparisons named it; a compared server has a baseline
  if (ci95 === null && paired) return `${name} vs ${base}: ${two(ratio)}× the time, but too few pairs for a verdict (${pairs ?? 0} repeats ran validly on both under the same losses; at least 2)`;
  if (ci95 === null) return `${name} vs ${base}: ${two(ratio)}× the time, but too few valid runs for a verdict (at least 2 each)`;
  const required = requiredLevel ?? verdictLevel;
  // Where a look of several decided, the level it asked for, which is more than verdictLevel.
  const decimals = requiredLevel == null ? 0 : 1;
  const ci = `${paired ? 'paired ' : ''}${levelText(ciLevel, decimals)} CI ${two(ci95[0])}–${two(ci95[1])}${paired ? ` over ${pairs} pairs` : ''}${requiredLevel == null ? '' : `, ${levelText(requiredLevel, 1)} required`}`.trim();
  if (verdict === verdicts.unclear) {
    const short = ciLevel != null && ciLevel < required - 1e-12 ? `; ${levelText(ciLevel, decimals)} is the most these runs allow, a verdict needs ${levelText(required, decimals)}` : '';
    return `${name} shows no clear difference from ${base} (${two(ratio)}×, ${ci}${short})`;
  }
  if (verdict === verdicts.meaningless) return `${name} shows no meaningful difference from ${base}: ${two(ratio)}× the time (${ci}, within ±${practicalMargin * 100} %)`;
  const noise = insideControl ? `, but inside the A/A control's ${two(insideControl[0])}–${two(insideControl[1])}: not a finding` : '';
  return `${name} is ${verdict} than ${base}: ${two(ratio)}× the time (${ci})${noise}`;
}
