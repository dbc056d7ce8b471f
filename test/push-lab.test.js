// The push lab's page loads against real servers, with a client that accepts or refuses push.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cannotCarry } from '../common/setup/presets.js';
import { loadPage } from '../runner/push-load.js';
import { runScript } from './helpers/cli.js';
import { h2Ids, serverOf, startTestLab } from './helpers/lab.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab.close());

const load = (id, o) => loadPage({ origin: serverOf(lab, id).origin, ca: lab.certs.ca, assets: 3, sizeMiB: 0.05, delayMs: 200, ...o });

for (const id of h2Ids) {
  test(`${id}: push mode receives every asset as a pushed stream, before the HTML`, async () => {
    const r = await load(id, { mode: 'push' });
    assert.equal(r.assets, 3);
    assert.equal(r.pushed, 3);
    assert.equal(r.resets, 0);
    assert.ok(r.firstAssetMs < r.htmlMs, `first push at ${r.firstAssetMs} ms, HTML at ${r.htmlMs} ms`);
  });

  test(`${id}: a client that refuses push gets none, and the server counts all three refused`, async () => {
    const refusedBefore = serverOf(lab, id).tracker.snapshot().pushesRefused;
    const r = await load(id, { mode: 'push', acceptPush: false });
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(r.pushed, 0);
    assert.equal(serverOf(lab, id).tracker.snapshot().pushesRefused - refusedBefore, 3);
  });

  test(`${id}: with hints the assets are requested before the think time ends`, async () => {
    const r = await load(id, { mode: 'hints' });
    assert.ok(r.firstAssetMs < 150, `first asset request at ${r.firstAssetMs} ms of a 200 ms think time`);
    assert.ok(r.htmlMs >= 200);
  });

  test(`${id}: requested mode asks for the assets only after the HTML`, async () => {
    const r = await load(id, { mode: 'requested' });
    assert.ok(r.firstAssetMs >= r.htmlMs);
    assert.ok(r.allAssetsMs > r.htmlMs);
  });
}

test('npm run push-lab --json: one row per server and mode, exit 0', () => {
  const r = runScript('runner/commands/push-lab.js', ['--repeats', '2', '--think-ms', '50', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const rows = JSON.parse(r.stdout);
  assert.equal(rows.length, 6);
  for (const row of rows) {
    assert.ok(row.htmlMs.median >= 50 && row.allAssetsMs.p95 >= row.allAssetsMs.median);
    assert.equal(row.pushed, row.mode === 'push' ? 2 : 0);
    assert.equal(row.resets, 0);
  }
});

test('push-lab --preset fast-4g: rows name the preset, and an asset asked for after the HTML costs a round trip', () => {
  const r = runScript('runner/commands/push-lab.js', ['--server', 'h2-node', '--repeats', '1', '--think-ms', '0', '--size-kib', '10', '--preset', 'Fast 4G', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const rows = JSON.parse(r.stdout);
  assert.deepEqual(rows.map((row) => [row.mode, row.preset]), [['requested', 'fast-4g'], ['push', 'fast-4g'], ['hints', 'fast-4g']]);
  const requested = rows.find((row) => row.mode === 'requested');
  // Fast 4G's 165 ms round trip: the request for the asset goes out only once the HTML is in.
  assert.ok(requested.allAssetsMs.median - requested.htmlMs.median >= 160, JSON.stringify(requested));
  assert.equal(rows.find((row) => row.mode === 'push').pushed, 1);
});

test('push-lab: --preset offline is refused, since nothing would load through the link', () => {
  const r = runScript('runner/commands/push-lab.js', ['--preset', 'offline']);
  assert.equal(r.status, 2);
  assert.deepEqual(r.lines, [`h2lab push-lab: --preset: ${cannotCarry('link')}, got "offline"`]);
});

test('push-lab: the old --size (MiB) is gone: one line naming the options, exit 2', () => {
  const r = runScript('runner/commands/push-lab.js', ['--size', '0.01']);
  assert.equal(r.status, 2);
  assert.equal(r.lines.length, 1);
  assert.match(r.lines[0], /^h2lab push-lab: --size: unknown option; the options are .*--size-kib/);
});

test('push-lab: a bad option is one line and exit 2', () => {
  const r = runScript('runner/commands/push-lab.js', ['--server', 'h1']);
  assert.equal(r.status, 2);
  assert.deepEqual(r.lines, ['h2lab push-lab: --server: must be h2-spdy, h2-node or both, got "h1"']);
});
