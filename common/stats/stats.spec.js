import { probit } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../setup/seeds.js';
import { compare, comparePaired, medianInterval, pairedRatioInterval, practicalMargin, ratioInterval, summarize, summarizeResult, verdicts, verdictText } from './stats.js';

// n evenly spaced quantiles of a normal distribution: realistic spread, no randomness in the test.
const normal = (n, meanMs, sdMs) => Array.from({ length: n }, (_, i) => meanMs + sdMs * probit((i + 0.5) / n));
const oneToTwenty = Array.from({ length: 20 }, (_, i) => 20 - i); // descending on purpose

describe('summarize', () => {
  it('computes the known statistics of 1..20', () => {
    const s = summarize(oneToTwenty);
    expect(s.n).toBe(20);
    expect(s.median).toBe(10.5);
    expect(s.mean).toBe(10.5);
    // type 7: position (20 − 1) × 0.95 = 18.05 → 19 + 0.05 × (20 − 19)
    expect(s.p95).toBeCloseTo(19.05, 12);
    expect(s.min).toBe(1);
    expect(s.max).toBe(20);
    expect(s.sd).toBeCloseTo(Math.sqrt(35), 12); // sample sd of 1..n is sqrt(n(n+1)/12)
  });

  it('interpolates p95 between the two nearest values', () => {
    expect(summarize([3, 1, 2]).p95).toBeCloseTo(2.9, 12); // position 1.9
    expect(summarize([10, 20]).median).toBe(15);
  });

  it('gives a point interval and sd 0 for a single value', () => {
    expect(summarize([42])).toEqual({ n: 1, median: 42, mean: 42, p95: 42, min: 42, max: 42, sd: 0, ci95: null, ciLevel: null });
  });

  it('gives nulls for no values', () => {
    expect(summarize([])).toEqual({ n: 0, median: null, mean: null, p95: null, min: null, max: null, sd: null, ci95: null, ciLevel: null });
  });

  it('brackets the median with an interval that narrows as data grow', () => {
    const small = summarize(normal(10, 500, 50));
    const large = summarize(normal(200, 500, 50));
    for (const s of [small, large]) {
      expect(s.ci95[0]).toBeLessThanOrEqual(s.median);
      expect(s.ci95[1]).toBeGreaterThanOrEqual(s.median);
      expect(s.ci95[1]).toBeGreaterThan(s.ci95[0]);
    }
    expect(large.ci95[1] - large.ci95[0]).toBeLessThan((small.ci95[1] - small.ci95[0]) / 2);
  });

  it('is deterministic and ignores the order of values', () => {
    const values = normal(15, 300, 40);
    const once = summarize(values);
    expect(summarize(values)).toEqual(once);
    expect(summarize([...values].reverse())).toEqual(once);
    expect(summarize(values.map((v) => v + 0.001)).ci95).not.toEqual(once.ci95); // the seed follows the data
  });
});

