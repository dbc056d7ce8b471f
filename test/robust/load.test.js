// Sustained load on each server: 100,000 small requests, HTTP/2 at 100 concurrent streams on
// each of 10 connections, HTTP/1.1 over 500 concurrent keep-alive connections. Every response
// must be a 200 of the right length over the right protocol: zero errors, no crash. Each server
// gets a fresh lab process (fixtures/lab-process.js), so its peak RSS is this load's alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MiB } from '../../common/setup/units.js';
import { ids, isH1 } from '../helpers/lab.js';
import { assertServesOption, expectedProtocol, h1Agent, h1Get, h2Get, h2Session, inPool, mb, spawnLab } from './fixtures/lab-child.js';

const total = 100_000;
const sizeMiB = 0.001; // 1,048 bytes: the load is requests, not bandwidth
const path = `/option?size=${sizeMiB}`;
const bodyBytes = Math.floor(sizeMiB * MiB);
const h2Connections = 10;
const streamsPerConnection = 100; // the servers' SETTINGS_MAX_CONCURRENT_STREAMS
const h1Connections = 500;

/** Sends `count` requests through `get` from `concurrency` loops; resolves the failures (at most 10 kept). */
async function load(id, get, count, concurrency) {
  const failures = [];
  let failed = 0;
  await inPool(count, concurrency, async () => {
    try {
      const res = await get(path);
      const problem =
        res.status !== 200 ? `status ${res.status}`
        : res.body.length !== bodyBytes ? `${res.body.length} bytes`
        : res.protocol !== expectedProtocol(id) ? `protocol ${res.protocol}`
        : res.headers['x-server'] !== id ? `x-server ${res.headers['x-server']}`
        : null;
      if (problem) throw new Error(problem);
    } catch (err) {
      failed += 1;
      if (failures.length < 10) failures.push(err.message);
    }
  });
  return { failed, failures };
}

async function run(lab, id) {
  const { origin } = lab.servers[id];
  if (isH1(id)) {
    const agent = h1Agent(lab.ca, h1Connections);
    try {
      return await load(id, (p) => h1Get(agent, origin, p), total, h1Connections);
    } finally {
      agent.destroy();
    }
  }
  const sessions = await Promise.all(Array.from({ length: h2Connections }, () => h2Session(origin, lab.ca)));
  try {
    const results = await Promise.all(
      sessions.map((session) => load(id, (p) => h2Get(session, p), total / h2Connections, streamsPerConnection)),
    );
    return { failed: results.reduce((n, r) => n + r.failed, 0), failures: results.flatMap((r) => r.failures).slice(0, 10) };
  } finally {
    for (const session of sessions) session.close();
  }
}

for (const id of ids) {
  const shape = isH1(id) ? `${h1Connections} keep-alive connections` : `${h2Connections} connections × ${streamsPerConnection} streams`;
  test(`${id}: ${total.toLocaleString('en')} requests over ${shape}, every one a correct 200`, { timeout: 240_000 }, async (t) => {
    const lab = await spawnLab();
    t.after(() => lab.close());
    const idle = await lab.measure();

    const started = performance.now();
    const { failed, failures } = await run(lab, id);
    const seconds = (performance.now() - started) / 1000;

    const after = await lab.measure();
    const stats = after.stats.find((s) => s.id === id);
    t.diagnostic(
      `${id}: ${total} requests in ${seconds.toFixed(1)} s = ${(total / seconds).toFixed(0)} req/s over ${stats.totalConnections} connections; ` +
        `server RSS idle ${mb(idle.rssBytes)} MB, peak ${mb(after.maxRssBytes)} MB, after (gc) ${mb(after.rssBytes)} MB; ${failed} failed`,
    );
    assert.deepEqual(failures, [], `${failed} of ${total} requests failed`);
    assert.equal(stats.requests, total, 'requests the server handled');
    assert.equal(stats.totalConnections, isH1(id) ? h1Connections : h2Connections, 'connections: none dropped and reopened');
    assert.ok(lab.alive(), 'the lab process is still running');
    await assertServesOption(lab);
    assert.equal(lab.stderr(), '', 'the servers logged no errors');
  });
}
