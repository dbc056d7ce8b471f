// One interface per network (issue 42): a fourth network joins in one file and a registry entry
// (test/fixtures/fake-network.js), and runs through the page's path and the runner's as the lab's
// own do: the page learns it from the lab, sets it for a run and records it as the run's network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import './fixtures/fake-network.js';
import { networkOf } from '../common/setup/networks.js';
import { launchBrowser, openLabPage } from '../runner/browsers/chromium.js';
import { startTestLab } from './helpers/lab.js';
import { runScript } from './helpers/cli.js';

const run = { requests: 5, sizeMiB: 0.01, delayMs: 0, repeats: 2, servers: ['h1', 'h2-node'], preset: 'fast-4g', network: 'fake' };

test('a network registered in one file is the lab\'s, its API\'s and, through the page, a run\'s', { timeout: 120_000 }, async () => {
  const lab = await startTestLab();
  let browser;
  try {
    assert.equal(networkOf('fake').id, 'fake');
    assert.ok(lab.describe().networkEntries?.some((n) => n.id === 'fake'), 'the lab describes it to its page');
    browser = await launchBrowser(lab);
    const page = await openLabPage(browser.context, lab.uiOrigin, { networks: ['fake'], servers: run.servers });
    assert.ok(await page.evaluate(() => [...document.querySelectorAll('#settings select[name=network] option')].some((o) => o.value === 'fake')), 'the page offers it');
    const result = await page.evaluate((settings) => window.h2lab.run(settings), run);
    assert.equal(result.environment.network.id, 'fake');
    assert.equal(result.environment.network.conditions.preset, 'fast-4g', 'the page set it to the run\'s preset');
    assert.deepEqual(result.environment.network.counters, { sets: 0 }, 'its own counters, taken across the run');
    assert.equal(result.environment.presetAppliedBy, 'fake');
    assert.equal(result.runs.length, 4);
    assert.ok(result.runs.every((r) => r.valid), JSON.stringify(result.runs.map((r) => r.invalidReasons)));
    assert.equal(lab.networks.fake.get().preset, 'no-throttling', 'put back after the run');
  } finally {
    await browser?.close();
    await lab.close();
  }
});

test('the runner takes it as --network, with the page, when its process registers it', { timeout: 180_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-fake-network-'));
  try {
    // No throttling: the runner holds a run whose network does not match its preset invalid, and this one shapes nothing.
    const r = runScript('runner/commands/experiments.js', ['--network', 'fake', '--preset', 'no-throttling', '--servers', 'h1,h2-node', '--requests', '5', '--size', '0.01', '--delay', '0', '--repeats', '2', '--out', out, '--quiet'], {
      nodeArgs: ['--import', './test/fixtures/fake-network.js'],
      timeout: 170_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const { experiments } = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
    const { environment } = experiments[0].points[0].result;
    assert.deepEqual([environment.network.id, environment.network.conditions.preset, environment.presetAppliedBy], ['fake', 'no-throttling', 'fake']);
    assert.match(readFileSync(path.join(out, 'summary.md'), 'utf8'), /## 5 × 0\.01 MiB · delay 0 ms · fake network/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
