// `npm run chrome -- --network packet` as a person runs it: it starts a lab of its own on the packet
// network's server side and Chrome on the browser side, on the lab's page with "Lab network
// (packets)" chosen. Chrome runs headless here, through a CHROME_PATH wrapper that also opens its
// DevTools port to this test through a Unix socket (the port itself is on the browser side,
// out of reach). A person's run there records the packet network, its conditions and the
// emulator's counters; a burst the lab refuses is said under the form, naming the field; SIGTERM
// ends it all. Skipped, saying why, where the packet network cannot run. Run under the browser lock.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { findChrome } from '../runner/browsers/chrome.js';
import { execFileSync } from 'node:child_process';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { runLossSeed } from '../common/setup/seeds.js';
import { exitOf, runScript, startScript, waitFor } from './helpers/cli.js';

const skip = packetNetworkMissing() ?? false;
const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-open-chrome-packet-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const socket = path.join(dir, 'devtools.sock');

// Runs on the browser side: Chrome headless on a DevTools port, and a Unix socket (a file, which
// every namespace shares) forwarded to that port.
const forwarder = `const net = require('node:net');
net.createServer((c) => { const u = net.connect(9229, '127.0.0.1'); c.pipe(u).pipe(c); c.on('error', () => u.destroy()); u.on('error', () => c.destroy()); }).listen(process.argv[2]);`;

function wrapper() {
  const file = path.join(dir, 'chrome');
  writeFileSync(path.join(dir, 'forward.cjs'), forwarder);
  // A run before this one left its socket's file: a new forwarder listens on it afresh.
  writeFileSync(file, `#!/bin/sh\nrm -f '${socket}'\n'${process.execPath}' '${path.join(dir, 'forward.cjs')}' '${socket}' &\nexec '${findChrome()}' --headless=new --remote-debugging-port=9229 --window-size=1280,1400 "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

const devtoolsJson = (urlPath) =>
  new Promise((resolve, reject) => {
    http.get({ socketPath: socket, path: urlPath, headers: { host: 'localhost' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(err);
        }
      });
    }).on('error', reject);
  });

/** The lab's tab once Chrome lists it. */
async function labTab() {
  const deadline = Date.now() + 30_000;
  let seen;
  while (Date.now() < deadline) {
    seen = await devtoolsJson('/json/list').catch((err) => err.message);
    const tab = Array.isArray(seen) && seen.find((t) => t.type === 'page' && /^http:\/\/localhost:\d+\//.test(t.url));
    if (tab) return tab;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no lab tab within 30 s: ${JSON.stringify(seen)}`);
}

/** Evaluates an expression (awaited) in the tab; resolves its value. */
async function evaluate(tab, expression) {
  const ws = new WebSocket(`ws+unix://${socket}:${new URL(tab.webSocketDebuggerUrl).pathname}`, { headers: { host: 'localhost' } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  try {
    ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } }));
    const { result, error } = await new Promise((resolve) => ws.on('message', (data) => JSON.parse(data).id === 1 && resolve(JSON.parse(data))));
    if (error) throw new Error(error.message);
    if (result.exceptionDetails) throw new Error(result.exceptionDetails.exception?.description ?? result.exceptionDetails.text);
    return result.result.value;
  } finally {
    ws.close();
  }
}

