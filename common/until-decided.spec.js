import { describe, expect, it } from 'vitest';
import { summarizeResult, verdictLevel, verdicts } from './stats.js';
import { budgetSeconds, lookAt, looksOf, nextRound, requiredLevelAt, requiredLevels, stopReason, untilDecided } from './until-decided.js';

describe('rounds and looks', () => {
  it('looks after a first round of 4, then every 4 repeats, the last round shortened to the cap', () => {
    expect(untilDecided.firstRoundRepeats).toBe(4);
    expect(looksOf(4)).toEqual([4]);
    expect(looksOf(8)).toEqual([4, 8]);
    expect(looksOf(10)).toEqual([4, 8, 10]);
    expect(looksOf(20)).toEqual([4, 8, 12, 16, 20]);
  });

  it('numbers each round on from the last, so the server order keeps alternating', () => {
    expect(nextRound(0, 12)).toEqual([1, 2, 3, 4]);
    expect(nextRound(4, 12)).toEqual([5, 6, 7, 8]);
    expect(nextRound(8, 10)).toEqual([9, 10]);
    expect(nextRound(10, 10)).toEqual([]);
  });
});

describe('the level each look needs', () => {
  it('is verdictLevel when one look decides', () => {
    expect(requiredLevels(4)).toEqual([verdictLevel]);
  });

  it('spends at most the 5 % of one look across all looks, the first what 4 against 4 need', () => {
    for (const cap of [6, 8, 12, 20, 50, 100]) {
      const levels = requiredLevels(cap);
      expect(levels).toHaveLength(looksOf(cap).length);
      expect(levels[0]).toBeCloseTo(1 - 2 / 70, 12);
      expect(levels.reduce((sum, level) => sum + (1 - level), 0)).toBeLessThanOrEqual(1 - verdictLevel + 1e-12);
    }
    // Cap 20: five looks, the later four sharing 5 % − 2/70.
    expect(requiredLevels(20)[1]).toBeCloseTo(1 - (0.05 - 2 / 70) / 4, 12);
  });

  it('is the level of the look a number of repeats completes', () => {
    expect(requiredLevelAt(12, 4)).toBe(requiredLevels(12)[0]);
    expect(requiredLevelAt(12, 12)).toBe(requiredLevels(12)[2]);
  });
});

describe('stopping', () => {
  const decided = [{ verdict: verdicts.faster }, { verdict: verdicts.meaningless }];
  const open = [{ verdict: verdicts.slower }, { verdict: verdicts.unclear }];

  it('stops a point once every comparison is decided, else at the cap, else when the budget is spent', () => {
    expect(stopReason({ comparisons: decided, repeatsDone: 4, cap: 12, budgetSpent: false })).toBe('decided');
    expect(stopReason({ comparisons: decided, repeatsDone: 12, cap: 12, budgetSpent: true })).toBe('decided');
    expect(stopReason({ comparisons: open, repeatsDone: 8, cap: 12, budgetSpent: false })).toBeNull();
    expect(stopReason({ comparisons: open, repeatsDone: 12, cap: 12, budgetSpent: true })).toBe('cap');
    expect(stopReason({ comparisons: open, repeatsDone: 8, cap: 12, budgetSpent: true })).toBe('budget');
  });

  it('does not call a point without comparisons decided', () => {
    expect(stopReason({ comparisons: [], repeatsDone: 4, cap: 8, budgetSpent: false })).toBeNull();
  });
});

describe('budgetSeconds', () => {
  it('reads whole seconds, minutes and hours', () => {
    expect(budgetSeconds('90s')).toBe(90);
    expect(budgetSeconds('30m')).toBe(1800);
    expect(budgetSeconds(' 2h ')).toBe(7200);
    expect(budgetSeconds('168h')).toBe(168 * 3600);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '30', 'm', '1.5h', '-3m', '0s', '169h', '30 m', '2d', '1e3s']) expect(budgetSeconds(bad)).toBeNull();
  });
});

describe('lookAt', () => {
  const run = (server, repeat, totalMs) => ({ server, repeat, totalMs, valid: true, invalidReasons: [], failures: 0, requests: [] });
  /** A round of repeats `numbers`, caddy-h2 taking `factor` of caddy-h1's time give or take 5 %. */
  const round = (numbers, factor) => {
    const runs = numbers.flatMap((k) => [run('caddy-h1', k, 1000 * (1 + ((k * 37) % 11) / 200)), run('caddy-h2', k, factor * 1000 * (1 + ((k * 53) % 13) / 200))]);
    return { id: 'x', settings: { repeats: numbers.length }, environment: {}, runs, stopped: false, stopReason: null, ...summarizeResult(runs) };
  };

  it('joins the rounds, draws the verdicts at the level of this look and stops once they are decided', () => {
    const look = lookAt([round([1, 2, 3, 4], 0.5)], 12, false);
    expect(look.stoppedBy).toBe('decided');
    expect(look.result.untilDecided).toEqual({ maxRepeats: 12, rounds: 1, stoppedBy: 'decided', requiredLevel: requiredLevels(12)[0] });
    expect(look.result.comparisons[0]).toMatchObject({ verdict: verdicts.faster, requiredLevel: requiredLevels(12)[0] });
  });

  it('goes on while a verdict is open, and says cap or budget when it must stop undecided', () => {
    const parts = [round([1, 2, 3, 4], 1.03)];
    expect(lookAt(parts, 12, false)).toMatchObject({ stoppedBy: null, result: { untilDecided: { stoppedBy: null } } });
    expect(lookAt(parts, 12, true).stoppedBy).toBe('budget');
    const capped = lookAt([...parts, round([5, 6, 7, 8], 1.03)], 8, false);
    expect(capped.stoppedBy).toBe('cap');
    expect(capped.result.settings.repeats).toBe(8);
    expect(capped.result.untilDecided).toMatchObject({ rounds: 2, requiredLevel: requiredLevels(8)[1] });
  });
});
