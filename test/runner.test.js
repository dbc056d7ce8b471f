// The headless runner: its plan and reports as units, and the real thing end to end in Chromium
// on a tiny sweep (two delays × two servers, 2 repeats) under a preset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { sampleResult } from './fixtures/sample-result.js';
import { parseRunnerArgs } from '../runner/args.js';
import { planExperiments } from '../runner/plan.js';
import { summaryMarkdown } from '../common/report/summary-markdown.js';
import { environmentLine, writeOutputs } from '../runner/output/report.js';
import { reportData } from '../common/report/report-html.js';
import { caddyMissing } from './helpers/caddy.js';
import { invalidText } from '../common/stats/validity.js';
import { networkById } from '../common/setup/networks.js';

const repo = new URL('..', import.meta.url).pathname;

test('the quick classic suite: grids 1–4, 4 repeats (ratios without a verdict: one needs 6 or more a side), no preset slower than 150,000 B/s', () => {
  const experiments = planExperiments(parseRunnerArgs(['--suite', 'classic', '--quick']));
  assert.deepEqual(experiments.map((e) => e.id), ['1', '2a', '2b', '3', '4']);
  for (const e of experiments) for (const p of e.points) assert.equal(p.settings.repeats, 4);
  assert.deepEqual(experiments.at(-1).points.map((p) => p.value), ['good-3g', 'regular-4g', 'wifi']);
  assert.deepEqual(experiments[1].points.map((p) => p.settings.requests), [6, 30, 150, 750, 3750]);
});

test('a sweep under several presets plans one experiment per preset', () => {
  const experiments = planExperiments(parseRunnerArgs(['--sweep', 'delay=0,20', '--preset', 'all']));
  assert.equal(experiments.length, 11);
  assert.deepEqual(experiments[0].points.map((p) => p.settings.delayMs), [0, 20]);
  assert.ok(experiments.every((e) => e.points.every((p) => p.settings.preset === e.id.replace('sweep-', ''))));
});

