// `npm run experiments -- --network packet` as a person runs it: one line and exit 2 where the
// packet network cannot run; a run whose emulator dies fails with that reason; and nothing the
// run started (launcher, lab, emulator, Caddy, Chromium) outlives it, after a failure or Ctrl-C.
// Run under the browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { exitOf, repoRoot, runScript, startScript, waitFor } from './helpers/cli.js';
import { markEnv, markedWith as has, newMark, untilGone } from './helpers/processes.js';
import { caddyMissing } from './helpers/caddy.js';
import { readPcapng } from '../server/packet/pcapng.js';
import { dropComments } from '../server/packet/capture.js';
import { runConnections } from '../common/report/connections.js';
import { browserSideAddress } from '../server/packet/sides.js';
import { tsharkMissing } from './helpers/tshark.js';
import { runLossSeed } from '../common/setup/seeds.js';

const skip = packetNetworkMissing() ?? false;
const script = 'runner/commands/experiments.js';
const args = (out) => ['--network', 'packet', '--servers', 'h2-node', '--requests', '1', '--size', '1', '--delay', '0', '--preset', 'fast-4g', '--repeats', '20', '--quiet', '--out', out];

function markedRun(runArgs) {
  const mark = newMark();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-packet-test-'));
  return { mark, dir, run: startScript(script, runArgs(dir), { env: markEnv(mark) }) };
}

test('where the packet network cannot run, one line names what is missing, exit 2', () => {
  const r = runScript(script, ['--network', 'packet'], { env: { PATH: '/nonexistent' } });
  assert.equal(r.status, 2);
  assert.deepEqual(r.lines, ['h2lab experiments: --network packet: the packet network needs python3 (its launcher uses only the standard library): apt-get install -y python3']);
});