describe('compare', () => {
  const h1 = normal(10, 1000, 60);

  it('calls a clearly shorter time faster', () => {
    const c = compare(normal(10, 600, 40), h1);
    expect(c.ratio).toBeCloseTo(0.6, 2);
    expect(c.ci95[1]).toBeLessThan(1);
    expect(c.ci95[0]).toBeLessThanOrEqual(c.ratio);
    expect(c.ci95[1]).toBeGreaterThanOrEqual(c.ratio);
    expect(c.verdict).toBe('faster');
  });

  it('calls a clearly longer time slower', () => {
    const c = compare(normal(10, 1400, 80), h1);
    expect(c.ci95[0]).toBeGreaterThan(1);
    expect(c.verdict).toBe('slower');
  });

  it('sees no clear difference in overlapping data', () => {
    const c = compare(normal(10, 1010, 60), h1);
    expect(c.ci95[0]).toBeLessThan(1);
    expect(c.ci95[1]).toBeGreaterThan(1);
    expect(c.verdict).toBe('no clear difference');
  });

  it('calls an interval that excludes 1 but stays within the practical margin no meaningful difference', () => {
    // 1,002 ms against 1,000 ms with almost no spread: the interval excludes 1.00, the difference is 0.2 %.
    // 6 runs a side: Brunner–Munzel's level lets 5 reach 93.9 % at most.
    const c = compare([1002, 1002.1, 1001.9, 1002, 1002.05, 1001.95], [1000, 1000.1, 999.9, 1000, 1000.05, 999.95]);
    expect(c.ci95[0]).toBeGreaterThan(1);
    expect(c.ci95[1]).toBeLessThan(1 + practicalMargin);
    expect(c.verdict).toBe('no meaningful difference');
    expect(verdictText({ server: 'h2-spdy', baseline: 'h1', ...c })).toMatch(/no meaningful difference from HTTP\/1\.1: 1\.00× the time \(95 % CI 1\.00–1\.00, within ±2 %\)/);
    // The same data with no margin: slower, as before.
    expect(compare([1002, 1002.1, 1001.9, 1002, 1002.05, 1001.95], [1000, 1000.1, 999.9, 1000, 1000.05, 999.95], 0).verdict).toBe('slower');
  });

  it('is deterministic', () => {
    const h2 = normal(8, 900, 70);
    expect(compare(h2, h1)).toEqual(compare([...h2].reverse(), h1));
  });

  it('gives no interval and no verdict with a single run on either side', () => {
    expect(compare([500], h1)).toEqual({ ratio: 0.5, ci95: null, ciLevel: null, verdict: 'no clear difference', pDecided: 1 });
    expect(compare(h1, [2000]).ci95).toBeNull();
  });

  it('refuses empty input', () => {
    expect(() => compare([], h1)).toThrow(RangeError);
  });
});

