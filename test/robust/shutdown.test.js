// Graceful shutdown: SIGTERM to `node server/index.js` with requests in flight on every server.
// Each one completes with its full body or ends with a clean reset or close (never hangs), and
// the process exits 0 within the grace time plus a margin. In-process, a graceful stop leaves no
// timer of a cut-off request behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http2 from 'node:http2';
import { spawn } from 'node:child_process';
import { MiB } from '../../common/setup/units.js';
import { parentCheckIntervalMs, transportLimits } from '../../server/config.js';
import { servers } from '../../common/setup/servers.js';
import { repoRoot, startScript, waitFor } from '../helpers/cli.js';
import { freePortArgs, ids, isH1, startTestLab } from '../helpers/lab.js';

const idOfLabel = Object.fromEntries(servers.map((s) => [s.label, s.id]));

/** Starts the CLI on free ports; resolves { child, exited, origins: { id: origin } }. */
async function startCli() {
  // The Node servers' shutdown; the fronts' are their own (2.6 cuts HTTP/3 responses: test/caddy.test.js, README).
  const run = startScript('server/index.js', [...freePortArgs, '--no-caddy', '--no-nginx']);
  const found = () => Object.fromEntries([...run.stdout.matchAll(/^\s+(\S.*?)\s+(https:\/\/\S+?)\/option/gm)].map(([, label, origin]) => [idOfLabel[label], origin]));
  await waitFor(run, () => Object.keys(found()).length === ids.length, 20_000);
  return { child: run.child, exited: run.exited, origins: found() };
}

/**
 * One GET that always settles: { outcome: 'complete', status, bytes } with the body in full, or
 * { outcome: 'reset', reason } when the server cut it off. Never rejects.
 */
function h1Get(origin, path) {
  return new Promise((resolve) => {
    const req = https.get(new URL(path, origin), { rejectUnauthorized: false, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve({ outcome: 'complete', status: res.statusCode, bytes }));
      res.on('error', (err) => resolve({ outcome: 'reset', reason: err.code ?? err.message }));
      res.on('aborted', () => resolve({ outcome: 'reset', reason: 'aborted' }));
    });
    req.on('error', (err) => resolve({ outcome: 'reset', reason: err.code ?? err.message }));
  });
}

function h2Get(session, path) {
  return new Promise((resolve) => {
    const stream = session.request({ ':path': path });
    let response;
    let bytes = 0;
    let ended = false;
    stream.on('response', (h) => (response = h));
    stream.on('data', (c) => (bytes += c.length));
    stream.on('end', () => (ended = true));
    stream.on('error', () => {});
    // The whole announced body arrived: complete, even if the session's close then marks the
    // stream CANCEL (spdy ends its socket right after a drained connection's last frame).
    stream.on('close', () => {
      if (ended && response && bytes === Number(response['content-length'])) {
        resolve({ outcome: 'complete', status: response[':status'], bytes });
      } else resolve({ outcome: 'reset', reason: `rstCode ${stream.rstCode}, ${bytes} bytes` });
    });
    stream.end();
  });
}