test('the emulator dying mid-run fails the run with that reason, and nothing is left behind', { skip }, async () => {
  // Not quiet: the progress bar's first line says the page is loaded and the runs have begun.
  const { mark, dir, run } = markedRun((out) => args(out).filter((a) => a !== '--quiet'));
  try {
    // Mid-run: Chromium is on the browser side and fetching through the emulator.
    await waitFor(run, () => has(mark, 'server/packet/emulator.js') && /runs/.test(run.stderr), 40_000);
    await new Promise((r) => setTimeout(r, 3_000));
    process.kill(has(mark, 'server/packet/emulator.js').pid, 'SIGKILL');
    const { code } = await exitOf(run, 60_000);
    assert.equal(code, 1, run.stderr);
    assert.match(run.stderr, /h2lab experiments: stopped after \d+ of 20 runs \(the packet network's emulator exited \(signal SIGKILL\)\)/);
    assert.deepEqual(await untilGone(mark), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C ends the run with 130 and takes every process of it along', { skip }, async () => {
  const mark = newMark();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-packet-test-'));
  // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
  const child = spawn(process.execPath, [script, ...args(dir)], { cwd: repoRoot, detached: true, stdio: 'ignore', env: { ...process.env, ...markEnv(mark) } });
  try {
    const deadline = Date.now() + 30_000;
    while (!has(mark, '--host-resolver-rules') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(has(mark, 'server/packet/emulator.js'), 'the run started on the packet network');
    process.kill(-child.pid, 'SIGINT');
    const [code] = await new Promise((resolve) => child.on('exit', (...a) => resolve(a)));
    assert.equal(code, 130);
    assert.deepEqual(await untilGone(mark), []);
  } finally {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
    rmSync(dir, { recursive: true, force: true });
  }
});


test('--capture-whole --netlog: per run, pcapng files and the TLS keys tshark decrypts to every request, drops marked; the NetLog of the session', { skip: skip || tsharkMissing || false, timeout: 240_000 }, async () => {
  const servers = caddyMissing ? ['h2-node'] : ['h2-node', 'caddy-h3'];
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-capture-test-'));
  try {
    const runArgs = ['--network', 'packet', '--preset', 'fast-4g', '--loss', '2', '--servers', servers.join(','), '--requests', '3', '--size', '0.2', '--delay', '0',
      '--connections', 'cold', '--repeats', '1', '--capture-whole', '--netlog', '--quiet', '--json', '--out', dir];
    const r = runScript(script, runArgs, { timeout: 220_000 });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
    const netLog = JSON.parse(readFileSync(path.join(dir, results.environment.netLog), 'utf8'));
    assert.ok(netLog.constants && netLog.events.length > 0, 'a NetLog with its constants and events');
    for (const run of results.experiments[0].points[0].result.runs) {
      // A lossy path: each run's losses started from its repeat's seed, of the base seed drawn for
      // the command (recorded in the settings and the environment) and the loss model.
      const baseSeed = results.experiments[0].points[0].result.settings.lossSeed;
      assert.ok(Number.isInteger(baseSeed) && baseSeed === results.environment.lossSeed, `base seed ${baseSeed}`);
      assert.equal(run.lossSeed, runLossSeed(baseSeed, run.repeat, { loss: 2, burst: null }));
      const { files, packets, whole } = run.capture;
      assert.equal(whole, true);
      const file = (name) => path.join(dir, name);
      const sent = readPcapng(readFileSync(file(files.sent)));
      assert.equal(sent.packets.length, packets.sent);
      const marked = sent.packets.filter((p) => p.comment === dropComments.loss).length;
      assert.equal(marked, packets.droppedByLoss);
      assert.ok(marked > 0, `${run.server}: 2 % loss dropped some of ${packets.sent} packets`);
      // The browser's requests, decrypted with the run's keys: a HEADERS frame each. HTTP/2's name
      // the request's path; tshark 4.0 does not decode QPACK, so HTTP/3's are told by their stream.
      const tshark = (...options) => execFileSync('tshark', ['-r', file(files.sent), '-o', `tls.keylog_file:${file(files.keys)}`, ...options], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      const requests =
        run.protocol === 'h3'
          ? new Set(tshark('-Y', `http3.frame_type == 1 && ip.src == ${browserSideAddress}`, '-T', 'fields', '-e', '_ws.col.Info').match(/STREAM\(\d+\), HEADERS/g))
          : new Set(tshark('-Y', 'http2.type == 1', '-V').match(/i=\d+/g));
      assert.equal(requests.size, 3, `${run.server} (${run.protocol}): the requests tshark decrypted: ${[...requests].join(', ')}`);
      // Its per-connection records: every request on a connection the capture saw, and the
      // resends counted as tshark counts them (TCP), the losses as the drops' comments say.
      const rows = runConnections(run);
      assert.equal(rows.reduce((n, row) => n + row.requests.length, 0), 3, `${run.server}: each request found its connection by its client port`);
      const records = run.capture.connections.records;
      assert.equal(records.reduce((n, c) => n + c.dropped.loss.down + c.dropped.loss.up, 0), marked);
      if (run.protocol !== 'h3') {
        const ours = records.reduce((n, c) => n + c.retransmissions.down + c.retransmissions.up, 0);
        const theirs = tshark('-Y', 'tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.out_of_order', '-T', 'fields', '-e', 'frame.number').trim().split('\n').filter(Boolean).length;
        assert.ok(Math.abs(ours - theirs) <= Math.max(1, theirs * 0.1), `${run.server}: ${ours} resends counted, tshark flags ${theirs}`);
      }
    }
    const connectionsCsv = readFileSync(path.join(dir, 'connections.csv'), 'utf8');
    assert.match(connectionsCsv, /^experiment,condition,run_id,/);
    assert.match(readFileSync(path.join(dir, 'summary.md'), 'utf8'), /Connections, from each run's packet capture/);
    // The per-connection chart, each server's median run, as a PNG file and in the report.
    const png = readFileSync(path.join(dir, 'presets-connections.png'));
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert.ok(width === 2200 && height > 2 * 300 && png.length > 20_000, `connections PNG ${width} × ${height} px, ${png.length} bytes`);
    assert.match(readFileSync(path.join(dir, 'report.html'), 'utf8'), /<figcaption>[^<]*connections \(each server's median run\)<\/figcaption>/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