async function retried(job) {
  for (let left = 50; ; left--) {
    try {
      return await job();
    } catch (err) {
      if (!left) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

// Fills the set-up as a person does (values, then change events) and clicks Run; resolves once
// the run is over: what the page shows under the form and the result it made, if any.
const runInPage = (fields) => `(async () => {
  const form = document.querySelector('#settings');
  const until = (ok) => new Promise((resolve, reject) => { const end = Date.now() + 60000; const f = () => ok() ? resolve() : Date.now() > end ? reject(new Error('timed out: ' + document.querySelector('#progress-text').textContent)) : setTimeout(f, 100); f(); });
  await until(() => window.h2lab && !document.querySelector('#run').disabled);
  const fields = ${JSON.stringify(fields)};
  for (const box of form.querySelectorAll('input[name=servers]')) { box.checked = ['h1', 'h2-node'].includes(box.value); box.dispatchEvent(new Event('change', { bubbles: true })); }
  for (const [name, value] of Object.entries(fields)) { form.elements[name].value = value; form.elements[name].dispatchEvent(new Event('change', { bubbles: true })); }
  const before = window.h2lab.last;
  document.querySelector('#run').click(); // disables Run at once, until the run is over
  await until(() => !document.querySelector('#run').disabled && /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent));
  const last = window.h2lab.last === before ? null : window.h2lab.last;
  return {
    progress: document.querySelector('#progress-text').textContent,
    errors: document.querySelector('#settings-errors').textContent,
    invalid: [...form.querySelectorAll('[aria-invalid=true]')].map((el) => el.name),
    environment: last && { network: last.environment.network, presetAppliedBy: last.environment.presetAppliedBy },
    lossSeeds: last && { base: last.settings.lossSeed, runs: last.runs.map((r) => r.lossSeed) },
    runLabel: document.querySelector('#run-label').textContent,
  };
})()`;

test('npm run chrome -- --network packet refuses a network other than packet, and --url with it, in one line', () => {
  for (const [args, line] of [
    [['--network', 'link'], /^h2lab chrome: --network: must be packet/],
    [['--network', 'packet', '--url', 'http://localhost:8080/'], /^h2lab chrome: --network: packet opens a lab of its own: not with --url$/],
  ]) {
    const r = runScript('runner/commands/open-chrome.js', args);
    assert.equal(r.status, 2);
    assert.equal(r.lines.length, 1, r.stderr);
    assert.match(r.lines[0], line);
  }
});

test('npm run chrome -- --network packet: its own lab and Chrome on the packet network; a run records the network, its conditions and the counters; a refused burst names its field', { skip, timeout: 150_000 }, async () => {
  const run = startScript('runner/commands/open-chrome.js', ['--network', 'packet'], { env: { CHROME_PATH: wrapper() } });
  try {
    await waitFor(run, (r) => r.stdout.includes('Opened'), 60_000);
    assert.match(run.stdout, /on the packet network's browser side/);
    const tab = await labTab();
    // Root here: Chrome refuses its sandbox as root, and both the command and the page say so.
    const rootNotice = process.getuid() === 0;
    assert.equal(run.stdout.includes('Chrome runs without its sandbox'), rootNotice, run.stdout);
    assert.match(tab.url, /[?&]network=packet/);
    // Retried while the page is still loading (its first context goes with the navigation).
    const page = await retried(() => evaluate(tab, `new Promise((resolve) => { const f = () => window.h2lab ? resolve({ option: [...document.querySelector('select[name=network]').options].find((o) => o.value === 'packet')?.text, chosen: document.querySelector('select[name=network]').value, notice: !document.querySelector('#sandbox-notice').hidden, lossShown: !document.querySelector('input[name=loss]').closest('label').hidden }) : setTimeout(f, 100); f(); })`));
    assert.deepEqual(page, { option: 'Lab network (packets)', chosen: 'packet', notice: rootNotice, lossShown: true });
    // The servers resolve to 198.18.0.1, not loopback: Chrome 156 would ask the person first; the
    // lab's profile holds the permission (npm run chrome grants it before the page loads).
    assert.equal(await evaluate(tab, `navigator.permissions.query({ name: 'local-network-access' }).then((s) => s.state)`), 'granted');

    const done = await evaluate(tab, runInPage({ requests: 10, sizeMiB: 0.01, delayMs: 0, repeats: 1, preset: 'fast-4g', loss: 2 }));
    assert.match(done.progress, /^Done: 2 runs/, JSON.stringify(done));
    const { network: packet, presetAppliedBy } = done.environment;
    assert.deepEqual({ network: packet.id, presetAppliedBy }, { network: 'packet', presetAppliedBy: 'packet' });
    assert.deepEqual(packet.conditions, { preset: 'fast-4g', rttMs: 165, downloadBps: 1_012_500, uploadBps: 168_750, queueBytes: packet.conditions.queueBytes, loss: 2, burst: null, traceDown: null, traceUp: null });
    for (const way of ['down', 'up']) {
      const c = packet.counters[way];
      assert.ok(c.delivered > 0 && c.deliveredBytes > 0, `${way}: ${JSON.stringify(c)}`);
      assert.ok(c.droppedByLoss >= 0 && c.droppedByQueue >= 0, `${way}: ${JSON.stringify(c)}`);
    }
    // Down carries the bodies: 10 × 0.01 MiB per server at least.
    assert.ok(packet.counters.down.deliveredBytes > 2 * 10 * 0.01 * 1024 * 1024, JSON.stringify(packet.counters.down));
    assert.match(done.runLabel, /packet network: RTT 165 ms, .* loss 2 % each way; packets delivered [\d,]+ down \/ [\d,]+ up, lost [\d,]+ \/ [\d,]+, queue-dropped [\d,]+ \/ [\d,]+/);
    // The Loss seed left empty: a fresh base seed, shown with the result; typed in, the same run seeds again.
    const { base, runs } = done.lossSeeds;
    assert.ok(Number.isInteger(base) && runs.length === 2 && runs.every((seed) => seed === runLossSeed(base, 1, { loss: 2, burst: null })), JSON.stringify(done.lossSeeds));
    assert.ok(done.runLabel.includes(` · loss seed ${base} (`), done.runLabel);
    const again = await evaluate(tab, runInPage({ lossSeed: base }));
    assert.deepEqual(again.lossSeeds, done.lossSeeds, 'the seed shown draws the same losses');
    const fresh = await evaluate(tab, runInPage({ lossSeed: '' }));
    assert.notEqual(fresh.lossSeeds.base, base, 'emptied: a fresh one');

    const refused = await evaluate(tab, runInPage({ 'burst.p': 1, 'burst.r': 0 }));
    assert.equal(refused.environment, null);
    assert.match(refused.errors, /^The lab refused burst\.r: burst\.r must be a number from \d+ to 100 %, got 0$/);
    assert.deepEqual(refused.invalid, ['burst.r']);
  } finally {
    run.child.kill('SIGTERM');
  }
  const exit = await exitOf(run, 60_000);
  assert.equal(exit.code, 143, `${run.stdout}\n${run.stderr}`);
});

/** Runs `script` with node in the network namespace of the process `pid` (the lab's, on the server side); its stdout. */
const inNamespaceOf = (pid, script) => execFileSync('nsenter', ['-t', String(pid), '-U', '-n', '--preserve-credentials', process.execPath, '-e', script], { encoding: 'utf8' });

test('the emulator killed under npm run chrome -- --network packet: the lab answers 503 naming it, 200 otherwise, says so, and ends cleanly when Chrome closes', { skip, timeout: 120_000 }, async () => {
  const run = startScript('runner/commands/open-chrome.js', ['--network', 'packet'], { env: { CHROME_PATH: wrapper() } });
  try {
    await waitFor(run, (r) => r.stdout.includes('Opened'), 60_000);
    const tab = await labTab();
    const uiPort = new URL(tab.url).port;
    const pids = (pattern) => execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').map(Number);
    // The lab is the command's second process, the one launch.py runs on the server side.
    const lab = Math.max(...pids('runner/commands/open-chrome.js --network packet'));
    process.kill(Math.max(...pids('server/packet/emulator.js')), 'SIGKILL');
    await waitFor(run, (r) => /emulator exited/.test(r.stderr), 10_000);
    assert.match(run.stderr, /^h2lab chrome: the packet network's emulator exited \(signal SIGKILL\)$/m);
    const ask = (route) => JSON.parse(inNamespaceOf(lab, `fetch('http://127.0.0.1:${uiPort}${route}').then(async (r) => console.log(JSON.stringify({ status: r.status, code: (await r.json()).code })))`));
    assert.deepEqual(ask('/api/networks/packet/counters'), { status: 503, code: 'network-failed' });
    assert.deepEqual(ask('/api/servers'), { status: 200 });
    // The person closes Chrome: the command ends with it, and cleanly.
    const browser = await devtoolsJson('/json/version');
    const ws = new WebSocket(`ws+unix://${socket}:${new URL(browser.webSocketDebuggerUrl).pathname}`, { headers: { host: 'localhost' } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ id: 1, method: 'Browser.close' }));
    const exit = await exitOf(run, 30_000);
    assert.equal(exit.code, 0, `${run.stdout}\n${run.stderr}`);
  } finally {
    run.child.kill('SIGTERM');
  }
});
