import { describe, expect, it } from 'vitest';
import { mergeParts } from './merge-parts.js';
import { resultMarkdown, summaryMarkdown } from '../report/summary-markdown.js';
import { judgeExperiment } from './family.js';
import { summarizeResult, verdicts } from './stats.js';

const run = (server, repeat, totalMs) => ({ server, repeat, totalMs, valid: true, invalidReasons: [], failures: 0, requests: [] });
/** A round of repeats `numbers`: caddy-h2 about half caddy-h1's time. */
const round = (numbers, finishedAt) => {
  const runs = numbers.flatMap((k) => [run('caddy-h1', k, 200 + k), run('caddy-h2', k, 100 + k)]);
  return { id: `r${numbers[0]}`, kind: 'experiment', startedAt: finishedAt, finishedAt, settings: { repeats: numbers.length, servers: ['caddy-h1', 'caddy-h2'] }, environment: { servers: [] }, runs, stopped: false, stopReason: null, floorMsByServer: null, ...summarizeResult(runs) };
};

describe('mergeParts', () => {
  it("joins a point's parts in repeat order, counts their repeats and summarizes them again at the level asked", () => {
    const merged = mergeParts([round([5, 6, 7, 8], '2026-11-27T00:02:00Z'), round([1, 2, 3, 4], '2026-11-27T00:01:00Z')], 0.98);
    expect(merged.id).toBe('r5');
    expect(merged.settings.repeats).toBe(8);
    expect(merged.runs.map((r) => r.repeat)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]);
    expect(merged.finishedAt).toBe('2026-11-27T00:02:00Z');
    expect(merged.summary['caddy-h2'].n).toBe(8);
    const [c] = merged.comparisons;
    expect(c).toMatchObject({ server: 'caddy-h2', baseline: 'caddy-h1', verdict: verdicts.faster, requiredLevel: 0.98 });
    expect(c.ciLevel).toBeGreaterThanOrEqual(0.98);
  });

  it('keeps a part that stopped early as stopped', () => {
    const stopped = { ...round([5, 6], '2026-11-27T00:02:00Z'), stopped: true, stopReason: 'the lab went away' };
    expect(mergeParts([round([1, 2, 3, 4], '2026-11-27T00:01:00Z'), stopped])).toMatchObject({ stopped: true, stopReason: 'the lab went away' });
  });
});

describe('the summary of a point measured until decided', () => {
  it('says its repeats, rounds, why it stopped and the level its verdicts needed', () => {
    const merged = mergeParts([round([1, 2, 3, 4], 'a'), round([5, 6, 7, 8], 'b')], 0.975);
    const text = resultMarkdown({ ...merged, environment: { ...merged.environment, preset: null, network: 'devtools' }, untilDecided: { maxRepeats: 12, rounds: 2, stoppedBy: 'decided', requiredLevel: 0.975 } });
    expect(text).toContain('8 of at most 12 repeats, 2 rounds, every verdict decided: HTTP/2 (Caddy) vs HTTP/1.1 (Caddy): faster');
    expect(text).toContain('· 97.5 % needed])');
    expect(text).toContain('Repeats until decided: each point ran in rounds (4 repeats, then 4 at a time)');
  });
});

describe('the scope of the verdicts', () => {
  it("says under each experiment's title the rate and the comparisons it holds across", () => {
    const [judged] = judgeExperiment([mergeParts([round([1, 2, 3, 4], 'a'), round([5, 6, 7, 8], 'b')])], 3);
    const text = summaryMarkdown([{ id: 'e', title: 'Grid', paramLabel: 'Run', points: [{ label: 'one', result: judged }] }], 'here');
    expect(text).toContain('## Grid\n\nVerdicts: 5 % across the 3 comparisons of this experiment (Holm\'s step-down).');
  });

  it('says in one line that one server has nothing to be compared with', () => {
    const runs = [1, 2, 3].map((k) => run('caddy-h2', k, 100 + k));
    const alone = { ...round([1], 'a'), runs, ...summarizeResult(runs) };
    const text = summaryMarkdown([{ id: 'e', title: 'One', paramLabel: 'Run', points: [{ label: 'one', result: alone }] }], 'here');
    expect(text).toContain('## One\n\nNo comparison: one server has nothing to be compared with, so no verdict.\n');
  });
});