test('SIGTERM: in-flight responses finish or are reset cleanly, exit 0 within the grace time', { timeout: 60_000 }, async (t) => {
  const { child, exited, origins } = await startCli();
  const graceMs = transportLimits.shutdownGraceMs;
  // within the grace time: a delayed response and a big one; beyond it: a delay that must be cut
  const requests = [
    { what: 'delay 1.5 s', path: '/option?size=0.01&delay=1500', bytes: Math.floor(0.01 * MiB), mustComplete: true },
    { what: '32 MiB', path: '/option?size=32', bytes: 32 * MiB, mustComplete: true },
    { what: `delay ${graceMs + 20_000} ms`, path: `/option?size=0.01&delay=${graceMs + 20_000}`, bytes: Math.floor(0.01 * MiB), mustComplete: false },
  ];
  const sessions = [];
  const inFlight = [];
  for (const [id, origin] of Object.entries(origins)) {
    let session;
    if (!isH1(id)) {
      session = http2.connect(origin, { rejectUnauthorized: false });
      session.on('error', () => {});
      sessions.push(session);
    }
    for (const r of requests) {
      inFlight.push({ id, ...r, result: isH1(id) ? h1Get(origin, r.path) : h2Get(session, r.path) });
    }
  }
  await new Promise((r) => setTimeout(r, 300)); // every request has reached its server
  const signalledAt = performance.now();
  child.kill('SIGTERM');

  // The grace time, then the destroy and the exit: 5 s of margin for a loaded machine.
  const boundMs = graceMs + 5_000;
  let timer;
  const exit = await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, boundMs, null)))]);
  clearTimeout(timer);
  assert.ok(exit, `no exit within ${boundMs} ms of SIGTERM`);
  const exitMs = exit.at - signalledAt;
  t.diagnostic(`exit code ${exit.code} ${exit.signal ?? ''} ${exitMs.toFixed(0)} ms after SIGTERM (grace ${graceMs} ms)`);
  assert.equal(exit.code, 0);

  // The server is gone, so every request has settled or never will: give the clients a moment.
  let waitTimer;
  const settled = await Promise.race([
    Promise.all(inFlight.map((r) => r.result)),
    new Promise((r) => (waitTimer = setTimeout(r, 5_000, null))),
  ]);
  clearTimeout(waitTimer);
  for (const s of sessions) s.destroy();
  assert.ok(settled, 'every in-flight request settled (none hangs)');
  inFlight.forEach((r, i) => {
    const res = settled[i];
    t.diagnostic(`${r.id} ${r.what}: ${res.outcome}${res.outcome === 'complete' ? ` ${res.status}, ${res.bytes} bytes` : ` (${res.reason})`}`);
    if (res.outcome === 'complete') {
      assert.equal(res.status, 200, `${r.id} ${r.what}`);
      assert.equal(res.bytes, r.bytes, `${r.id} ${r.what}: a complete response has its whole body`);
    } else {
      assert.ok(!r.mustComplete, `${r.id} ${r.what} fits in the grace time, so it completes`);
    }
  });
  assert.ok(exitMs >= 1_000, 'the delayed response was waited for, not cut off at once');
});

test('a graceful stop leaves no timer of a cut-off request behind', { timeout: 30_000 }, async () => {
  const baseline = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const lab = await startTestLab();
  const pending = [];
  for (const r of lab.running) {
    const path = '/option?size=0.01&delay=60000';
    if (isH1(r.id)) pending.push(h1Get(r.origin, path));
    else {
      const session = http2.connect(r.origin, { rejectUnauthorized: false });
      session.on('error', () => {});
      pending.push(h2Get(session, path).finally(() => session.destroy()));
    }
  }
  await new Promise((r) => setTimeout(r, 300));
  const { drained } = await lab.shutdown(200);
  assert.equal(drained, false, 'minute-long requests cannot drain in 200 ms');
  const results = await Promise.all(pending);
  assert.ok(results.every((r) => r.outcome === 'reset'), JSON.stringify(results));
  await new Promise((r) => setImmediate(r));
  const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  assert.ok(timers <= baseline, `timers left: ${timers} (before: ${baseline})`);
});

test('started by npm: the lab exits when the shell npm ran it in is gone', { timeout: 30_000 }, async () => {
  // npm passes a SIGTERM to its script's shell only, and dash dies without passing it on.
  const command = [process.execPath, 'server/index.js', ...freePortArgs, '--no-caddy', '--no-nginx'].map((a) => `'${a}'`).join(' ');
  const shell = spawn('sh', ['-c', command], { cwd: repoRoot, env: { ...process.env, npm_lifecycle_event: 'start' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // The lab holds the shell's stdout, so 'close' comes only once the lab has exited too.
  const closed = new Promise((resolve) => shell.on('close', resolve));
  const run = { child: shell, stdout: '', stderr: '' };
  shell.stdout.setEncoding('utf8').on('data', (c) => (run.stdout += c));
  shell.stderr.setEncoding('utf8').on('data', (c) => (run.stderr += c));
  try {
    await waitFor(run, () => /^h2lab UI /m.test(run.stdout), 20_000);
    shell.kill('SIGTERM');
    const limitMs = 3 * parentCheckIntervalMs + transportLimits.shutdownGraceMs;
    const outcome = await Promise.race([closed.then(() => 'exited'), new Promise((r) => setTimeout(r, limitMs, 'still running'))]);
    assert.equal(outcome, 'exited', `the lab ${outcome} ${limitMs} ms after its shell`);
  } finally {
    try {
      process.kill(-shell.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
});
