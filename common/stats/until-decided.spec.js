import { describe, expect, it } from 'vitest';
import { summarizeResult, verdicts } from './stats.js';
import { budgetSeconds, inRounds, leastRate, lookAt, lookShares, looksOf, nextRound, roundsText, shareAt, stopReason } from './until-decided.js';
import { untilDecided } from '../setup/settings.js';
import { judgeExperiment } from './family.js';

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

describe("each look's share of the rate", () => {
  it('gives one look all of it', () => {
    expect(lookShares(4, false)).toEqual([1]);
    expect(lookShares(4, true)).toEqual([1]);
  });

  it('spends nothing on a look that cannot decide: 4 pairs reach 87.5 % at most, 4 runs a side 97.1 %', () => {
    expect(leastRate(4, true)).toBe(1 / 8);
    expect(leastRate(4, false)).toBeCloseTo(2 / 70, 15);
    expect(lookShares(8, true)).toEqual([0, 1]);
    expect(lookShares(12, true)).toEqual([0, 0.5, 0.5]);
    // Unpaired, 4 against 4 could decide only with more than half the rate (2/70 > 5 %/2).
    expect(lookShares(8, false)).toEqual([0, 1]);
    expect(lookShares(20, false)).toEqual([0, 0.25, 0.25, 0.25, 0.25]);
    for (const cap of [6, 8, 12, 20, 50, 100]) {
      for (const paired of [false, true]) {
        const shares = lookShares(cap, paired);
        expect(shares).toHaveLength(looksOf(cap).length);
        expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
        // Every look that spends could decide with its share.
        looksOf(cap).forEach((n, i) => shares[i] > 0 && expect(leastRate(n, paired)).toBeLessThanOrEqual(shares[i] * 0.05));
      }
    }
  });

  it('is the share of the look a number of repeats completes', () => {
    expect(shareAt(12, 4, false)).toBe(0);
    expect(shareAt(12, 12, false)).toBe(0.5);
  });
});

