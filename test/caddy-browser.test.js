// The Caddy family end to end in a real Chromium (QUIC forced for the HTTP/3 origin): every
// request over its server's protocol, nothing failed, and as many connections as the protocol
// should need; the page's verdicts include HTTP/3 against the family's HTTP/2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { invalidText } from '../common/stats/validity.js';
import { presetById } from '../common/setup/presets.js';
import { pathBounds } from '../common/setup/path-limits.js';
import { presetConditions } from '../server/path/conditions.js';
import { caddyIds, startTestLab } from './helpers/lab.js';
import { caddyMissing } from './helpers/caddy.js';

let lab;
let browser;
let page;

before(async () => {
  if (caddyMissing) return;
  lab = await startTestLab({ noCaddy: false });
  browser = await launchBrowser(lab, { viewport: { width: 1280, height: 900 } });
  page = await browser.context.newPage();
  await page.goto(lab.uiOrigin);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
});

after(async () => {
  await browser?.close();
  await lab?.close();
  // Twice in CI this file's process spun at 100 % CPU after its last test, never exiting: gdb put
  // it in Node's exit cleanup (Environment::CleanupHandles looping on uv_run), with a TCP handle and
  // a request that never completed left behind (node issue 58252: an HTTP/2 stream destroyed while
  // writing). process.exit() skips that cleanup; by then every result has been reported (stdout is
  // a pipe, written synchronously), and the runner judges the file by those results.
  setTimeout(() => process.exit(), exitAfterMs);
});

const exitAfterMs = 3_000;

test('100 × 0.1 MiB on each Caddy server: its protocol on every request, 0 failures, one connection for HTTP/2 and HTTP/3', { skip: caddyMissing, timeout: 180_000 }, async () => {
  const result = await page.evaluate((servers) => window.h2lab.run({ requests: 100, sizeMiB: 0.1, delayMs: 0, repeats: 2, servers }), caddyIds);
  assert.equal(result.stopped, false);
  const expected = { 'caddy-h1': 'http/1.1', 'caddy-h2': 'h2', 'caddy-h3': 'h3' };
  for (const run of result.runs) {
    assert.equal(run.valid, true, `${run.server}: ${invalidText(run)}`);
    assert.equal(run.failures, 0);
    assert.ok(run.requests.every((r) => r.protocol === expected[run.server]), `${run.server}: ${[...new Set(run.requests.map((r) => r.protocol))]}`);
    if (run.server === 'caddy-h1') assert.ok(run.connections >= 2 && run.connections <= 6, `caddy-h1: ${run.connections} connections`);
    else assert.equal(run.connections, 1, `${run.server}: ${run.connections} connections`);
    assert.equal(run.serverStats.connectionsOpened, run.connections, `${run.server}: the lab counted ${run.serverStats.connectionsOpened}`);
  }
  const pairs = result.comparisons.map((c) => `${c.server}/${c.baseline}`);
  assert.deepEqual(pairs, ['caddy-h2/caddy-h1', 'caddy-h3/caddy-h1', 'caddy-h3/caddy-h2']);
  const software = result.environment.servers.map((s) => s.software);
  assert.ok(software.every((s) => /^Caddy \d+\.\d+\.\d+ → Node v/.test(s)), software.join(', '));
});

test('through the lab link at Fast 4G, HTTP/3 pays its handshake: the first response of a cold run at least 2 round trips in, HTTP/2 at least 3', { skip: caddyMissing, timeout: 180_000 }, async () => {
  const rttMs = presetById('fast-4g').latencyMs;
  const result = await page.evaluate(
    () => window.h2lab.run({ requests: 10, sizeMiB: 0.05, delayMs: 0, repeats: 2, servers: ['caddy-h2', 'caddy-h3'], preset: 'fast-4g', network: 'link' }),
  );
  assert.deepEqual([result.environment.network.id, result.environment.network.conditions.rttMs], ['link', rttMs]);
  for (const run of result.runs) {
    assert.equal(run.valid, true, `${run.server}: ${invalidText(run)}`);
    const firstByteMs = Math.min(...run.requests.map((r) => r.ttfbMs));
    // TCP + TLS 1.3 + the request for HTTP/2; QUIC's handshake + the request for HTTP/3 (no 0-RTT:
    // a cold run starts a new Caddy, which cannot resume the previous one's sessions).
    const roundTrips = run.server === 'caddy-h3' ? 2 : 3;
    assert.ok(firstByteMs >= roundTrips * rttMs * 0.95, `${run.server}: first byte after ${firstByteMs} ms, under ${roundTrips} × ${rttMs} ms`);
    assert.ok(run.totalMs >= result.floorMsByServer[run.server], `${run.server}: ${run.totalMs} ms under the floor`);
  }
});

test("at the lab link's largest round trip, with 3G's rates, a cold request through every twin port completes in Chromium, HTTP/3 included", { skip: caddyMissing, timeout: 120_000 }, async () => {
  lab.networks.link.set({ ...presetConditions('3g'), preset: null, rttMs: pathBounds.maxRttMs });
  // A browser of its own, so that no connection from the tests above is warm.
  const cold = await launchBrowser(lab);
  try {
    const coldPage = await cold.context.newPage();
    await coldPage.goto(lab.uiOrigin);
    const servers = lab.describe().servers.filter((s) => s.available);
    const results = await coldPage.evaluate((targets) => Promise.all(targets.map(async ({ id, linkOrigin }) => {
      const url = `${linkOrigin}/option?size=0`;
      try {
        const res = await fetch(url, { cache: 'no-store' });
        await res.arrayBuffer();
        // The Resource Timing entry comes in a task of its own, not always before the body's promise
        // settles (once in a CI run: none yet for h2-node's empty body): waited for, up to a second.
        let entry;
        for (let i = 0; i < 50 && !(entry = performance.getEntriesByName(url).at(-1)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        return { id, status: res.status, protocol: entry?.nextHopProtocol ?? 'no Resource Timing entry' };
      } catch (err) {
        return { id, status: String(err) };
      }
    })), servers.map(({ id, linkOrigin }) => ({ id, linkOrigin })));
    assert.deepEqual(results, servers.map((s) => ({ id: s.id, status: 200, protocol: s.protocol })));
  } finally {
    await cold.close();
    lab.networks.link.set(presetConditions('no-throttling'));
  }
});
