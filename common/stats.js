// Summaries and HTTP/2-vs-HTTP/1.1 verdicts over the total times of runs. Medians, because a run
// time has a long right tail (GC, a slow connection set-up); their uncertainty comes from a
// percentile bootstrap, which assumes no distribution. Quantiles are simple-statistics' (linear
// interpolation, R type 7 / numpy's default).
import { max, mean, median, min, quantile, quantileSorted, sampleStandardDeviation, sampleWithReplacement } from 'simple-statistics';
import { baselineOf, baselinesOf, inServerOrder, serverLabel } from './servers.js';

const resamples = 2000;

/**
 * A ratio whose whole 95 % interval lies within this fraction of 1 is "no meaningful difference",
 * even when the interval excludes 1: 2 % is about the run-to-run spread of a quiet machine's
 * medians (docs/performance.md) and below what a person would act on when choosing a protocol.
 */
export const practicalMargin = 0.02;

/** The verdicts, from the interval of a ratio (< 1: the server is faster than its baseline). */
export const verdicts = Object.freeze({
  faster: 'faster',
  slower: 'slower',
  meaningless: 'no meaningful difference',
  unclear: 'no clear difference',
});

/**
 * @param {[number, number]} ci95
 * @param {number} margin
 * @returns {import('./result.js').Verdict}
 */
function verdictOf([lo, hi], margin) {
  if (lo >= 1 - margin && hi <= 1 + margin) return verdicts.meaningless;
  if (hi < 1) return verdicts.faster;
  if (lo > 1) return verdicts.slower;
  return verdicts.unclear;
}

/**
 * mulberry32: a tiny seeded PRNG, so the same data always give the same interval.
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
 * FNV-1a over the bits of every value; the arrays are sorted first, so their order does not matter.
 * @param {...number[]} sortedArrays
 */
function seedFrom(...sortedArrays) {
  const view = new DataView(new ArrayBuffer(8));
  let h = 0x811c9dc5;
  for (const values of sortedArrays) {
    for (const v of values) {
      view.setFloat64(0, v);
      h = Math.imul(h ^ view.getUint32(0), 0x01000193);
      h = Math.imul(h ^ view.getUint32(4), 0x01000193);
    }
    h = Math.imul(h ^ values.length, 0x01000193); // [1],[2,3] and [1,2],[3] differ
  }
  return h >>> 0;
}

/** @param {number[]} values */
const sorted = (values) => [...values].sort((a, b) => a - b);

/**
 * @param {number[]} estimates
 * @returns {[number, number]} the central 95 % of the bootstrap's estimates
 */
function interval(estimates) {
  const [lo, hi] = quantile(estimates, [0.025, 0.975]);
  return [lo, hi];
}

/**
 * @param {number[]} values
 * @returns {import('./result.js').Summary}
 */
export function summarize(values) {
  const n = values.length;
  if (n === 0) return { n, median: null, mean: null, p95: null, min: null, max: null, sd: null, ci95: null };
  const xs = sorted(values);
  const m = median(xs);
  let ci95 = null; // one run has no spread to draw an interval from
  if (n >= 2) {
    const random = mulberry32(seedFrom(xs));
    const medians = Array.from({ length: resamples }, () => median(sampleWithReplacement(xs, n, random)));
    ci95 = interval(medians);
  }
  return {
    n,
    median: m,
    mean: mean(xs),
    p95: quantileSorted(xs, 0.95),
    min: min(xs),
    max: max(xs),
    sd: n >= 2 ? sampleStandardDeviation(xs) : 0,
    ci95,
  };
}

/**
 * How an HTTP/2 server's times compare with HTTP/1.1's. With fewer than two values on either
 * side a bootstrap cannot see the spread, so there is no interval and no verdict.
 * @param {number[]} h2Values  non-empty
 * @param {number[]} h1Values  non-empty
 * @param {number} [margin] practicalMargin unless given
 * @returns {import('./result.js').Ratio}
 */
export function compare(h2Values, h1Values, margin = practicalMargin) {
  if (h2Values.length === 0 || h1Values.length === 0) throw new RangeError('compare needs at least one value on each side');
  const a = sorted(h2Values);
  const b = sorted(h1Values);
  const ratio = median(a) / median(b);
  if (a.length < 2 || b.length < 2) return { ratio, ci95: null, verdict: verdicts.unclear };
  const random = mulberry32(seedFrom(a, b));
  const ratios = Array.from(
    { length: resamples },
    () => median(sampleWithReplacement(a, a.length, random)) / median(sampleWithReplacement(b, b.length, random)),
  );
  const ci95 = interval(ratios);
  return { ratio, ci95, verdict: verdictOf(ci95, margin) };
}

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
 * @returns {{ summary: Record<string, import('./result.js').ServerSummary>, comparisons: import('./result.js').Comparison[] }}
 */
export function summarizeResult(runs) {
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
    .map(({ server, baseline, values }) => ({ server, baseline, ...compare(values, /** @type {number[]} */ (totals.get(baseline))) }));
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
export function verdictText({ server, baseline, ratio, ci95, verdict }) {
  const name = serverLabel(server);
  const base = serverLabel(/** @type {string} */ (baseline ?? baselineOf(server))); // results saved before comparisons named it; a compared server has a baseline
  if (ci95 === null) return `${name} vs ${base}: ${two(ratio)}× the time, but too few valid runs for a verdict (at least 2 each)`;
  const ci = `95 % CI ${two(ci95[0])}–${two(ci95[1])}`;
  if (verdict === verdicts.unclear) return `${name} shows no clear difference from ${base} (${two(ratio)}×, ${ci})`;
  if (verdict === verdicts.meaningless) return `${name} shows no meaningful difference from ${base}: ${two(ratio)}× the time (${ci}, within ±${practicalMargin * 100} %)`;
  return `${name} is ${verdict} than ${base}: ${two(ratio)}× the time (${ci})`;
}
