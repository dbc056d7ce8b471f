// npm run experiments --repeats auto end to end in Chromium on loopback: a tiny point run in rounds
// until decided or its cap, its result saying which; and a budget spent before any round began.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { verdicts } from '../common/stats/stats.js';
import { invalidText } from '../common/stats/validity.js';

const repo = new URL('..', import.meta.url).pathname;
const tiny = ['--servers', 'h1,h2-node', '--requests', '10', '--size', '0.01', '--delay', '0', '--quiet'];

// One comparison alone: the look at 4 runs a side spends none of the rate (it can decide nothing,
// docs/statistics.md), so the point always runs its second round, whose look needs 95 %.
test('--repeats auto --max-repeats 6: rounds of 4 then 2, stopping decided or at the cap, and the result says which', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-until-decided-'));
  try {
    const r = spawnSync(process.execPath, ['runner/commands/experiments.js', ...tiny, '--repeats', 'auto', '--max-repeats', '6', '--out', out], { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    assert.deepEqual(results.environment.untilDecided, { maxRepeats: 6, budgetS: null, aimPercent: null });
    const [{ result }] = results.experiments[0].points;
    const { repeats } = result.settings;
    const { untilDecided } = result;
    assert.equal(repeats, 6);
    assert.equal(untilDecided.maxRepeats, 6);
    assert.equal(untilDecided.rounds, 2);
    const decided = result.comparisons.every((c) => c.verdict !== verdicts.unclear);
    // At the cap after the second round, decided or not.
    assert.equal(untilDecided.stoppedBy, decided ? 'decided' : 'cap');
    assert.equal(untilDecided.requiredLevel, 0.95);
    for (const c of result.comparisons) assert.equal(c.requiredLevel, undefined);
    assert.deepEqual(result.family, { comparisons: 1, rate: 1 - 0.95 });
    // Each server once per repeat, numbered on across the rounds.
    for (const server of ['h1', 'h2-node']) assert.deepEqual(result.runs.filter((x) => x.server === server).map((x) => x.repeat), Array.from({ length: repeats }, (_, i) => i + 1));
    for (const run of result.runs) assert.equal(run.valid, true, invalidText(run));
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(md, new RegExp(`${repeats} of at most 6 repeats, ${untilDecided.rounds} rounds?, ${untilDecided.stoppedBy === 'cap' ? 'at the cap' : 'every verdict decided'}`));
    assert.match(md, /Verdicts: 5 % for the one comparison of this experiment \(Holm's step-down\)\./);
    const rows = Papa.parse(readFileSync(path.join(out, 'summary.csv'), 'utf8').trim(), { header: true }).data;
    for (const row of rows) assert.deepEqual([row.repeats, row.max_repeats, row.stopped_by], [String(repeats), '6', untilDecided.stoppedBy]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('--budget spent before the first round: no point begins, one line says so, exit 1', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-until-decided-budget-'));
  try {
    // The lab and the browser take more than a second to start: the budget is the whole command's.
    const r = spawnSync(process.execPath, ['runner/commands/experiments.js', ...tiny, '--repeats', 'auto', '--max-repeats', '6', '--budget', '1s', '--out', out], { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr.trim(), /^h2lab experiments: the budget \(--budget\) was spent before 1 point began \([^)]+\); the others are written$/m);
    assert.deepEqual(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')).experiments, []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
