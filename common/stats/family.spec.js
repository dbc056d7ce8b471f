import { describe, expect, it } from 'vitest';
import { judgeExperiment, plannedComparisons, scopeText } from './family.js';
import { binomialBound, falseVerdicts, shapes } from './simulation.js';
import { verdicts } from './stats.js';
import { compareNetworks } from '../report/network-comparison.js';

const run = (server, repeat, totalMs) => ({ server, repeat, totalMs, valid: true });
/** A point of 8 repeats where caddy-h2 takes `factor` of caddy-h1's time, give or take 1 %. */
const point = (factor) => ({
  settings: { servers: ['caddy-h1', 'caddy-h2'], repeats: 8 },
  runs: [1, 2, 3, 4, 5, 6, 7, 8].flatMap((k) => [run('caddy-h1', k, 1000 * (1 + k / 100)), run('caddy-h2', k, factor * 1000 * (1 + ((k * 3) % 8) / 100))]),
});

describe("Holm's step-down across an experiment", () => {
  it('counts the comparisons a point plans, the A/A control and an HTTP/3 server\'s two included', () => {
    expect(plannedComparisons({ servers: ['caddy-h1', 'caddy-h2', 'caddy-h3'] })).toBe(3);
    expect(plannedComparisons({ servers: ['caddy-h1', 'caddy-h2'], control: 'caddy-h2' })).toBe(2);
    expect(plannedComparisons({ servers: ['caddy-h2'] })).toBe(0);
  });

  it('asks the i-th comparison by its rate for 5 %/(m − i + 1), and stops the ladder at the first that fails', () => {
    const judged = judgeExperiment([point(0.5), point(0.8), point(1.0)]);
    const [a, b, c] = judged.map((r) => r.comparisons[0]);
    // The clearest first: 5 %/3, then 5 %/2, then the undecided one stands at the last step, 5 %.
    expect(a).toMatchObject({ verdict: verdicts.faster });
    expect(a.requiredLevel).toBeCloseTo(1 - 0.05 / 3, 12);
    expect(b).toMatchObject({ verdict: verdicts.faster });
    expect(b.requiredLevel).toBeCloseTo(1 - 0.05 / 2, 12);
    expect(c.verdict).toBe(verdicts.unclear);
    expect(c.requiredLevel).toBeUndefined(); // the last step asks 95 %, what one comparison asks
    expect(judged[0].family).toEqual({ comparisons: 3, rate: expect.closeTo(0.05, 12) });
  });

  it('judges a point alone at 95 %, and the same runs again to the same verdicts', () => {
    const [alone] = judgeExperiment([point(0.8)]);
    expect(alone.comparisons[0].requiredLevel).toBeUndefined();
    expect(judgeExperiment([alone])[0].comparisons).toEqual(alone.comparisons);
  });

  it('counts planned comparisons of points not measured yet', () => {
    const [judged] = judgeExperiment([point(0.8)], 12);
    expect(judged.family?.comparisons).toBe(12);
    expect(judged.comparisons[0].requiredLevel).toBeCloseTo(1 - 0.05 / 12, 12);
  });

  it('says its scope in words, and that one server has nothing to compare', () => {
    expect(scopeText({ comparisons: 12, rate: 0.05 })).toBe('5 % across the 12 comparisons of this experiment');
    expect(scopeText({ comparisons: 1, rate: 0.05 })).toBe('5 % for the one comparison of this experiment');
    expect(scopeText({ comparisons: 0, rate: 0.05 })).toMatch(/^no comparison/);
    expect(scopeText(undefined)).toMatch(/per comparison/);
  });
});

// Every shape has equal medians on every server: any "faster" or "slower" is false. Repeats until
// decided throughout, as the runner runs them. The test allows the binomial's 99.9 % quantile at
// 5 %: a rule at 10 % fails it (the old rule gave 15 % of experiments at cap 8, and 10 % of
// comparisons under unequal spreads), a rule at 5 % passes it whatever the seed.
describe('false verdicts, simulated with repeats until decided', () => {
  const comparisons = 400;
  const experiments = 120;
  for (const [name, shape] of Object.entries(shapes)) {
    it(`${name}, cap 8: at most 5 % of comparisons (one a point) and of experiments (4 points × 3 comparisons)`, () => {
      const one = falseVerdicts(shape, { points: 1, cap: 8, servers: ['caddy-h1', 'caddy-h2'] }, comparisons, 41);
      expect(one.wrongComparisons).toBeLessThanOrEqual(binomialBound(comparisons, 0.05));
      const whole = falseVerdicts(shape, { points: 4, cap: 8 }, experiments, 42);
      expect(whole.comparisons).toBe(experiments * 12);
      expect(whole.wrongExperiments).toBeLessThanOrEqual(binomialBound(experiments, 0.05));
    });
  }
  for (const name of ['skewed', 'paired, skewed']) {
    it(`${name}, cap 12: at most 5 % of experiments`, () => {
      const whole = falseVerdicts(shapes[name], { points: 4, cap: 12 }, experiments, 43);
      expect(whole.wrongExperiments).toBeLessThanOrEqual(binomialBound(experiments, 0.05));
    });
  }

  it('still finds a real difference: HTTP/2 20 % faster, paired, cap 8, in most points, and stops before the cap when it does', () => {
    const r = falseVerdicts(shapes['paired, skewed'], { points: 1, cap: 12, servers: ['caddy-h1', 'caddy-h2'], factor: { 'caddy-h2': 0.8 } }, 100, 44, { server: 'caddy-h2', baseline: 'caddy-h1', verdict: verdicts.faster });
    expect(r.found).toBeGreaterThan(0.8);
    expect(r.repeats).toBeLessThan(12);
  });

  it('lets the A/A control hold no point back: a real difference stops the point though the control stays open', () => {
    const r = falseVerdicts(shapes['paired, skewed'], { points: 1, cap: 12, servers: ['caddy-h1', 'caddy-h2', 'caddy-h2-aa'], factor: { 'caddy-h2': 0.7, 'caddy-h2-aa': 0.7 } }, 50, 45, { server: 'caddy-h2', baseline: 'caddy-h1', verdict: verdicts.faster });
    expect(r.found).toBeGreaterThan(0.8);
    expect(r.repeats).toBeLessThan(10);
  });
});

describe('networks side by side', () => {
  it("judges each table's ratios across the table, as an experiment's comparisons", () => {
    const times = (factor) => [1, 2, 3, 4, 5, 6, 7, 8].flatMap((k) => [run('caddy-h1', k, factor * 1000 * (1 + k / 100)), run('caddy-h2', k, factor * 1000 * (1 + ((k * 3) % 8) / 100))]);
    const experiment = (network, factor) => ({ id: network, title: network, paramLabel: 'Run', baseId: 'x', baseTitle: 'X', network, points: [{ label: 'one', value: 1, result: { summary: { 'caddy-h1': { n: 8, median: 1 }, 'caddy-h2': { n: 8, median: 1 } }, runs: times(factor) } }] });
    const [table] = compareNetworks([experiment('link', 1), experiment('packet', 0.5)]);
    expect(table.family).toBe(2);
    const levels = table.rows.map((r) => r.ratios[0].requiredLevel).sort();
    expect(levels[0]).toBeCloseTo(1 - 0.05 / 2, 12);
    expect(table.rows.every((r) => r.ratios[0].verdict === verdicts.faster)).toBe(true);
  });
});
