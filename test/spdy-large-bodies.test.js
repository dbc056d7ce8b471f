// spdy writes large bodies in the payload's 1 MiB chunks (server/http/payload.js, spdySliceBytes):
// with 64 KiB writes, Chromium lost one response of 30 × 2 MiB to a reset stream in 1 to 5 of 16
// runs through the lab link; with 16 KiB writes, an 8 MiB body through the link (the page's
// calibration probe) was cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { invalidText } from '../common/stats/validity.js';
import { exitedCleanOrMismatched, reasonsBesidesMismatch } from './helpers/mismatch.js';

const repo = new URL('..', import.meta.url).pathname;

test('spdy: 16 runs of 30 × 2 MiB in Chromium through the lab link, every response whole', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-spdy-large-'));
  try {
    const args = ['runner/commands/experiments.js', '--servers', 'h2-spdy', '--requests', '30', '--size', '2', '--delay', '10', '--repeats', '16', '--network', 'link', '--out', out, '--quiet'];
    const r = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8', timeout: 230_000 });
    const results = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    const runs = results.experiments[0].points.flatMap((p) => p.result.runs);
    assert.equal(runs.length, 16);
    for (const run of runs) {
      assert.deepEqual(reasonsBesidesMismatch(run), [], `repeat ${run.repeat}: ${invalidText(run)}`);
      assert.equal(run.failures, 0, `repeat ${run.repeat}: ${run.failures} failed`);
    }
    assert.ok(exitedCleanOrMismatched(r.status, runs), r.stderr);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
