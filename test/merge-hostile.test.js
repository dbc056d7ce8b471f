// npm run merge-results treats its input as hostile (issue 40, item 4): a crafted results.json or
// report.html is refused in one line, exit 2, before anything is written and before the lab or a
// browser starts: an experiment id that is no file name (the review's `../../x` wrote x.png two
// folders above --out), more runs a point than the settings allow (4,000 runs a server took
// 26.5 s and 903 MB: every pairwise difference materialised), more points or experiments than a
// plan makes, a file over the size merge-results reads. No test here may reach the charts: each
// command runs with CHROME_PATH naming a missing file, so a browser that would start fails instead.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScript } from './helpers/cli.js';
import { sampleResult } from './fixtures/sample-result.js';
import { writeOutputs } from '../runner/output/report.js';
import { experimentCharts } from '../runner/output/charts.js';

const script = fileURLToPath(new URL('../runner/commands/merge-results.js', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'h2lab-merge-hostile-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const noBrowser = { CHROME_PATH: path.join(scratch, 'no-chromium') };
const environment = /** @type {any} */ ({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-26', wallTimeS: 10, shard: null });

let folders = 0;
/** A fresh folder under scratch, nested so that `../../x` from an out beside it stays inside scratch. */
const folder = (name) => path.join(scratch, `${name}-${++folders}`, 'a', 'b');

/**
 * A whole run's output folder as the runner writes it, of `experiments` ({ id, points: runs a server }).
 * @param {Array<{ id: string, runsPerServer?: number, points?: number }>} experiments
 */
async function writeRun(experiments, { dir = folder('run'), reportOnly = false } = {}) {
  const template = sampleResult({ requests: 5, repeats: 2, seed: 1, servers: ['h1', 'h2-node'] });
  const point = (runsPerServer, k) => {
    // Runs copied from the template's, each repeat once, totals varied: cheap to write, costly to summarize before the fix.
    const runs = Array.from({ length: runsPerServer }, (_, i) => template.runs.slice(0, 2).map((r) => ({ ...r, repeat: i + 1, totalMs: r.totalMs * (1 + (i % 97) / 100) }))).flat();
    return { label: String(k), value: k, settings: template.settings, result: { ...template, runs } };
  };
  const planned = experiments.map(({ id, runsPerServer = 2, points = 1 }) => ({ id, title: id, param: 'requests', paramLabel: 'Requests', points: Array.from({ length: points }, (_, k) => point(runsPerServer, k + 1)) }));
  await writeOutputs(dir, planned, environment, []);
  if (reportOnly) rmSync(path.join(dir, 'results.json'));
  return dir;
}

/** Every file under `dir`, relative to it. */
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));

/** Runs merge-results on `dir` alone into an out beside it; { status, lines, ms, out }. */
function mergeAlone(dir) {
  const out = path.join(path.dirname(dir), 'out');
  const started = performance.now();
  const r = runScript(script, [dir, '--out', out], { env: noBrowser, timeout: 60_000 });
  return { ...r, ms: Math.round(performance.now() - started), out };
}

/** Exit 2 in one line matching `pattern`, and nothing written: no --out, nothing new beside the input. */
function assertRefused(r, pattern, before) {
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.lines.length, 1, r.stderr);
  assert.match(r.lines[0], /^h2lab merge-results: /);
  assert.match(r.lines[0], pattern);
  assert.equal(existsSync(r.out), false, 'nothing written in --out');
  assert.deepEqual(filesUnder(scratch).filter((f) => !before.includes(f)), [], 'nothing written anywhere else');
}

test("experiment ids that are no file names ('../../x', '..', 'a/b', '/x'), in results.json or report.html, are refused before anything is written", async (t) => {
  for (const id of ['../../x', '..', 'a/b', '/x']) {
    for (const reportOnly of [false, true]) {
      const dir = await writeRun([{ id: 'fine' }, { id }], { reportOnly });
      const before = filesUnder(scratch);
      const r = mergeAlone(dir);
      assertRefused(r, new RegExp(`experiment id ${JSON.stringify(id).replace(/[.*/\\]/g, '\\$&')} is not a file name`), before);
      t.diagnostic(`id ${id} (${reportOnly ? 'report.html' : 'results.json'}): exit ${r.status} in ${r.ms} ms`);
    }
  }
  assert.equal(filesUnder(scratch).some((f) => path.basename(f) === 'x.png'), false);
});

test('a chart is written in --out or not at all, whatever the id', async () => {
  const page = /** @type {any} */ ({ evaluate: async () => ({ title: 'chart', pngsBase64: ['png', 'png'] }) });
  const experiment = (id) => /** @type {any} */ ({ id, title: id, param: 'requests', points: [{ label: '1', value: 1, result: { runs: [] } }] });
  const out = path.join(scratch, 'charts', 'out');
  const [chart] = await experimentCharts(page, [experiment('sweep-fast-4g')], out);
  assert.equal(chart.file, path.join(out, 'sweep-fast-4g.png'));
  for (const id of ['../../x', '..', 'a/b', '/x']) await assert.rejects(experimentCharts(page, [experiment(id)], out), /is not a file name/, id);
});

test('more runs of a server in a point than the settings allow (4,000 and 10,000) are refused in one line, before any summary', async (t) => {
  for (const runsPerServer of [101, 4_000, 10_000]) {
    const dir = await writeRun([{ id: 'x', runsPerServer }]);
    const before = filesUnder(scratch);
    const r = mergeAlone(dir);
    assertRefused(r, new RegExp(`${runsPerServer} runs of "h1" in one point.*at most 100`), before);
    t.diagnostic(`${runsPerServer} runs a server: exit ${r.status} in ${r.ms} ms`);
  }
});

test('more points than a sweep has, or more experiments than a plan makes, are refused in one line', async () => {
  const points = await writeRun([{ id: 'x', points: 21 }]);
  assertRefused(mergeAlone(points), /21 points.*at most 20/, filesUnder(scratch));
  const many = await writeRun(Array.from({ length: 79 }, (_, i) => ({ id: `e${i}` })));
  assertRefused(mergeAlone(many), /79 experiments.*at most 78/, filesUnder(scratch));
});

test('a results.json of 1 GB (sparse) is refused by its size in one line, before it is read', (t) => {
  const dir = folder('huge');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'results.json');
  writeFileSync(file, '{"experiments":[');
  truncateSync(file, 1024 ** 3);
  const before = filesUnder(scratch);
  const r = mergeAlone(dir);
  assertRefused(r, /results\.json is 1024\.0 MiB, over the 256 MiB merge-results reads/, before);
  t.diagnostic(`1 GB results.json: exit ${r.status} in ${r.ms} ms`);
});
