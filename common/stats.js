// Summaries and HTTP/2-vs-HTTP/1.1 verdicts over the total times of runs. Medians, because a run
// time has a long right tail (GC, a slow connection set-up). Their intervals are exact and assume
// no distribution, and each says its level: a handful of runs cannot give 95 % (docs/statistics.md).
// - A median's: between two order statistics, from the binomial (3 runs: min–max, 75 %).
// - A ratio's: the Hodges–Lehmann interval of the shift between the two sets' logarithms, from the
//   Mann–Whitney distribution (exact up to 20 runs a side, its normal approximation beyond): 3
//   runs against 3 give at most 90 % (all of one below all of the other has a chance of 1 in 20
//   each way), 4 against 4 give 97 %.
// A verdict needs a 95 % interval, so two servers that do not differ get "faster" or "slower" in
// at most 5 % of comparisons (stats.spec.js simulates it on skewed and bimodal times).
import { max, mean, median, min, quantileSorted, sampleStandardDeviation } from 'simple-statistics';
import { baselineOf, baselinesOf, inServerOrder, serverLabel } from './servers.js';

/**
 * A ratio whose whole interval lies within this fraction of 1 is "no meaningful difference", and
 * "faster" or "slower" needs the whole interval beyond it: 2 % is about the run-to-run spread of a
 * quiet machine's medians (docs/performance.md) and below what a person would act on when
 * choosing a protocol.
 */
export const practicalMargin = 0.02;

/**
 * The level an interval must reach before a verdict is drawn from it, when one look at the data
 * decides; repeats until decided (common/until-decided.js) ask more of each of several looks.
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
 * @returns {import('./result.js').Verdict}
 */
function verdictOf([lo, hi], level, margin, required) {
  if (level < required - 1e-12) return verdicts.unclear;
  if (lo >= 1 - margin && hi <= 1 + margin) return verdicts.meaningless;
  if (hi < 1 - margin) return verdicts.faster;
  if (lo > 1 + margin) return verdicts.slower;
  return verdicts.unclear;
}

/**
 * mulberry32: a tiny seeded PRNG (the simulations in stats.spec.js, the lab's loss seeds).
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
 * The ratio's interval: exp of the Hodges–Lehmann interval of log a − log b, the k-th smallest and
 * k-th largest of the m·n pairwise differences, with its level from the Mann–Whitney distribution.
 * @param {number[]} a  at least two, positive
 * @param {number[]} b  at least two, positive
 * @param {number} [target]  the level to reach where the runs allow it; verdictLevel unless given
 * @returns {{ interval: [number, number], level: number }}
 */
export function ratioInterval(a, b, target = verdictLevel) {
  const differences = sorted(a.flatMap((x) => b.map((y) => Math.log(x) - Math.log(y))));
  const pairs = differences.length;
  const { k, level } = orderIndex(mannWhitneyCdf(a.length, b.length), Math.floor(pairs / 2), target);
  return { interval: [Math.exp(differences[k - 1]), Math.exp(differences[pairs - k])], level };
}

/**
 * @param {number[]} values
 * @returns {import('./result.js').Summary}
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
 * How a server's times compare with its baseline's: the ratio of the medians, its interval and
 * the verdict. With fewer than two values on either side there is no interval and no verdict.
 * @param {number[]} h2Values  non-empty
 * @param {number[]} h1Values  non-empty
 * @param {number} [margin] practicalMargin unless given
 * @param {number} [required]  the level a verdict needs: verdictLevel unless given (a look of
 *   several, common/until-decided.js), and then said in the answer as requiredLevel
 * @returns {import('./result.js').Ratio}
 */
export function compare(h2Values, h1Values, margin = practicalMargin, required = verdictLevel) {
  if (h2Values.length === 0 || h1Values.length === 0) throw new RangeError('compare needs at least one value on each side');
  const a = sorted(h2Values);
  const b = sorted(h1Values);
  const ratio = median(a) / median(b);
  const asked = required === verdictLevel ? {} : { requiredLevel: required };
  if (a.length < 2 || b.length < 2) return { ratio, ci95: null, ciLevel: null, verdict: verdicts.unclear, ...asked };
  const { interval, level } = ratioInterval(a, b, required);
  return { ratio, ci95: interval, ciLevel: level, verdict: verdictOf(interval, level, margin, required), ...asked };
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
 * @param {import('./result.js').RunRecord[]} runs
 * @param {string} server
 * @returns {import('./result.js').ServerCost}
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
 * baselines (common/servers.js baselinesOf: the family's HTTP/1.1 server; for HTTP/3 also the
 * family's HTTP/2 server) when both have at least one valid run.
 * @param {import('./result.js').RunRecord[]} runs
 * @param {number} [required]  the level a verdict needs (compare)
 * @returns {{ summary: Record<string, import('./result.js').ServerSummary>, comparisons: import('./result.js').Comparison[] }}
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
    .map(({ server, baseline, values }) => ({ server, baseline, ...compare(values, /** @type {number[]} */ (totals.get(baseline)), practicalMargin, required) }));
  return { summary, comparisons };
}

/** @param {number} x */
const two = (x) => x.toFixed(2);

/**
 * "0.44× (faster)": a ratio and its verdict, short, for tables.
 * @param {{ ratio: number, verdict: string }} ratio
 */
export const ratioWithVerdict = ({ ratio, verdict }) => `${two(ratio)}× (${verdict})`;

/**
 * One sentence for a comparison, with the servers' labels.
 * @param {{ server: string, baseline?: string } & import('./result.js').Ratio} comparison  baseline: absent in results saved before comparisons named it
 */
export function verdictText({ server, baseline, ratio, ci95, ciLevel, verdict, requiredLevel }) {
  const name = serverLabel(server);
  const base = serverLabel(/** @type {string} */ (baseline ?? baselineOf(server))); // results saved before comparisons named it; a compared server has a baseline
  if (ci95 === null) return `${name} vs ${base}: ${two(ratio)}× the time, but too few valid runs for a verdict (at least 2 each)`;
  const required = requiredLevel ?? verdictLevel;
  // Where a look of several decided, the level it asked for, which is more than verdictLevel.
  const decimals = requiredLevel == null ? 0 : 1;
  const ci = `${levelText(ciLevel, decimals)} CI ${two(ci95[0])}–${two(ci95[1])}${requiredLevel == null ? '' : `, ${levelText(requiredLevel, 1)} required`}`.trim();
  if (verdict === verdicts.unclear) {
    const short = ciLevel != null && ciLevel < required - 1e-12 ? `; ${levelText(ciLevel, decimals)} is the most these runs allow, a verdict needs ${levelText(required, decimals)}` : '';
    return `${name} shows no clear difference from ${base} (${two(ratio)}×, ${ci}${short})`;
  }
  if (verdict === verdicts.meaningless) return `${name} shows no meaningful difference from ${base}: ${two(ratio)}× the time (${ci}, within ±${practicalMargin * 100} %)`;
  return `${name} is ${verdict} than ${base}: ${two(ratio)}× the time (${ci})`;
}