describe('summarizeResult', () => {
  const run = (server, totalMs, valid = true) => ({ server, totalMs, valid });

  it('summarizes valid runs per server and compares each HTTP/2 server with h1', () => {
    const runs = [
      ...[10, 11, 12, 13, 14, 15].flatMap((t) => [run('h2-node', t * 6), run('h1', t * 10), run('h2-spdy', t * 10 + 0.5)]),
      run('h1', 1e6, false), // invalid: must not count
    ];
    const { summary, comparisons } = summarizeResult(runs);
    expect(Object.keys(summary)).toEqual(['h1', 'h2-spdy', 'h2-node']);
    expect(summary.h1.n).toBe(6);
    expect(summary.h1.max).toBe(150);
    expect(summary['h2-node'].median).toBe(75);
    expect(comparisons.map((c) => c.server)).toEqual(['h2-spdy', 'h2-node']);
    expect(comparisons[1].ratio).toBeCloseTo(0.6, 12);
    expect(comparisons[1].verdict).toBe('faster');
  });

  it('keeps a server whose runs are all invalid, with n 0 and no comparison', () => {
    const { summary, comparisons } = summarizeResult([run('h1', 100), run('h1', 110), run('h2-spdy', 50, false)]);
    expect(summary['h2-spdy'].n).toBe(0);
    expect(comparisons).toEqual([]);
  });

  it('compares an A/A control with its twin alone, and marks a verdict inside its spread', () => {
    // The control's own runs spread as much as 0.6–1.4× the twin's; HTTP/3 is 0.8× HTTP/2 throughout.
    const twin = [100, 104, 108, 112, 116];
    const runs = [
      ...twin.map((t) => run('caddy-h2', t)),
      ...[60, 75, 110, 125, 140].map((t) => run('caddy-h2-aa', t)),
      ...twin.map((t) => run('caddy-h3', t * 0.8)),
    ];
    const { summary, comparisons } = summarizeResult(runs);
    expect(Object.keys(summary)).toEqual(['caddy-h2', 'caddy-h2-aa', 'caddy-h3']);
    const aa = comparisons.find((c) => c.server === 'caddy-h2-aa');
    expect(comparisons.filter((c) => c.server === 'caddy-h2-aa').map((c) => c.baseline)).toEqual(['caddy-h2']);
    expect(aa?.verdict).toBe('no clear difference');
    const h3 = comparisons.find((c) => c.server === 'caddy-h3' && c.baseline === 'caddy-h2');
    expect(h3?.verdict).toBe('faster');
    expect(h3?.insideControl).toEqual(aa?.ci95);
    expect(verdictText(/** @type {any} */ (h3))).toMatch(/inside the A\/A control's 0\.\d\d–1\.\d\d: not a finding$/);
    expect(verdictText(/** @type {any} */ (aa))).toMatch(/^A\/A control: HTTP\/2 \(Caddy\) measured again shows no clear difference from HTTP\/2 \(Caddy\)/);
    // A control that spreads less than the difference leaves the verdict a finding.
    const tight = summarizeResult([...twin.map((t) => run('caddy-h2', t)), ...twin.map((t) => run('caddy-h2-aa', t + 1)), ...twin.map((t) => run('caddy-h3', t * 0.8))]);
    expect(tight.comparisons.find((c) => c.server === 'caddy-h3' && c.baseline === 'caddy-h2')?.insideControl).toBeUndefined();
  });

  it('pairs the runs repeat by repeat when every valid run lost packets from a seed, dropping those without a partner', () => {
    const seeded = (server, repeat, totalMs, extra = {}) => ({ server, repeat, totalMs, valid: true, lossSeed: 100 + repeat, ...extra });
    // The pairs share most of their time (the same losses): each repeat's h2-node run is 0.8 of h1's.
    const shared = [1000, 3000, 1500, 9000, 2000, 4000, 1200];
    const runs = shared.flatMap((t, i) => [seeded('h1', i + 1, t), seeded('h2-node', i + 1, 0.8 * t * (1 + 0.001 * i))]);
    runs.push(seeded('h1', 8, 5000)); // no partner
    runs.push(seeded('h2-node', 9, 700), seeded('h1', 9, 900, { lossSeed: 5 })); // not the same losses
    runs.push(seeded('h2-node', 10, 100, { valid: false }), seeded('h1', 10, 1000)); // an invalid partner
    const [c] = summarizeResult(runs).comparisons;
    expect(c).toMatchObject({ server: 'h2-node', baseline: 'h1', paired: true, pairs: 7, verdict: 'faster' });
    expect(c.ciLevel).toBeGreaterThanOrEqual(0.95);
    expect(c.ratio).toBeCloseTo(0.8 * 1.003, 3);
    // Unpaired, the same runs' spread hides it.
    expect(compare(runs.filter((r) => r.valid && r.server === 'h2-node').map((r) => r.totalMs), runs.filter((r) => r.valid && r.server === 'h1').map((r) => r.totalMs)).verdict).toBe('no clear difference');
  });

  it('compares unpaired when a valid run has no loss seed (a clean path, a result from before seeds)', () => {
    const runs = [1, 2, 3, 4].flatMap((k) => [{ server: 'h1', repeat: k, totalMs: 100 + k, valid: true, lossSeed: k }, { server: 'h2-node', repeat: k, totalMs: 50 + k, valid: true, lossSeed: k }]);
    runs[0].lossSeed = null;
    const [c] = summarizeResult(runs).comparisons;
    expect(c.paired).toBeUndefined();
    // At most Mann–Whitney's 1 − 2/70 for 4 against 4; Brunner–Munzel's estimated spread gives less.
    expect(c.ciLevel).toBeLessThanOrEqual(1 - 2 / 70 + 1e-12);
  });

  it('compares nothing without h1', () => {
    const { summary, comparisons } = summarizeResult([run('h2-node', 50), run('h2-spdy', 60)]);
    expect(Object.keys(summary)).toEqual(['h2-spdy', 'h2-node']);
    expect(comparisons).toEqual([]);
  });
});

describe('verdictText', () => {
  it('words each verdict', () => {
    expect(verdictText({ server: 'h2-node', ratio: 0.6234, ci95: [0.581, 0.6649], ciLevel: 0.97, verdict: 'faster' }))
      .toBe('HTTP/2 (node:http2) is faster than HTTP/1.1: 0.62× the time (97 % CI 0.58–0.66)');
    expect(verdictText({ server: 'h2-spdy', ratio: 1.3, ci95: [1.2, 1.45], ciLevel: 0.95, verdict: 'slower' }))
      .toBe('HTTP/2 (spdy) is slower than HTTP/1.1: 1.30× the time (95 % CI 1.20–1.45)');
    expect(verdictText({ server: 'h2-spdy', ratio: 0.97, ci95: [0.91, 1.04], ciLevel: 0.96, verdict: 'no clear difference' }))
      .toBe('HTTP/2 (spdy) shows no clear difference from HTTP/1.1 (0.97×, 96 % CI 0.91–1.04)');
    expect(verdictText({ server: 'h2-spdy', ratio: 0.8, ci95: [0.7, 0.9], ciLevel: 0.9, verdict: 'no clear difference' }))
      .toBe('HTTP/2 (spdy) shows no clear difference from HTTP/1.1 (0.80×, 90 % CI 0.70–0.90; 90 % is the most these runs allow, a verdict needs 95 %)');
    expect(verdictText({ server: 'h2-node', ratio: 0.5, ci95: null, verdict: 'no clear difference' }))
      .toMatch(/^HTTP\/2 \(node:http2\) vs HTTP\/1\.1: 0\.50× the time, but too few valid runs/);
  });

  it('says a comparison is paired, and over how many pairs', () => {
    expect(verdictText({ server: 'h2-node', baseline: 'h1', ratio: 0.8, ci95: [0.7, 0.9], ciLevel: 0.96875, verdict: 'faster', paired: true, pairs: 6 }))
      .toBe('HTTP/2 (node:http2) is faster than HTTP/1.1: 0.80× the time (paired 96 % CI 0.70–0.90 over 6 pairs)');
    expect(verdictText({ server: 'h2-node', baseline: 'h1', ratio: 0.8, ci95: [0.7, 0.9], ciLevel: 0.9375, verdict: 'no clear difference', paired: true, pairs: 5 }))
      .toBe('HTTP/2 (node:http2) shows no clear difference from HTTP/1.1 (0.80×, paired 93 % CI 0.70–0.90 over 5 pairs; 93 % is the most these runs allow, a verdict needs 95 %)');
    expect(verdictText({ server: 'h2-node', baseline: 'h1', ratio: 0.8, ci95: null, ciLevel: null, verdict: 'no clear difference', paired: true, pairs: 1 }))
      .toMatch(/too few pairs for a verdict \(1 repeats ran validly on both under the same losses; at least 2\)$/);
  });
});

describe('server cost in the summary', () => {
  const run = (server, totalMs, cpuMs, connectionsOpened, valid = true) => ({
    server, totalMs, valid, invalidReasons: [], serverStats: { cpuMs, connectionsOpened, requests: 100, bytesSent: 0 },
  });

  it('takes the median CPU and connections over the valid runs that recorded them', () => {
    const { summary } = summarizeResult([run('h1', 100, 40, 6), run('h1', 110, 50, 6), run('h1', 120, 90, 5), run('h1', 500, 900, 1, false)]);
    expect(summary.h1.serverCpuMs).toBe(50);
    expect(summary.h1.connectionsPerRun).toBe(6);
  });

  it('is null for runs from before serverStats', () => {
    const { summary } = summarizeResult([{ server: 'h2-node', totalMs: 10, valid: true, invalidReasons: [] }]);
    expect(summary['h2-node'].serverCpuMs).toBeNull();
    expect(summary['h2-node'].connectionsPerRun).toBeNull();
  });
});

describe('interval levels', () => {
  it("gives the median's interval between order statistics with its exact level", () => {
    expect(medianInterval([1, 2, 3])).toEqual({ interval: [1, 3], level: 0.75 });
    expect(medianInterval([1, 2, 3, 4, 5]).level).toBe(0.9375);
    expect(medianInterval([1, 2, 3, 4, 5, 6])).toEqual({ interval: [1, 6], level: 0.96875 });
    // 20 runs: the 6th and 15th (P(Bin(20, ½) ≤ 5) = 0.0207).
    const twenty = medianInterval(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(twenty.interval).toEqual([6, 15]);
    expect(twenty.level).toBeCloseTo(1 - 2 * 0.020695, 5);
  });

  it("gives the ratio's interval from the pairwise ratios, at most Mann–Whitney's level (90 % for 3 against 3)", () => {
    const three = ratioInterval([10, 11, 12], [20, 21, 22]);
    expect(three.level).toBeLessThanOrEqual(0.9); // all three below all three: 1 in 20 each way
    expect(three.interval[0]).toBeCloseTo(10 / 22, 12);
    expect(three.interval[1]).toBeCloseTo(12 / 20, 12);
    expect(ratioInterval([1, 2, 3, 4], [5, 6, 7, 8]).level).toBeLessThanOrEqual(1 - 2 / 70);
    // Wholly apart, Brunner–Munzel's studentized level is the lower one: 8 against 8 reach 98.5 %, 12 99.8 %.
    const apart = (n) => ratioInterval(Array.from({ length: n }, (_, i) => 100 + i), Array.from({ length: n }, (_, i) => 200 + i), 0.9999).level;
    expect(apart(8)).toBeCloseTo(0.9851, 4);
    expect(apart(12)).toBeCloseTo(0.9980, 4);
    // Beyond 20 × 20 the normal approximation: still close to 95 %.
    const big = ratioInterval(Array.from({ length: 30 }, (_, i) => 100 + i), Array.from({ length: 30 }, (_, i) => 101 + i));
    expect(big.level).toBeGreaterThanOrEqual(0.95);
    expect(big.level).toBeLessThan(0.96);
  });

  it("gives the paired ratio's interval between Walsh averages, at the signed-rank distribution's level", () => {
    // 4 pairs: 87.5 % at most (all four log-ratios of one sign: 1 in 16 each way), 5: 93.75 %, 6: 96.9 %.
    const ratios = [0.5, 0.6, 0.7, 0.8, 0.9, 1.1];
    const pairsOf = (n) => ratios.slice(0, n).map((r) => /** @type {[number, number]} */ ([1000 * r, 1000]));
    expect(pairedRatioInterval(pairsOf(4)).level).toBe(0.875);
    expect(pairedRatioInterval(pairsOf(5)).level).toBe(0.9375);
    const six = pairedRatioInterval(pairsOf(6));
    expect(six.level).toBe(1 - 2 / 64);
    // k = 1: the smallest and largest Walsh averages, the smallest and largest log-ratios.
    expect(six.interval[0]).toBeCloseTo(0.5, 12);
    expect(six.interval[1]).toBeCloseTo(1.1, 12);
    // 8 pairs: T⁺ ≤ 3 has 5 of 256 arrangements, so the 4th Walsh average from each end, 96.1 %.
    const eight = pairedRatioInterval([1, 2, 3, 4, 5, 6, 7, 8].map((i) => [Math.exp(i), 1]));
    expect(eight.level).toBe(1 - 10 / 256);
    expect(Math.log(eight.interval[0])).toBeCloseTo(2, 12); // Walsh averages from below: 1, 1.5, 2, 2 (the 4th)
    expect(Math.log(eight.ratio)).toBeCloseTo(4.5, 12);
    // Beyond exactSignedRankPairs the normal approximation: still close to 95 %.
    const big = pairedRatioInterval(Array.from({ length: 120 }, (_, i) => [100 + i, 101 + i]));
    expect(big.level).toBeGreaterThanOrEqual(0.95);
    expect(big.level).toBeLessThan(0.951);
  });

  it('decides nothing from 5 pairs, however far apart; gives no interval from one pair', () => {
    const five = comparePaired([1, 2, 3, 4, 5].map((i) => [500 + i, 1000 + i]), { a: [], b: [] });
    expect(five).toMatchObject({ paired: true, pairs: 5, ciLevel: 0.9375, verdict: verdicts.unclear });
    expect(comparePaired([[500, 1000]], { a: [500, 600], b: [1000] })).toEqual({ ratio: 0.5, ci95: null, ciLevel: null, verdict: verdicts.unclear, pDecided: 1, paired: true, pairs: 1 });
    expect(comparePaired([], { a: [500, 700], b: [1000] }).ratio).toBe(0.6);
  });

  it('decides nothing from 3 runs against 3, however far apart', () => {
    const c = compare([500, 510, 520], [1000, 1010, 1020]);
    expect(c.ciLevel).toBeLessThanOrEqual(0.9);
    expect(c.verdict).toBe(verdicts.unclear);
  });
});

// A/A: both sets drawn from one distribution, so every "faster" or "slower" is false.
describe('false verdicts when nothing differs (simulated)', () => {
  const random = mulberry32(20261126);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const shapes = {
    // Run times with a long right tail: lognormal around 1 s, 20 % spread.
    skewed: () => 1000 * Math.exp(0.2 * gaussian()),
    // Two modes, as a run that sometimes pays a retransmission timeout: 70 % near 1.0 s, 30 % near 1.3 s.
    bimodal: () => (random() < 0.7 ? 1000 : 1300) + 20 * gaussian(),
  };
  const trials = 2000;
  for (const [name, draw] of Object.entries(shapes)) {
    for (const n of [3, 5, 8, 20]) {
      it(`${name}, ${n} repeats: at most 5 % faster or slower`, () => {
        let wrong = 0;
        for (let t = 0; t < trials; t++) {
          const { verdict } = compare(Array.from({ length: n }, draw), Array.from({ length: n }, draw));
          if (verdict === verdicts.faster || verdict === verdicts.slower) wrong += 1;
        }
        expect(wrong / trials).toBeLessThanOrEqual(0.05);
      });
    }
  }

  it('still finds a real difference: 30 % faster at 8 repeats, skewed', () => {
    let found = 0;
    for (let t = 0; t < 500; t++) {
      if (compare(Array.from({ length: 8 }, () => 0.7 * shapes.skewed()), Array.from({ length: 8 }, shapes.skewed)).verdict === verdicts.faster) found += 1;
    }
    expect(found / 500).toBeGreaterThan(0.5);
  });
});

// Paired A/A: each repeat's two runs share a component (the same losses: a run that lost an early
// packet is slow on both servers) and differ by their own noise, drawn alike for both servers.
describe('false paired verdicts when nothing differs (simulated)', () => {
  const random = mulberry32(20261127);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const shapes = {
    // A long right tail shared by the pair (lognormal, 50 % spread), each run's own 10 % on top.
    skewed: { shared: () => Math.exp(0.5 * gaussian()), own: () => 1000 * Math.exp(0.1 * gaussian()) },
    // The pair pays a retransmission timeout or not (30 %: 1.5×); each run its own two modes too.
    bimodal: { shared: () => (random() < 0.7 ? 1 : 1.5), own: () => (random() < 0.8 ? 1000 : 1200) + 20 * gaussian() },
  };
  /** n pairs of one shape, the first of each `factor` times its own draw */
  const pairsOf = ({ shared, own }, n, factor = 1) => Array.from({ length: n }, () => {
    const s = shared();
    return /** @type {[number, number]} */ ([factor * s * own(), s * own()]);
  });
  const trials = 2000;
  for (const [name, shape] of Object.entries(shapes)) {
    for (const n of [3, 5, 8, 20]) {
      it(`${name}, ${n} pairs: at most 5 % faster or slower`, () => {
        let wrong = 0;
        for (let t = 0; t < trials; t++) {
          const { verdict } = comparePaired(pairsOf(shape, n), { a: [], b: [] });
          if (verdict === verdicts.faster || verdict === verdicts.slower) wrong += 1;
        }
        expect(wrong / trials).toBeLessThanOrEqual(0.05);
      });
    }
  }

  it('finds a 15 % difference at 8 pairs that the unpaired interval of the same runs misses', () => {
    let paired = 0;
    let unpaired = 0;
    for (let t = 0; t < 500; t++) {
      const pairs = pairsOf(shapes.skewed, 8, 0.85);
      if (comparePaired(pairs, { a: [], b: [] }).verdict === verdicts.faster) paired += 1;
      if (compare(pairs.map((p) => p[0]), pairs.map((p) => p[1])).verdict === verdicts.faster) unpaired += 1;
    }
    expect(paired / 500).toBeGreaterThan(0.5);
    expect(unpaired / 500).toBeLessThan(0.2);
  });
});