describe('stopping', () => {
  const decided = [{ server: 'h2-node', verdict: verdicts.faster }, { server: 'h2-spdy', verdict: verdicts.meaningless }];
  const open = [{ server: 'h2-node', verdict: verdicts.slower }, { server: 'h2-spdy', verdict: verdicts.unclear }];

  it('stops a point once every comparison is decided, else at the cap, else when the budget is spent', () => {
    expect(stopReason({ comparisons: decided, repeatsDone: 4, cap: 12, budgetSpent: false })).toBe('decided');
    expect(stopReason({ comparisons: decided, repeatsDone: 12, cap: 12, budgetSpent: true })).toBe('decided');
    expect(stopReason({ comparisons: open, repeatsDone: 8, cap: 12, budgetSpent: false })).toBeNull();
    expect(stopReason({ comparisons: open, repeatsDone: 12, cap: 12, budgetSpent: true })).toBe('cap');
    expect(stopReason({ comparisons: open, repeatsDone: 8, cap: 12, budgetSpent: true })).toBe('budget');
  });

  it('lets the A/A control hold no point back', () => {
    const control = { server: 'caddy-h2-aa', verdict: verdicts.unclear };
    expect(stopReason({ comparisons: [...decided, control], repeatsDone: 8, cap: 12, budgetSpent: false })).toBe('decided');
    expect(stopReason({ comparisons: [control], repeatsDone: 8, cap: 12, budgetSpent: false })).toBeNull();
  });

  it('stops a point aiming at a difference once every open comparison could find it', () => {
    /** @param {[number, number]|null} detectable */
    const unclear = (detectable) => ({ server: 'h2-spdy', verdict: verdicts.unclear, detectable });
    const aimed = (detectable) => stopReason({ comparisons: [decided[0], unclear(detectable)], repeatsDone: 8, cap: 20, budgetSpent: false, aim: 0.1 });
    expect(aimed([0.93, 1.08])).toBe('aimed');
    // could find 12 % only: a 10 % difference may still be there unseen
    expect(aimed([0.88, 1.12])).toBeNull();
    // runs that cannot reach the level at all, or no aim: go on
    expect(aimed(null)).toBeNull();
    expect(stopReason({ comparisons: [unclear([0.93, 1.08])], repeatsDone: 8, cap: 20, budgetSpent: false })).toBeNull();
    // decided wins over aimed, and the cap comes after it
    expect(stopReason({ comparisons: decided, repeatsDone: 8, cap: 20, budgetSpent: false, aim: 0.1 })).toBe('decided');
    expect(stopReason({ comparisons: [unclear([0.93, 1.08])], repeatsDone: 20, cap: 20, budgetSpent: false, aim: 0.1 })).toBe('aimed');
  });

  it('does not call a point without comparisons decided', () => {
    expect(stopReason({ comparisons: [], repeatsDone: 4, cap: 8, budgetSpent: false })).toBeNull();
  });

  it('says why a point stopped, and when a point that stopped decided is open judged again under a later rule', () => {
    const record = { maxRepeats: 8, rounds: 2, stoppedBy: /** @type {const} */ ('decided'), requiredLevel: 0.975 };
    const settings = /** @type {any} */ ({ repeats: 8 });
    expect(roundsText({ settings, untilDecided: record, comparisons: /** @type {any} */ (decided) })).toBe('8 of at most 8 repeats, 2 rounds, every verdict decided');
    expect(roundsText({ settings, untilDecided: record, comparisons: /** @type {any} */ (open) })).toBe("8 of at most 8 repeats, 2 rounds, every verdict decided by the rule it ran under, some open under today's");
    const control = { server: 'caddy-h2-aa', verdict: verdicts.unclear };
    expect(roundsText({ settings, untilDecided: record, comparisons: /** @type {any} */ ([...decided, control]) })).toBe('8 of at most 8 repeats, 2 rounds, every verdict decided');
    expect(roundsText({ settings, untilDecided: { ...record, stoppedBy: 'cap' }, comparisons: /** @type {any} */ (open) })).toBe('8 of at most 8 repeats, 2 rounds, at the cap');
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

  // The point judged alone, as an experiment of one point.
  const alone = (result) => judgeExperiment([result])[0];

  it('joins the rounds, draws the verdicts at the level of this look and stops once they are decided', () => {
    const look = lookAt([round([1, 2, 3, 4], 0.5), round([5, 6, 7, 8], 0.5)], 12, false, alone);
    expect(look.stoppedBy).toBe('decided');
    // Cap 12: the look at 4 spends nothing, those at 8 and 12 half the 5 % each.
    expect(look.result.untilDecided).toEqual({ maxRepeats: 12, rounds: 2, stoppedBy: 'decided', requiredLevel: 0.975 });
    expect(look.result.comparisons[0]).toMatchObject({ verdict: verdicts.faster, requiredLevel: 0.975 });
    expect(look.result.family?.comparisons).toBe(1);
    expect(look.result.family?.rate).toBeCloseTo(0.05, 12);
  });

  it('goes on while a verdict is open, and says cap or budget when it must stop undecided', () => {
    const parts = [round([1, 2, 3, 4], 1.03)];
    expect(lookAt(parts, 12, false, alone)).toMatchObject({ stoppedBy: null, result: { untilDecided: { stoppedBy: null } } });
    expect(lookAt(parts, 12, true, alone).stoppedBy).toBe('budget');
    const capped = lookAt([...parts, round([5, 6, 7, 8], 1.03)], 8, false, alone);
    expect(capped.stoppedBy).toBe('cap');
    expect(capped.result.settings.repeats).toBe(8);
    expect(capped.result.untilDecided).toMatchObject({ rounds: 2, requiredLevel: 0.95 });
  });
});

describe('inRounds', () => {
  const run = (server, repeat) => ({ server, repeat, totalMs: 1000 + repeat, valid: true, invalidReasons: [], failures: 0, requests: [] });
  /** A fake round: the page would measure it; here only its repeats and whether it came back stopped matter. */
  const roundOf = (numbers, stopped) => ({
    id: 'x', settings: { repeats: numbers.length }, environment: {}, stopped, stopReason: stopped ? 'stopped' : null,
    runs: numbers.flatMap((k) => [run('caddy-h1', k), run('caddy-h2', k)]),
  });
  const repeatsOf = (result) => result.settings.repeats;
  // A point is decided once its repeats reach decidedAt, or once `by` (another point) has that many.
  const point = (name, decidedAt = Infinity, by = null) => ({ name, decidedAt, by });

  /**
   * The loop over fake points, logging each round measured, each point stopped and each point's
   * last look. budgetAfterRounds: the budget is spent once that many rounds are measured;
   * stoppedAt: whether a round comes back stopped; ready: beforePoint's answer.
   */
  const loop = (points, { order, cap = 12, budgetAfterRounds = Infinity, stoppedAt = () => false, ready = () => true }) => {
    const calls = [];
    let rounds = 0;
    const stops = [];
    /** @type {Map<string, any>} */
    const latest = new Map();
    const decided = (p, result) => (p.by ? repeatsOf(latest.get(p.by) ?? { settings: { repeats: 0 } }) : repeatsOf(result)) >= p.decidedAt;
    const done = inRounds(points, {
      cap,
      order,
      budgetSpent: () => rounds >= budgetAfterRounds,
      beforePoint: async (p) => {
        calls.push(`before ${p.name}`);
        return ready(p);
      },
      measure: async (p, numbers) => {
        calls.push(`${p.name} ${numbers[0]}–${numbers.at(-1)}`);
        rounds += 1;
        return roundOf(numbers, stoppedAt(p, numbers));
      },
      judge: (p, result) => ({ ...result, comparisons: [{ server: 'caddy-h2', verdict: decided(p, result) ? verdicts.faster : verdicts.unclear }] }),
      onLook: (p, result) => latest.set(p.name, result),
      onStop: (p, why, repeats) => stops.push(`${p.name} ${why} ${repeats}`),
    });
    return { done, calls, stops, latest };
  };
  const names = (points) => points.map((p) => p.name);

  it('round-robin: a round of every open point, then the next round of those still open', async () => {
    const { done, calls, stops, latest } = loop([point('a', 8), point('b', 4), point('c')], { order: 'round-robin' });
    const { unbegun, stopped } = await done;
    expect(calls).toEqual(['before a', 'a 1–4', 'before b', 'b 1–4', 'before c', 'c 1–4', 'a 5–8', 'c 5–8', 'c 9–12']);
    expect(stops).toEqual(['b decided 4', 'a decided 8', 'c cap 12']);
    expect(names(unbegun)).toEqual([]);
    expect(stopped).toBeNull();
    // Each point's last look records why it stopped and its rounds.
    expect(latest.get('a').untilDecided).toMatchObject({ maxRepeats: 12, rounds: 2, stoppedBy: 'decided' });
    expect(latest.get('b').untilDecided).toMatchObject({ rounds: 1, stoppedBy: 'decided' });
    expect(latest.get('c').untilDecided).toMatchObject({ rounds: 3, stoppedBy: 'cap' });
    expect(latest.get('c').runs.filter((r) => r.server === 'caddy-h2').map((r) => r.repeat)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it("point by point: a point's rounds until it stops, then the next point", async () => {
    const { done, calls, stops } = loop([point('a', 8), point('b', 4), point('c')], { order: 'point-by-point' });
    await done;
    expect(calls).toEqual(['before a', 'a 1–4', 'a 5–8', 'before b', 'b 1–4', 'before c', 'c 1–4', 'c 5–8', 'c 9–12']);
    expect(stops).toEqual(['a decided 8', 'b decided 4', 'c cap 12']);
  });

  it('keeps to the cap, the last round shorter', async () => {
    const { done, calls, stops, latest } = loop([point('c')], { order: 'point-by-point', cap: 10 });
    await done;
    expect(calls).toEqual(['before c', 'c 1–4', 'c 5–8', 'c 9–10']);
    expect(stops).toEqual(['c cap 10']);
    expect(repeatsOf(latest.get('c'))).toBe(10);
  });

  it("round-robin: looks at a point again before its next round, so the others' looks may stop it unmeasured", async () => {
    const { done, calls, stops, latest } = loop([point('a', 8, 'b'), point('b')], { order: 'round-robin' });
    await done;
    // b reaches 8 repeats after a's second round: a stops then, without a third.
    expect(calls).toEqual(['before a', 'a 1–4', 'before b', 'b 1–4', 'a 5–8', 'b 5–8', 'b 9–12']);
    expect(stops).toEqual(['a decided 8', 'b cap 12']);
    expect(latest.get('a').untilDecided).toMatchObject({ rounds: 2, stoppedBy: 'decided' });
  });

  it('a budget spent after the first rounds: round-robin, the points begun keep their first round, the others are unbegun', async () => {
    const { done, calls, stops, latest } = loop([point('a'), point('b'), point('c')], { order: 'round-robin', budgetAfterRounds: 2 });
    const { unbegun, stopped } = await done;
    expect(calls).toEqual(['before a', 'a 1–4', 'before b', 'b 1–4']);
    // a is looked at again and stops; c never began (0 repeats), and no beforePoint is asked for it.
    expect(stops).toEqual(['b budget 4', 'c budget 0', 'a budget 4']);
    expect(names(unbegun)).toEqual(['c']);
    expect(stopped).toBeNull();
    expect(latest.get('a').untilDecided).toMatchObject({ rounds: 1, stoppedBy: 'budget' });
    expect(latest.get('b').untilDecided).toMatchObject({ rounds: 1, stoppedBy: 'budget' });
    expect(latest.has('c')).toBe(false);
  });

  it('the same budget point by point: the first point runs on, the later ones are unbegun', async () => {
    const { done, calls, stops } = loop([point('a'), point('b'), point('c')], { order: 'point-by-point', budgetAfterRounds: 2 });
    const { unbegun } = await done;
    expect(calls).toEqual(['before a', 'a 1–4', 'a 5–8']);
    expect(stops).toEqual(['a budget 8', 'b budget 0', 'c budget 0']);
    expect(names(unbegun)).toEqual(['b', 'c']);
  });

  for (const order of /** @type {const} */ (['round-robin', 'point-by-point'])) {
    it(`${order}: a round that comes back stopped ends the loop after its look`, async () => {
      const { done, calls, stops, latest } = loop([point('a', 4), point('b'), point('c')], { order, stoppedAt: (p, numbers) => p.name === 'b' && numbers[0] === 1 });
      const { unbegun, stopped } = await done;
      expect(calls).toEqual(['before a', 'a 1–4', 'before b', 'b 1–4']);
      expect(stops).toEqual(['a decided 4']);
      expect(stopped?.name).toBe('b');
      expect(names(unbegun)).toEqual(['c']);
      // The stopped round is kept, joined and looked at: undecided, so no reason to stop recorded.
      expect(latest.get('b')).toMatchObject({ stopped: true, stopReason: 'stopped', untilDecided: { rounds: 1, stoppedBy: null } });
    });
  }

  it('beforePoint saying no ends the loop before that point', async () => {
    const { done, calls, stops } = loop([point('a', 4), point('b'), point('c')], { order: 'point-by-point', ready: (p) => p.name !== 'b' });
    const { unbegun, stopped } = await done;
    expect(calls).toEqual(['before a', 'a 1–4', 'before b']);
    expect(stops).toEqual(['a decided 4']);
    expect(names(unbegun)).toEqual(['b', 'c']);
    expect(stopped).toBeNull();
  });
});
