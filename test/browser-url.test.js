// --browser-url: the runner and page-loads drive a Chrome that someone else started, through its
// DevTools endpoint, and leave it running as they found it. Here that Chrome is a headless
// Chromium started by the test on a DevTools port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startChromium } from './helpers/chromium.js';
import { ensureCerts } from '../server/certs.js';
import { certsDir, configFromEnv } from '../server/config.js';
import { exitOf, runScript, startScript } from './helpers/cli.js';
import { exitedCleanOrMismatched, reasonsBesidesMismatch } from './helpers/mismatch.js';

let chrome;
let endpoint;

let started;
before(async () => {
  started = await startChromium();
  ({ child: chrome, endpoint } = started);
});

after(() => started?.stop());

/** Resolves when the tab sends its first request of the sweep's second point (delay=50). */
async function secondPointStarted(wsUrl, timeoutMs) {
  const ws = new WebSocket(wsUrl);
  try {
    await once(ws, 'open');
    ws.send(JSON.stringify({ id: 1, method: 'Network.enable' }));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the second point did not start within ${timeoutMs} ms`)), timeoutMs);
      ws.on('message', (data) => {
        const { method, params } = JSON.parse(data);
        if (method === 'Network.requestWillBeSent' && /[?&]delay=50(&|$)/.test(params.request.url)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    ws.close();
  }
}

const tabsOf = async () => (await (await fetch(`${endpoint}/json/list`)).json()).filter((t) => t.type === 'page');

/** The runner's --json output; a run that printed none fails with what it said (exit code, stderr). */
const jsonOf = (r) => {
  assert.ok(r.stdout.trim(), `exit ${r.status ?? r.signal}, no JSON on stdout; stderr: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

test('npm run experiments --browser-url: a run in that browser, 0 failures, the browser left as it was', { timeout: 120_000 }, async () => {
  const tabsBefore = (await tabsOf()).length;
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-remote-run-'));
  try {
    const r = runScript('runner/commands/experiments.js', ['--browser-url', endpoint, '--requests', '20', '--size', '0.01', '--repeats', '2', '--servers', 'h1,h2-node', '--out', out, '--quiet', '--json'], { timeout: 110_000 });
    assert.equal(r.status, 0, r.stderr);
    const { environment, experiments } = jsonOf(r);
    assert.equal(environment.browserUrl, `${endpoint}/`);
    assert.equal(environment.certificate, 'ignored', 'this Chromium was not told to trust the lab');
    const runs = experiments.flatMap((e) => e.points.flatMap((p) => p.result.runs));
    assert.equal(runs.length, 4);
    for (const run of runs) assert.equal(run.failures, 0, `${run.server}: ${run.failures} failed`);
    assert.equal(chrome.exitCode, null, 'the browser still runs');
    assert.equal((await tabsOf()).length, tabsBefore, 'no tab of the run is left open');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a browser that already trusts the lab is left as it is: one HTTP/2 connection per run', { timeout: 120_000 }, async () => {
  const { spkiSha256 } = await ensureCerts({ dir: certsDir, sans: configFromEnv('sans') }); // the leaf the lab will serve
  const trusting = await startChromium([`--ignore-certificate-errors-spki-list=${spkiSha256}`]);
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-remote-trusted-'));
  try {
    const r = runScript('runner/commands/experiments.js', ['--browser-url', trusting.endpoint, '--requests', '20', '--size', '0.01', '--repeats', '2', '--servers', 'h2-node', '--out', out, '--quiet', '--json'], { timeout: 110_000 });
    const { environment, experiments } = jsonOf(r);
    const runs = experiments.flatMap((e) => e.points.flatMap((p) => p.result.runs));
    assert.ok(exitedCleanOrMismatched(r.status, runs), r.stderr);
    assert.equal(environment.certificate, 'trusted');
    for (const run of runs) {
      assert.deepEqual(reasonsBesidesMismatch(run), [], r.stderr);
      assert.equal(run.serverStats.connectionsOpened, 1);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    await trusting.stop();
  }
});

test('npm run page-loads --browser-url: Early Hints in that browser', { timeout: 120_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-remote-loads-'));
  try {
    const r = runScript('runner/commands/page-loads.js', ['--browser-url', endpoint, '--repeats', '1', '--modes', 'requested,hints', '--think-ms', '100', '--out', out, '--json'], { timeout: 110_000 });
    assert.equal(r.status, 0, r.stderr);
    const result = jsonOf(r);
    assert.deepEqual(result.loads.map((l) => l.mode).sort(), ['hints', 'requested']);
    assert.equal(result.loads.find((l) => l.mode === 'hints').hintActedOn, true);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('a --browser-url that does not answer: one line naming it, exit 2, within 10 s', () => {
  const startedAt = Date.now();
  const r = runScript('runner/commands/experiments.js', ['--browser-url', 'http://127.0.0.1:9', '--requests', '5', '--repeats', '1', '--quiet'], { timeout: 30_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.lines.length, 1, r.stderr);
  assert.match(r.lines[0], /^h2lab experiments: --browser-url: http:\/\/127\.0\.0\.1:9\/ does not answer/);
  assert.ok(Date.now() - startedAt < 10_000, `took ${Date.now() - startedAt} ms`);
});

test('the browser going away mid-run: exit 1 with the reason, the finished points written', { timeout: 120_000 }, async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-remote-gone-'));
  try {
    const run = startScript('runner/commands/experiments.js', ['--browser-url', endpoint, '--sweep', 'delay=0,50,100,150,200,250,300,350,400,450', '--requests', '10', '--size', '0.01', '--repeats', '2', '--servers', 'h1,h2-node', '--out', out, '--quiet']);
    // Once the lab's page is open in that browser, watch its requests: the first request of the
    // second point (delay=50) means the first point is finished; then take the browser away.
    // (A fixed wait was too short on a slower machine: no point had finished.)
    const deadline = Date.now() + 60_000;
    let tab;
    while (!(tab = (await tabsOf()).find((t) => t.url.startsWith('http://localhost:')))) {
      assert.ok(Date.now() < deadline, 'the lab page never opened');
      await new Promise((r) => setTimeout(r, 100));
    }
    await secondPointStarted(tab.webSocketDebuggerUrl, deadline - Date.now());
    chrome.kill('SIGKILL');
    const exit = await exitOf(run, 60_000);
    assert.equal(exit.code, 1, run.stderr);
    assert.match(run.stderr, /h2lab experiments: stopped after \d+ of 40 runs \(.*\); the finished points are written/);
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    // A finished point is a row of the sweep's table: its delay, then what the network measured.
    const rows = summary.split('\n').filter((l) => /^\| \d+ \| /.test(l));
    assert.ok(rows.length >= 1 && rows.length < 10, `${rows.length} finished points in summary.md:\n${summary}\n${run.stderr}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
