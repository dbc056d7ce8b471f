// npm run merge-results (runner/commands/merge-results.js) on shard folders as `npm run experiments --
// --shard K/N` writes them: one folder in the form of an unsharded run's, every repeat once; and
// the folders that do not belong together refused in one line, exit 2. The shards here are
// written by the runner's own writeOutputs from synthetic results; the merge draws its charts in
// a real Chromium.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript } from './helpers/cli.js';
import { sampleResult } from './fixtures/sample-result.js';
import { writeOutputs } from '../runner/output/report.js';
import { shardExperiments } from '../runner/plan.js';

const script = fileURLToPath(new URL('../runner/commands/merge-results.js', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'h2lab-merge-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Shard k of 2 of a 4-repeat experiment, written as the runner writes it; `plan`: the points its
 * command planned (environment.plan), when more than the one it ran.
 */
async function writeShard(k, { requests = 30, lossSeed = undefined, plan = undefined, dir = path.join(scratch, `shard-${k}-${requests}${lossSeed === undefined ? '' : `-seed-${lossSeed}`}`) } = {}) {
  const [planned] = shardExperiments([{ id: 'x', title: 'X', param: 'requests', paramLabel: 'Requests', points: [{ label: String(requests), value: requests, settings: /** @type {any} */ ({ repeats: 4 }) }] }], { k, n: 2 });
  const { repeatNumbers } = planned.points[0].shard;
  const result = sampleResult({ requests, repeats: 2, seed: k, servers: ['h1', 'h2-node'] });
  for (const run of result.runs) run.repeat = repeatNumbers[run.repeat - 1];
  if (lossSeed !== undefined) result.settings.lossSeed = lossSeed;
  const experiments = [{ ...planned, points: [{ ...planned.points[0], result }] }];
  await writeOutputs(dir, experiments, /** @type {any} */ ({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-26', wallTimeS: 10, shard: { k, n: 2 }, plan }), []);
  return dir;
}

test('shard k of n runs the repeats r with (r − 1) mod n = k − 1, every server each', () => {
  const point = { label: '1', value: 1, settings: /** @type {any} */ ({ repeats: 5 }) };
  const plan = (k, n) => shardExperiments([{ id: 'x', title: 'X', param: 'requests', paramLabel: 'Requests', points: [point] }], { k, n })[0].points[0];
  assert.deepEqual(plan(1, 2).shard.repeatNumbers, [1, 3, 5]);
  assert.deepEqual([plan(2, 2).shard.repeatNumbers, plan(2, 2).settings.repeats], [[2, 4], 2]);
  assert.throws(() => plan(6, 6), /no repeat falls to this shard/);
});

test('two shards merge into one folder with every repeat once; a shard twice or another experiment is refused', { timeout: 120_000 }, async () => {
  const [one, two] = [await writeShard(1), await writeShard(2)];
  const out = path.join(scratch, 'merged');
  const merged = runScript(script, [one, two, '--out', out], { timeout: 100_000 });
  assert.equal(merged.status, 0, merged.stderr);
  const { environment, experiments } = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
  const { result } = experiments[0].points[0];
  assert.equal(result.settings.repeats, 4);
  assert.deepEqual(result.runs.filter((r) => r.server === 'h1').map((r) => r.repeat), [1, 2, 3, 4]);
  assert.equal(result.summary.h1.n, 4);
  assert.equal(environment.shard, null);
  assert.equal(environment.mergedFrom.length, 2);
  assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /merged from 2 shards/);
  assert.ok(readFileSync(path.join(out, 'x.png')).length > 10_000, 'the chart, drawn by the page');

  const twice = runScript(script, [one, one, '--out', path.join(scratch, 'twice')]);
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /^h2lab merge-results: .*shard 1 of 2 again/);
  const other = runScript(script, [one, await writeShard(2, { requests: 60 }), '--out', path.join(scratch, 'other')]);
  assert.equal(other.status, 2);
  assert.match(other.stderr, /another experiment/);
  const alone = runScript(script, [one, '--out', path.join(scratch, 'alone')], { timeout: 100_000 });
  assert.equal(alone.status, 1, 'a missing shard is said, and the rest written');
  assert.match(alone.stderr, /shard 2 of 2 missing/);
});

test('shards whose losses came from different base seeds are another experiment, refused in one line (runner --shard needs one --loss-seed)', async () => {
  const [one, two] = [await writeShard(1, { lossSeed: 7 }), await writeShard(2, { lossSeed: 8 })];
  const refused = runScript(script, [one, two, '--out', path.join(scratch, 'seeds')]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /^h2lab merge-results: .*another experiment.*\n$/);
});

test('one whole run alone, from its report.html, is summarized again under the current rules; a whole run among shards is refused', { timeout: 120_000 }, async () => {
  // A published folder as classic-quick keeps it: report.html and summary.md, no results.json.
  const dir = path.join(scratch, 'whole');
  const result = sampleResult({ requests: 30, repeats: 3, seed: 7, servers: ['h1', 'h2-node'] });
  const stale = { ...result, comparisons: result.comparisons.map((c) => ({ ...c, verdict: 'faster', ci95: [0.5, 0.6], ciLevel: null })) };
  await writeOutputs(dir, [{ id: 'x', title: 'X', param: 'requests', paramLabel: 'Requests', points: [{ label: '30', value: 30, settings: stale.settings, result: stale }] }], /** @type {any} */ ({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-25', wallTimeS: 10, shard: null }), []);
  rmSync(path.join(dir, 'results.json'));
  const out = path.join(scratch, 'again');
  const again = runScript(script, [dir, '--out', out], { timeout: 100_000 });
  assert.equal(again.status, 0, again.stderr);
  const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
  assert.match(md, /summarized again \d{4}-\d\d-\d\d under the rules of that day/);
  // 3 runs a side reach 90 % at most (Mann–Whitney; Brunner–Munzel's level, which the interval
  // takes where it is lower, 74 % for runs wholly apart): today's rule gives no verdict where the old one said faster.
  assert.match(md, /HTTP\/2 \(node:http2\) vs HTTP\/1\.1: no clear difference \(\d\.\d\d× \[[\d.]+–[\d.]+ · (\d|[1-8]\d|90) %\]\)/);
  assert.match(md, /Verdicts: 5 % for the one comparison of this experiment/);
  const mixed = runScript(script, [dir, await writeShard(1, { dir: path.join(scratch, 'shard-mixed') }), '--out', path.join(scratch, 'mixed')]);
  assert.equal(mixed.status, 2);
  assert.match(mixed.stderr, /whole.*not a shard/);
});

test('a shard that stopped keeps what it finished, and the merge names the repeats missing', { timeout: 120_000 }, async () => {
  const one = await writeShard(1, { dir: path.join(scratch, 'stopped-1') });
  // Shard 2 of 2 ran repeat 2 and stopped before repeat 4: its point is kept with what finished.
  const dir = path.join(scratch, 'stopped-2');
  const [planned] = shardExperiments([{ id: 'x', title: 'X', param: 'requests', paramLabel: 'Requests', points: [{ label: '30', value: 30, settings: /** @type {any} */ ({ repeats: 4 }) }] }], { k: 2, n: 2 });
  const result = sampleResult({ requests: 30, repeats: 1, seed: 2, servers: ['h1', 'h2-node'] });
  for (const run of result.runs) run.repeat = 2;
  Object.assign(result, { stopped: true, stopReason: 'the browser went away' });
  await writeOutputs(dir, [{ ...planned, points: [{ ...planned.points[0], result }] }], /** @type {any} */ ({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-26', wallTimeS: 5, shard: { k: 2, n: 2 } }), []);
  const out = path.join(scratch, 'stopped-merged');
  const merged = runScript(script, [one, dir, '--out', out], { timeout: 100_000 });
  assert.equal(merged.status, 1, merged.stderr);
  assert.match(merged.stderr, /^h2lab merge-results: not in the merged results: X · 30: repeat 4$/m);
  const { experiments } = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
  assert.deepEqual([...new Set(experiments[0].points[0].result.runs.map((r) => r.repeat))], [1, 2, 3]);
  assert.equal(experiments[0].points[0].result.stopped, true);
});

test('the merge plans from the command\'s plan (runner/plan.js): a point no shard reached is named, and shards of another plan are refused', { timeout: 120_000 }, async () => {
  const plan = [{ id: 'x', title: 'X', points: ['30', '60'] }];
  const [one, two] = [await writeShard(1, { plan, dir: path.join(scratch, 'plan-1') }), await writeShard(2, { plan, dir: path.join(scratch, 'plan-2') })];
  const merged = runScript(script, [one, two, '--out', path.join(scratch, 'plan-merged')], { timeout: 100_000 });
  assert.equal(merged.status, 1, merged.stderr);
  assert.match(merged.stderr, /^h2lab merge-results: not in the merged results: X · 60: no shard reached it$/m);
  const other = await writeShard(2, { plan: [{ id: 'x', title: 'X', points: ['30'] }], dir: path.join(scratch, 'plan-other') });
  const refused = runScript(script, [one, other, '--out', path.join(scratch, 'plan-refused')]);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /another plan than/);
});
