// A lab a newcomer cannot get stuck in (issue 24, item 1), in the browser a newcomer has: a
// Chromium that trusts the lab's key but was not started with QUIC forced (no `npm run chrome`).
// Nothing the page found unusable runs, a later check offers a server again once it is back, a
// request that stops making progress fails with reason `timeout` instead of holding the run,
// and the runner refuses such a browser's HTTP/3 by name, with the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { configKeyOf, serverById } from '../common/setup/servers.js';
import { limits } from '../common/setup/settings.js';
import { MiB } from '../common/setup/units.js';
import { invalidText } from '../common/stats/validity.js';
import { caddyMissing } from './helpers/caddy.js';
import { startChromium } from './helpers/chromium.js';
import { exitOf, ownLines, startScript } from './helpers/cli.js';
import { startTestLab } from './helpers/lab.js';

let lab;
let started; // the newcomer's Chromium
let browser; // playwright's connection to it
let page;

before(async () => {
  if (caddyMissing) return;
  lab = await startTestLab({ noCaddy: false });
  started = await startChromium([`--ignore-certificate-errors-spki-list=${lab.certs.spkiSha256}`]);
  browser = await chromium.connectOverCDP(started.endpoint);
  page = await browser.contexts()[0].newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
});

after(async () => {
  await browser?.close();
  await started?.stop();
  await lab?.close();
});

const progressText = () => page.locator('#progress-text').textContent();
const box = (id) => page.locator(`#settings input[name=servers][value=${id}]`);

/** Clicks "Check again" and waits for the check to end (the button is disabled while it runs). */
async function checkAgain() {
  const button = page.getByRole('button', { name: 'Check again' });
  await button.click();
  await page.waitForFunction(() => !document.querySelector('#recheck').disabled, null, { timeout: 60_000 });
  assert.match(await progressText(), /^Checked the servers/);
}

// The defaults' 50 runs took 55–68 s on this 2-core machine (the same before and after the changes
// of 2026-11-27, on a loaded machine): the wait guards against a run left waiting, not the speed.
test("the page's defaults in a Chromium without QUIC forced: HTTP/3 unticked with its reason, and Run finishes with no run left waiting", { skip: caddyMissing, timeout: 240_000 }, async () => {
  await page.goto(lab.uiOrigin);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined, null, { timeout: 60_000 });
  assert.equal(await box('caddy-h3').isChecked(), false);
  assert.equal(await box('caddy-h3').isDisabled(), true);
  assert.match(await page.locator('#why-caddy-h3').textContent(), /^no HTTP\/3 answer \(failed\): this Chrome was not started with QUIC forced for the lab$/);
  assert.equal(await page.locator('#why-caddy-h3').isVisible(), true, 'the reason is shown beside the box');
  const usable = lab.describe().servers.map((s) => s.id).filter((id) => id !== 'caddy-h3');
  for (const id of usable) assert.equal(await box(id).isChecked(), true, `${id} stays ticked`);
  await page.screenshot({ path: path.join(tmpdir(), 'h2lab-newcomer-no-quic.png'), fullPage: true });

  const clicked = performance.now();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 180_000 });
  console.log(`the defaults' experiment took ${((performance.now() - clicked) / 1000).toFixed(1)} s`);
  const result = await page.evaluate(() => window.h2lab.last);
  const { repeats, requests } = result.settings;
  assert.match(await progressText(), new RegExp(`^Done: ${usable.length * repeats} runs, 0 failed requests, 0 invalid runs`));
  assert.deepEqual(result.settings.servers, usable);
  assert.equal(result.stopped, false);
  for (const run of result.runs) {
    assert.equal(run.requests.length, requests);
    assert.ok(run.requests.every((r) => r.endMs !== null && r.error === null), `${run.server} repeat ${run.repeat}: ${invalidText(run)}`);
  }
});

test('the runner refuses --servers caddy-h3 in such a browser: exit 2, one line naming the reason', { skip: caddyMissing, timeout: 120_000 }, async () => {
  // Not spawnSync: this process's own connection to the browser must go on answering it (the
  // browser holds each new tab until every connected client has let it run).
  const run = startScript('runner/commands/experiments.js', ['--browser-url', started.endpoint, '--servers', 'caddy-h3', '--requests', '1', '--repeats', '1', '--quiet']);
  const { code } = await exitOf(run, 110_000);
  assert.equal(code, 2, run.stderr);
  assert.deepEqual(ownLines(run.stderr), ['h2lab experiments: --servers: caddy-h3 cannot run here: no HTTP/3 answer (failed): this Chrome was not started with QUIC forced for the lab']);
});

/** What `npm start` would be given to come back on the same ports: the UI's, every server's and every twin's. */
function samePorts(running) {
  const ports = running.describe().servers.flatMap((s) => [
    [configKeyOf(serverById(s.id).portFlag), s.port],
    [configKeyOf(serverById(s.id).linkPortFlag), s.linkPort],
  ]);
  return { uiPort: Number(new URL(running.uiOrigin).port), ...Object.fromEntries(ports) };
}

