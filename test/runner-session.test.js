// The runner session (runner/browsers/session.js) as a person meets it: Ctrl-C in the middle of
// experiments or page-loads leaves no Chromium, Caddy or packet launcher behind; page-loads on
// the packet network sets up both sides and tears them down; and experiments under two networks
// put them side by side. Real Chromium: run under the browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { caddyMissing } from './helpers/caddy.js';
import { exitOf, repoRoot, runScript, startScript, waitFor } from './helpers/cli.js';
import { markEnv, marked, markedWith, newMark, untilGone } from './helpers/processes.js';

const packetMissing = packetNetworkMissing() ?? false;
const withOut = async (prefix, fn) => {
  const out = mkdtempSync(path.join(tmpdir(), prefix));
  try {
    return await fn(out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
};

test('Ctrl-C in experiments (SIGINT to the runner alone) closes Chromium and Caddy: exit 130, nothing left', { skip: caddyMissing, timeout: 60_000 }, () =>
  withOut('h2lab-session-int-', async (out) => {
    const mark = newMark();
    const args = ['--servers', 'h2-node,caddy-h2', '--requests', '50', '--delay', '200', '--repeats', '50', '--out', out];
    const run = startScript('runner/commands/experiments.js', args, { env: markEnv(mark) });
    await waitFor(run, () => /runs/.test(run.stderr) && markedWith(mark, 'caddy') && markedWith(mark, 'h2lab-chromium-'), 40_000);
    run.child.kill('SIGINT');
    assert.equal((await exitOf(run, 15_000)).code, 130);
    assert.deepEqual(await untilGone(mark), []);
  }),
);

test('page-loads --network packet: both sides set up, the loads on the emulated path, everything torn down', { skip: packetMissing, timeout: 60_000 }, () =>
  withOut('h2lab-session-packet-', async (out) => {
    const mark = newMark();
    const args = ['--network', 'packet', '--preset', 'fast-4g', '--modes', 'requested', '--repeats', '1', '--out', out, '--json'];
    const run = startScript('runner/commands/page-loads.js', args, { env: markEnv(mark) });
    const { code } = await exitOf(run, 50_000);
    assert.equal(code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.environment.network.id, 'packet');
    assert.equal(result.environment.presetAppliedBy, 'packet');
    assert.equal(result.environment.network.conditions.rttMs, 165);
    assert.ok(result.environment.network.counters.down.delivered > 0);
    // A cold load on the emulated path pays TCP, TLS and the request before the HTML's first byte.
    for (const l of result.loads) assert.ok(l.documentHeadersMs >= 3 * 165, JSON.stringify(l));
    assert.match(readFileSync(path.join(out, 'page-loads-h2-node.csv'), 'utf8'), /,fast-4g,packet,requested,/);
    assert.deepEqual(await untilGone(mark), []);
  }),
);

// Ctrl-C in a terminal signals the foreground group; `kill -INT` the runner alone. Either way the
// command inside gets one SIGINT (launch.py has its own group) and shuts down.
for (const [to, target] of [['the foreground group', (pid) => -pid], ['the runner alone', (pid) => pid]])
test(`SIGINT to ${to} in page-loads --network packet: exit 130, no launcher, namespace process or Chromium left`, { skip: packetMissing, timeout: 60_000 }, () =>
  withOut('h2lab-session-packet-int-', async (out) => {
    const mark = newMark();
    const args = ['runner/commands/page-loads.js', '--network', 'packet', '--preset', 'fast-4g', '--repeats', '20', '--out', out];
    // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
    const child = spawn(process.execPath, args, { cwd: repoRoot, detached: true, stdio: 'ignore', env: { ...process.env, ...markEnv(mark) } });
    try {
      const deadline = Date.now() + 40_000;
      while (!markedWith(mark, '--host-resolver-rules') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(markedWith(mark, 'launch.py') && markedWith(mark, 'server/packet/emulator.js'), JSON.stringify(marked(mark)));
      await new Promise((r) => setTimeout(r, 2_000)); // loading pages
      process.kill(target(child.pid), 'SIGINT');
      const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
      assert.equal(code, 130);
      assert.deepEqual(await untilGone(mark), []);
    } finally {
      for (const p of marked(mark)) process.kill(p.pid, 'SIGKILL');
    }
  }),
);

test('page-loads --network packet where the packet network cannot run: one line, exit 2', () => {
  const r = runScript('runner/commands/page-loads.js', ['--network', 'packet'], { env: { PATH: '/nonexistent' } });
  assert.equal(r.status, 2);
  assert.deepEqual(r.lines, ['h2lab page-loads: --network packet: the packet network needs python3 (its launcher uses only the standard library): apt-get install -y python3']);
});

test('experiments --network devtools,link with 2 servers: summary.md and the CSVs carry both networks and each ratio', { timeout: 60_000 }, () =>
  withOut('h2lab-session-networks-', async (out) => {
    const args = ['--network', 'devtools,link', '--preset', 'fast-4g', '--servers', 'h1,h2-node', '--requests', '2', '--size', '0.01', '--repeats', '2', '--out', out, '--quiet'];
    const r = runScript('runner/commands/experiments.js', args, { timeout: 55_000 });
    assert.ok(r.status === 0 || r.status === 1, r.stderr); // 1: a run the calibration found off its preset on a busy machine
    const md = readFileSync(path.join(out, 'summary.md'), 'utf8');
    assert.match(md, /## Networks side by side/);
    assert.match(md, /\| Network preset \| server \| DevTools \(ms\) \| lab link \(ms\) \| link\/devtools \|/);
    assert.match(md, /\| Fast 4G \| HTTP\/2 \(node:http2\) \| \d+ \| \d+ \| \d+\.\d\d× \[\d+\.\d\d–\d+\.\d\d · \d+ %\] \|/);
    assert.match(md, /The lab link's asymmetry: TCP ends on loopback/);
    const summary = Papa.parse(readFileSync(path.join(out, 'summary.csv'), 'utf8').trim(), { header: true }).data;
    assert.deepEqual([...new Set(summary.map((row) => row.network))], ['devtools', 'link']);
    const ratios = Papa.parse(readFileSync(path.join(out, 'networks.csv'), 'utf8').trim(), { header: true }).data;
    assert.deepEqual(ratios.map((row) => [row.server, row.network, row.versus]), [['h1', 'link', 'devtools'], ['h2-node', 'link', 'devtools']]);
    assert.ok(ratios.every((row) => Number(row.ratio) > 0));
  }),
);
