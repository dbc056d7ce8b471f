import { probit } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { detectablePower, detectableRatios, pairedSpread, studentQuantile, unpairedSpread } from './detectable.js';
import { mulberry32 } from '../setup/seeds.js';
import { compare, comparePaired, practicalMargin, verdicts } from './stats.js';

describe('studentQuantile', () => {
  it('is within 0.5 % of the tables from 4 degrees of freedom and within 4 % at 2', () => {
    // Student's t 97.5 % and 80 % quantiles from the tables
    for (const [df, q975, q80] of [[4, 2.776, 0.941], [10, 2.228, 0.879], [30, 2.042, 0.854]]) {
      expect(Math.abs(studentQuantile(0.975, df) - q975) / q975).toBeLessThan(0.005);
      expect(Math.abs(studentQuantile(0.8, df) - q80) / q80).toBeLessThan(0.005);
    }
    expect(Math.abs(studentQuantile(0.975, 2) - 4.303) / 4.303).toBeLessThan(0.04);
  });
});

describe('detectableRatios', () => {
  it('starts at the margin with no spread and widens with the spread and the level', () => {
    expect(detectableRatios({ se: 0, df: 10 }, 0.95, practicalMargin)).toEqual([0.98, 1.02]);
    const [lo95, hi95] = detectableRatios({ se: 0.05, df: 10 }, 0.95, practicalMargin);
    const [lo99] = detectableRatios({ se: 0.05, df: 10 }, 0.995, practicalMargin);
    expect(lo95).toBeLessThan(0.98);
    expect(hi95).toBeGreaterThan(1.02);
    expect(lo99).toBeLessThan(lo95);
  });

  it('gives none where the runs cannot reach the level a verdict needs at any difference', () => {
    // 4 runs a side reach 87 % at most under Brunner–Munzel's level, 4 pairs 87.5 %
    expect(compare([1, 2, 3, 4], [5, 6, 7, 8]).detectable).toBeNull();
    expect(comparePaired([[1, 2], [2, 3], [3, 4.5], [4, 5]], { a: [1], b: [1] }).detectable).toBeNull();
  });

  it('takes the spreads apart: Welch for unpaired runs, the log-ratios for pairs', () => {
    const steady = [100, 101, 99, 100, 100, 101];
    const spread = [80, 120, 100, 90, 110, 100];
    expect(unpairedSpread(spread, steady).se).toBeCloseTo(unpairedSpread(steady, spread).se, 12);
    // pairs that move together have no spread of their ratio
    expect(pairedSpread(spread.map((x) => [x * 0.9, x])).se).toBeCloseTo(0, 12);
  });
});

// The printed detectable ratio against the lab's own rule: each seeded experiment with no
// difference prints its ratio, and a second experiment really that much faster is judged. The
// share found should be about 80 %: the tolerance is 3 binomial standard deviations of 300
// experiments at 80 % (±0.07) and the approximation's own spread across these cells (±0.05 in
// the calibration of detectable.js).
const experiments = 300;
const [lowest, highest] = [0.68, 0.92];

/** @param {() => number} random */
const gauss = (random) => probit(Math.min(1 - 1e-12, Math.max(1e-12, random())));

describe(`at the printed detectable ratio, power is about ${detectablePower * 100} %`, () => {
  /** @param {(factor: number, level: number) => import('../report/result.js').Ratio} judge @param {number} level */
  function powerAt(judge, level) {
    let [found, printed] = [0, 0];
    for (let i = 0; i < experiments; i++) {
      const ratio = judge(1, level).detectable?.[0];
      if (ratio === undefined) continue;
      printed += 1;
      if (judge(ratio, level).verdict === verdicts.faster) found += 1;
    }
    return found / printed;
  }

  it.each([[8, 0.95], [12, 0.95], [12, 0.995], [20, 0.95]])('unpaired, lognormal σ 0.2, %i runs a side at %f', (n, level) => {
    const random = mulberry32(41 + n);
    /** @param {number} factor */
    const runs = (factor) => Array.from({ length: n }, () => 1000 * factor * Math.exp(0.2 * gauss(random)));
    const power = powerAt((factor, required) => compare(runs(factor), runs(1), practicalMargin, required), level);
    expect(power).toBeGreaterThan(lowest);
    expect(power).toBeLessThan(highest);
  });

  it.each([[8, 0.95], [12, 0.995], [20, 0.95]])('paired, a shared lognormal σ 0.5 and each run σ 0.2, %i pairs at %f', (n, level) => {
    const random = mulberry32(83 + n);
    /** @param {number} factor @returns {[number, number][]} */
    const pairs = (factor) => Array.from({ length: n }, () => {
      const shared = 1000 * Math.exp(0.5 * gauss(random));
      return [factor * shared * Math.exp(0.2 * gauss(random)), shared * Math.exp(0.2 * gauss(random))];
    });
    const power = powerAt((factor, required) => comparePaired(pairs(factor), { a: [1], b: [1] }, practicalMargin, required), level);
    expect(power).toBeGreaterThan(lowest);
    expect(power).toBeLessThan(highest);
  });
});
