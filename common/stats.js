// Summaries and HTTP/2-vs-HTTP/1.1 verdicts over the total times of runs. Medians, because a run
// time has a long right tail (GC, a slow connection set-up). Their intervals are exact and assume
// no distribution, and each says its level: a handful of runs cannot give 95 % (docs/statistics.md).
// - A median's: between two order statistics, from the binomial (3 runs: min–max, 75 %).
// - A ratio's: the Hodges–Lehmann interval of the shift between the two sets' logarithms, from the
//   Mann–Whitney distribution (exact up to 20 runs a side, its normal approximation beyond): 3
//   runs against 3 give at most 90 % (all of one below all of the other has a chance of 1 in 20
//   each way), 4 against 4 give 97 %.
// - A paired ratio's (runs under the same loss seed, repeat against repeat): the Hodges–Lehmann
//   interval of the pairs' log-ratios, between Walsh averages, from the Wilcoxon signed-rank
//   distribution (exact up to exactSignedRankPairs pairs): 4 pairs give at most 87.5 %, 5 93.75 %,
//   6 96.9 %. Pairing takes out what the two runs of a repeat share (the same losses).
// A verdict needs a 95 % interval, so two servers that do not differ get "faster" or "slower" in
// at most 5 % of comparisons (stats.spec.js simulates it on skewed and bimodal times, paired too).
import { max, mean, median, min, quantileSorted, sampleStandardDeviation } from 'simple-statistics';
import { baselineOf, baselinesOf, inServerOrder, serverLabel, twinOf } from './servers.js';

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
  const d = pairs.map(([a, b]) => Math.log(a) - Math.log(b));
  const walsh = sorted(d.flatMap((x, i) => d.slice(i).map((y) => (x + y) / 2)));
  const m = walsh.length;
  const { k, level } = orderIndex(signedRankCdf(d.length), Math.floor(m / 2), target);
  return { ratio: Math.exp(median(walsh)), interval: [Math.exp(walsh[k - 1]), Math.exp(walsh[m - k])], level };
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
 * How a server's times compare with its baseline's repeat by repeat, under the same loss seed: the
 * pairs' ratio (pairedRatioInterval), its interval and the verdict by the same rule as compare's.
 * With fewer than two pairs there is no interval and no verdict; with none, the ratio is that of
 * the medians of all valid runs (the `unpaired` values), for the tables.
 * @param {[number, number][]} pairs  [server, baseline] times of the same repeat
 * @param {{ a: number[], b: number[] }} unpaired  each side's valid times, non-empty
 * @param {number} [margin] practicalMargin unless given
 * @param {number} [required]  the level a verdict needs (compare)
 * @returns {import('./result.js').Ratio & { paired: true, pairs: number }}
 */
export function comparePaired(pairs, unpaired, margin = practicalMargin, required = verdictLevel) {
  const n = pairs.length;
  const asked = required === verdictLevel ? {} : { requiredLevel: required };
  if (n < 2) {
    const ratio = n ? pairs[0][0] / pairs[0][1] : median(unpaired.a) / median(unpaired.b);
    return { ratio, ci95: null, ciLevel: null, verdict: verdicts.unclear, paired: true, pairs: n, ...asked };
  }
  const { ratio, interval, level } = pairedRatioInterval(pairs, required);
  return { ratio, ci95: interval, ciLevel: level, verdict: verdictOf(interval, level, margin, required), paired: true, pairs: n, ...asked };
}

/**
 * The runs of `server` and `baseline` as pairs, when every valid run of both drew its losses from
 * a seed (a lossy packet path: run.lossSeed): [server, baseline] times of each repeat both ran
 * validly under the same seed; a run without its partner drops out. Null when not every valid run
 * has a seed: those runs are compared unpaired.
 * @param {import('./result.js').RunRecord[]} runs
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
 * family's HTTP/2 server) when both have at least one valid run: paired repeat by repeat when
 * their runs lost packets from seeds (seededPairs), unpaired otherwise.
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
    .map(({ server, baseline, values }) => {
      const base = /** @type {number[]} */ (totals.get(baseline));
      const pairs = seededPairs(runs, server, baseline);
      return { server, baseline, ...(pairs ? comparePaired(pairs, { a: values, b: base }, practicalMargin, required) : compare(values, base, practicalMargin, required)) };
    });
  return { summary, comparisons: againstControl(comparisons) };
}

/**
 * With an A/A control, every faster or slower verdict whose ratio lies inside the A/A interval
 * says so: two measurements of one server differed that much, so the difference is no finding.
 * @param {import('./result.js').Comparison[]} comparisons
 * @returns {import('./result.js').Comparison[]}
 */
function againstControl(comparisons) {
  const spread = comparisons.find((c) => twinOf(c.server) !== null)?.ci95;
  if (!spread) return comparisons;
  /** @type {import('./result.js').Verdict[]} */
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
 * @param {{ server: string, baseline?: string, insideControl?: [number, number] } & import('./result.js').Ratio} comparison  baseline: absent in results saved before comparisons named it
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