test('a server the lab reports gone is disabled with its reason; once the lab is back with Caddy, Check again offers it again, ticked as before', { skip: caddyMissing, timeout: 180_000 }, async () => {
  const ports = samePorts(lab);
  // npm start again, first without Caddy, then with it: the page stays open throughout.
  await lab.close();
  lab = null;
  lab = await startTestLab({ ...ports, noCaddy: true });
  await checkAgain();
  for (const id of ['caddy-h1', 'caddy-h2']) {
    assert.equal(await box(id).isDisabled(), true, `${id} disabled`);
    assert.equal(await box(id).isChecked(), false, `${id} unticked`);
  }
  // One reason after the three Caddy servers it applies to.
  assert.equal(await page.locator('#why-caddy-h2').isVisible(), false);
  assert.match(await page.locator('#why-caddy-h3').textContent(), /left out with --no-caddy/);

  await lab.close();
  lab = null;
  lab = await startTestLab({ ...ports, noCaddy: false });
  await checkAgain();
  for (const id of ['caddy-h1', 'caddy-h2']) {
    assert.equal(await box(id).isDisabled(), false, `${id} enabled again`);
    assert.equal(await box(id).isChecked(), true, `${id} ticked again, as the defaults want`);
  }
  assert.equal(await box('caddy-h3').isDisabled(), true, 'HTTP/3 still needs QUIC forced');
  assert.match(await page.locator('#why-caddy-h3').textContent(), /QUIC forced/);
});

// The HTTP/1.1 server stops one response half-way: headers and half the body, then nothing.
const cutMark = /-h1-1&i=1$/; // request 1 of h1's first repeat (common/setup/urls.js)
/** @param {import('../server/http/handler.js').Handler} shared */
function cutOneResponse(id, shared) {
  if (id !== 'h1') return shared;
  return {
    ...shared,
    handle(ex) {
      if (cutMark.test(ex.target)) {
        const respond = ex.respond;
        ex.respond = (status, headers, body) => {
          const whole = Buffer.concat([body].flat());
          return respond(status, headers, whole.subarray(0, whole.length / 2)); // content-length still says the whole
        };
      }
      return shared.handle(ex);
    },
  };
}

test('a response that stops half-way fails with reason timeout once the run makes no progress, its run is invalid, and the experiment goes on: bodies read whole and piece by piece', { skip: caddyMissing, timeout: 300_000 }, async () => {
  const cutting = await startTestLab({}, { handlerFor: cutOneResponse });
  const pages = [];
  try {
    // Two experiments at once, each in its own tab, warm (a cold run's reset would cut the other's
    // connections): direct, whose bodies are read whole, and through the lab link at Regular 2G,
    // slow enough for bodies to be read piece by piece (limits.stall.wholeBodiesMs). h1 runs
    // first, so h2-node's run shows the experiment going on.
    const base = { requests: 4, sizeMiB: 0.05, delayMs: 0, repeats: 1, servers: ['h1', 'h2-node'], connections: 'warm' };
    const runs = [base, { ...base, network: 'link', preset: 'regular-2g' }].map(async (settings) => {
      const tab = await browser.contexts()[0].newPage();
      pages.push(tab);
      await tab.goto(cutting.uiOrigin);
      await tab.waitForFunction(() => window.h2lab?.ready !== undefined, null, { timeout: 60_000 });
      return tab.evaluate((s) => window.h2lab.run(s), settings);
    });
    const [direct, viaLink] = await Promise.all(runs);
    const inFlightMs = (r) => (r.settings.requests * r.settings.sizeMiB * MiB * 1000) / r.environment.calibration.downloadBps;
    assert.ok(inFlightMs(direct) < limits.stall.wholeBodiesMs, `direct: ${inFlightMs(direct)} ms in flight, read whole`);
    assert.ok(inFlightMs(viaLink) > limits.stall.wholeBodiesMs, `link: ${inFlightMs(viaLink)} ms in flight, read piece by piece`);
    for (const result of [direct, viaLink]) {
      const where = result.settings.network;
      assert.equal(result.stopped, false, `${where}: ${result.stopReason}`);
      assert.deepEqual(result.runs.map((r) => r.server), ['h1', 'h2-node'], `${where}: every run of the experiment ran`);
      for (const run of result.runs) {
        const cut = run.server === 'h1' && run.repeat === 1;
        assert.equal(run.valid, !cut, `${where} · ${run.server} repeat ${run.repeat}: ${invalidText(run)}`);
        assert.deepEqual(run.requests.map((r) => r.error), run.requests.map((r) => (cut && r.i === 1 ? 'timeout' : null)), `${where} · ${run.server} repeat ${run.repeat}`);
      }
    }
  } finally {
    for (const tab of pages) await tab.close().catch(() => {});
    await cutting.close();
  }
});