test('summary.md: the classic layout with intervals, floors and where HTTP/2 wins', () => {
  const points = [0, 20].map((delay, i) => ({ label: String(delay), value: delay, result: sampleResult({ repeats: 3, preset: 'slow-4g', seed: i + 1 }) }));
  const md = summaryMarkdown([{ id: '1', title: '1. Delay', paramLabel: 'Delay (ms)', points }], environmentLine({
    browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [{ label: 'HTTP/1.1' }], date: '2026-11-21',
  }));
  assert.match(md, /^Chromium 156 · Linux · 2 CPUs · node v20 · servers: HTTP\/1\.1 · 2026-11-21$/m);
  assert.match(md, /\| Delay \(ms\) \| network measured \| HTTP\/1\.1 \(ms\) \| HTTP\/2 \(spdy\) \(ms\) \| HTTP\/2 \(node:http2\) \(ms\) \| verdicts \|/);
  assert.match(md, /\| 0 \| [^|]+ \| \d+ \[\d+–\d+ · \d+ %\] · \d\.\d\d× floor \|/);
  assert.match(md, /## Where the newer protocol wins/);
  assert.match(md, /of 2 conditions/);
});

test("summary.md's environment line names the base seed of the losses, with how to draw them again", () => {
  const line = environmentLine({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-27', lossSeed: 2868138702 });
  assert.match(line, /· 2026-11-27 · loss seed 2868138702 \(--loss-seed 2868138702 or the page's Loss seed draws the same losses again\)$/);
  assert.doesNotMatch(environmentLine({ browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-27', lossSeed: null }), /seed/);
});

test('report.html carries the results; past 8 MiB of them, without the per-request records, and says so', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-outputs-'));
  const environment = { browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-23' };
  const experiment = (requests) => [{ id: 'x', title: 'X', paramLabel: 'Requests', points: [{ label: String(requests), value: requests, result: sampleResult({ requests, repeats: 3 }) }] }];
  try {
    await writeOutputs(dir, experiment(100), environment, []);
    const small = reportData(readFileSync(path.join(dir, 'report.html'), 'utf8'));
    assert.equal(small.experiments[0].points[0].result.runs[0].requests.length, 100);
    await writeOutputs(dir, experiment(10_000), environment, []); // 90,000 records: well over 8 MiB
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    assert.ok(readFileSync(path.join(dir, 'results.json')).length > 8 * 1024 * 1024);
    const big = reportData(html);
    assert.deepEqual(big.experiments[0].points[0].result.runs.map((r) => r.requests.length), Array(9).fill(0));
    assert.equal(big.experiments[0].points[0].result.summary.h1.n, 3);
    assert.match(html, /leaves out the per-request records \(results\.json is [\d.]+ MB\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--network both plans each experiment under DevTools, then through the lab link, paired by baseId', () => {
  const experiments = planExperiments(parseRunnerArgs(['--suite', 'classic', '--quick', '--network', 'both']));
  assert.deepEqual(experiments.map((e) => e.id).slice(0, 4), ['1-devtools', '1-link', '2a-devtools', '2a-link']);
  for (const e of experiments) {
    assert.ok(e.points.every((p) => p.settings.network === e.network));
    assert.equal(e.baseId, e.id.replace(/-(devtools|link)$/, ''));
  }
  assert.match(experiments[1].title, / · lab link$/);
});

test('summary.md and networks.csv put the networks side by side: each median, each ratio with its interval, the link\'s asymmetry once', async () => {
  const point = (network, seed) => {
    const result = sampleResult({ repeats: 3, preset: 'fast-4g', seed });
    result.settings.network = network;
    result.environment.network = network;
    return { label: 'Fast 4G', value: 'fast-4g', result };
  };
  const experiment = (network, seed) => ({ id: `p-${network}`, baseId: 'p', baseTitle: 'Presets', network, title: `Presets · ${network}`, paramLabel: 'Network preset', points: [point(network, seed)] });
  const [d, l, p] = [experiment('devtools', 1), experiment('link', 2), experiment('packet', 3)];
  const md = summaryMarkdown([d, l, p], 'Chromium 156 · Linux');
  assert.match(md, /## Networks side by side\n/);
  assert.equal(md.split(networkById('link').caveat).length, 2, 'the asymmetry said once');
  assert.ok(md.includes('| Network preset | server | DevTools (ms) | lab link (ms) | packet network (ms) | link/devtools | packet/devtools | packet/link |'));
  const median = (e) => e.points[0].result.summary.h1.median;
  const ratio = (median(p) / median(l)).toFixed(2).replace('.', '\\.');
  assert.match(md, new RegExp(`\\| Fast 4G \\| HTTP/1\\.1 \\| \\d+ \\| \\d+ \\| \\d+ \\| [^|]+ \\| [^|]+ \\| ${ratio}× \\[\\d\\.\\d\\d–\\d\\.\\d\\d · \\d+ %\\] \\|`));
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-networks-'));
  try {
    await writeOutputs(dir, [d, l, p], { browser: 'Chromium 156', os: 'Linux', cpus: 2, node: 'v20', servers: [], date: '2026-11-23' }, []);
    const rows = Papa.parse(readFileSync(path.join(dir, 'networks.csv'), 'utf8').trim(), { header: true }).data;
    const h1 = rows.find((r) => r.server === 'h1' && r.network === 'packet' && r.versus === 'link');
    assert.equal(Number(h1.ratio).toFixed(2), (median(p) / median(l)).toFixed(2));
    assert.ok(Number(h1.ratio_ci95_lo) <= Number(h1.ratio) && Number(h1.ratio) <= Number(h1.ratio_ci95_hi));
    const summary = Papa.parse(readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim(), { header: true }).data;
    assert.deepEqual([...new Set(summary.map((r) => r.network))], ['devtools', 'link', 'packet']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad option exits 2 with one line naming it', () => {
  const r = spawnSync(process.execPath, ['runner/commands/experiments.js', '--requests', 'abc'], { cwd: repo, encoding: 'utf8' });
  assert.equal(r.status, 2);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^h2lab experiments: .*--requests/);
});

test('end to end: two delays × two servers and an A/A control, 2 repeats, under Fast 4G', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-runner-'));
  try {
    const args = ['runner/commands/experiments.js', '--sweep', 'delay=0,20', '--servers', 'h1,h2-node', '--control', '--repeats', '2', '--requests', '10', '--size', '0.01', '--preset', 'fast-4g', '--out', out, '--quiet'];
    const r = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /## Sweep of Delay \(ms\) · Fast 4G/);
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    const runs = results.experiments[0].points.flatMap((p) => p.result.runs);
    // --control alone measures h1, the server h2-node is compared with, a second time.
    assert.equal(runs.length, 2 * 3 * 2);
    assert.deepEqual([...new Set(runs.map((x) => x.server))].sort(), ['h1', 'h1-aa', 'h2-node']);
    for (const run of runs) {
      assert.equal(run.valid, true, invalidText(run));
      assert.equal(run.crossCheck.problems, 0);
    }
    const requests = Papa.parse(readFileSync(path.join(out, 'requests.csv'), 'utf8').trim(), { header: true });
    assert.equal(requests.data.length, 12 * 10);
    assert.equal(requests.errors.length, 0);
    const summary = Papa.parse(readFileSync(path.join(out, 'summary.csv'), 'utf8').trim(), { header: true });
    assert.equal(summary.data.length, 2 * 3);
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(md, /× floor/);
    assert.match(md, /\| HTTP\/1\.1 \(ms\) \| HTTP\/1\.1 · A\/A \(ms\) \| HTTP\/2 \(node:http2\) \(ms\) \|/);
    assert.match(md, /A\/A control \(HTTP\/1\.1 twice\): [a-z ]+ \(\d\.\d\d× \[/);
    const png = readFileSync(path.join(out, 'sweep-fast-4g.png'));
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    const env = JSON.parse(readFileSync(path.join(out, 'environment.json'), 'utf8'));
    assert.match(env.browser, /Chrom/);
    assert.equal(env.limits.maxStreams, 100);
    assert.ok(existsSync(path.join(out, 'summary.md')));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('end to end: --network both under Fast 4G, DevTools and the lab link side by side', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-runner-both-'));
  try {
    const args = ['runner/commands/experiments.js', '--network', 'both', '--preset', 'fast-4g', '--servers', 'h1,h2-node', '--repeats', '2', '--requests', '10', '--size', '0.01', '--out', out, '--quiet'];
    const r = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    const [devtools, link] = results.experiments.map((e) => e.points[0].result);
    assert.deepEqual(devtools.environment.network, { id: 'devtools', conditions: null, counters: null });
    assert.equal(link.environment.network.id, 'link');
    assert.equal(link.environment.network.conditions.preset, 'fast-4g');
    assert.equal(link.environment.network.conditions.rttMs, 165);
    // The page measured the link it set: the calibration sees its round trip.
    assert.ok(Math.abs(link.environment.calibration.rttMs - 165) < 16.5, `calibrated RTT ${link.environment.calibration.rttMs} ms`);
    for (const run of [...devtools.runs, ...link.runs]) assert.equal(run.valid, true, invalidText(run));
    // Cold runs through the link pay TCP, TLS and the request: at least three round trips.
    for (const run of link.runs) assert.ok(run.totalMs >= 3 * 165, `${run.server} ran in ${run.totalMs} ms`);
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /## Networks side by side/);
    assert.match(readFileSync(path.join(out, 'requests.csv'), 'utf8'), /,fast-4g,link,h2-node,h2,/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('end to end: --network link alone, over HTTP/3 too: every run cross-checked with DevTools', { skip: caddyMissing, timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-runner-link-'));
  try {
    const args = ['runner/commands/experiments.js', '--network', 'link', '--preset', 'fast-4g', '--servers', 'h2-node,caddy-h3', '--repeats', '2', '--requests', '10', '--size', '0.01', '--out', out, '--quiet'];
    const r = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    assert.equal(r.status, 0, r.stderr);
    const [result] = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')).experiments.map((e) => e.points[0].result);
    assert.equal(result.runs.length, 4);
    for (const run of result.runs) {
      assert.equal(run.valid, true, invalidText(run));
      assert.deepEqual(run.crossCheck, { devtoolsConnections: 1, problems: 0 });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('Ctrl-C closes Chrome and the servers and exits 130', { timeout: 120_000 }, async () => {
  const { spawn } = await import('node:child_process');
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-runner-int-'));
  const child = spawn(process.execPath, ['runner/commands/experiments.js', '--requests', '200', '--delay', '200', '--repeats', '50', '--servers', 'h2-node', '--out', out], { cwd: repo });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  // Wait until the browser is up and running (a progress line), then interrupt.
  const started = Date.now();
  while (!/runs/.test(stderr) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 200));
  const chromiumBefore = spawnSync('pgrep', ['-f', 'h2lab-chromium-']).stdout.toString().trim().split('\n').filter(Boolean).length;
  assert.ok(chromiumBefore > 0, 'the runner started Chromium');
  child.kill('SIGINT');
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 130);
  const left = spawnSync('pgrep', ['-f', 'h2lab-chromium-']).stdout.toString().trim();
  assert.equal(left, '', 'no Chromium left running');
  rmSync(out, { recursive: true, force: true });
});
