// 10,000 requests aborted mid-body on each server, then a check that nothing stayed behind:
// handles, exchanges, connections, heap and RSS return to the warm baseline, and the server
// still answers. The lab runs in a child process (fixtures/lab-process.js) so the figures are
// the servers' own, not the load generator's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http2 from 'node:http2';
import { MiB } from '../../common/setup/units.js';
import { ids, isH1 } from '../helpers/lab.js';
import { assertServesOption, h1Agent, h2Session, inPool, mb, settle, spawnLab } from './fixtures/lab-child.js';

const total = 10_000;
// Enough aborts at full concurrency for the allocators to reach the storm's high-water mark,
// so that the baseline after it is the warm steady state a leak would grow from.
const warmUp = 2_000;
// A quarter MiB is far more than the first DATA frame or TLS record, so the client always cuts
// it mid-body; over HTTP/2, 100 such streams (25 MiB) overrun one 15 MiB connection window, so
// most are still being sent when the cancel arrives. Larger bodies only cost encryption time.
const sizeMiB = 0.25;
const bodyBytes = sizeMiB * MiB;
// Every other request waits a millisecond first, so the handler's timer and AbortSignal path
// is part of the storm too.
const pathOf = (i) => `/option?size=${sizeMiB}&delay=${i % 2}`;

// HTTP/2: 100 streams at once per session (the servers' SETTINGS_MAX_CONCURRENT_STREAMS), four
// sessions at a time. A session is retired after 500 cancels: both servers (nghttp2 in
// node:http2, the hardening in spdy) close a connection that resets more than 1,000 streams in
// a burst, the rapid-reset defence; this storm measures leaks, not that limit.
const h2Parallel = 4;
const streamsPerSession = 100;
const cancelsPerSession = 500;
// HTTP/1.1: each abort costs its connection, so this many handshakes are under way at once.
const h1Parallel = 300;

/** One HTTP/2 request cancelled (RST_STREAM CANCEL) on its first DATA frame; resolves { status, firstBytes }. */
function h2Abort(session, path) {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path }, { endStream: true });
    let status;
    let firstBytes = 0;
    stream.on('response', (h) => (status = h[':status']));
    stream.once('data', (chunk) => {
      firstBytes = chunk.length;
      stream.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.on('error', reject);
    stream.on('close', () => resolve({ status, firstBytes }));
  });
}

/** One HTTP/1.1 request whose socket is destroyed on the first body bytes; resolves { status, firstBytes } once it is gone. */
function h1Abort(agent, origin, path) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    let status;
    let firstBytes = 0;
    const req = https.get({ agent, hostname, port, path }, (res) => {
      status = res.statusCode;
      res.on('error', () => {}); // the 'aborted' this very client causes
      res.once('data', (chunk) => {
        firstBytes = chunk.length;
        req.destroy();
      });
    });
    req.on('error', (err) => firstBytes === 0 && reject(err));
    req.on('close', () => resolve({ status, firstBytes }));
  });
}

/** Runs `count` aborted requests against one server; resolves the outcomes that were not a mid-body abort. */
async function storm(lab, id, count) {
  const { origin } = lab.servers[id];
  const wrong = [];
  const check = (i, { status, firstBytes }) => {
    if (status !== 200 || firstBytes === 0 || firstBytes >= bodyBytes) wrong.push({ i, status, firstBytes });
  };
  if (isH1(id)) {
    const agent = h1Agent(lab.ca, h1Parallel);
    await inPool(count, h1Parallel, async (i) => check(i, await h1Abort(agent, origin, pathOf(i))));
    agent.destroy();
    return wrong;
  }
  const sessions = Math.ceil(count / cancelsPerSession);
  await inPool(sessions, h2Parallel, async (s) => {
    const session = await h2Session(origin, lab.ca);
    const first = s * cancelsPerSession;
    const n = Math.min(cancelsPerSession, count - first);
    await inPool(n, streamsPerSession, async (k) => check(first + k, await h2Abort(session, pathOf(first + k))));
    session.close();
  });
  return wrong;
}

const sum = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);
const serverStats = (m, id) => m.stats.find((s) => s.id === id);
// No connection, exchange or socket open: the tracker forgets a connection on its 'close', a
// moment before the TCP handle itself is released.
const quiet = (m, id) =>
  serverStats(m, id).openConnections === 0 && sum(m.openExchanges) === 0 && (m.activeResources.TCPSocketWrap ?? 0) === 0;

// Handle types may differ from the baseline by at most this many, each: a pooled timer or an
// in-flight DNS/fs request of Node's own can come and go; a leak of the storm's is thousands.
const handleSlack = 2;
// By default glibc keeps freed memory and raises its trim threshold after large frees: RSS
// after a storm then wandered between +30 and +115 MB over a cold start from one storm to the
// next, with no trend over 100,000 aborts. A fixed threshold makes it hand freed pages back,
// so RSS follows live memory (it then stayed within ±3 MB from storm to storm).
const labEnv = { MALLOC_TRIM_THRESHOLD_: String(128 * 1024) };
// What remains is V8 keeping the heap it grew into (heapTotal rose ~18 MB in a storm) and
// allocator slack; 50 MB covers that, while a leak of 5 KB per aborted request (a socket or
// stream and its buffers) would exceed it.
const rssSlackBytes = 50e6;
// A leak of live JS objects shows up here first: 1 KB per aborted request is 10 MB.
const heapSlackBytes = 10e6;

const handlesWithin = (after, before) =>
  Object.entries(after).every(([type, n]) => n <= (before[type] ?? 0) + handleSlack);

for (const id of ids) {
  test(`${id}: ${total.toLocaleString('en')} requests aborted mid-body leave nothing behind`, { timeout: 240_000 }, async (t) => {
    const lab = await spawnLab({ env: labEnv });
    t.after(() => lab.close());

    // Warm-up: connections, JIT, the payload view, TLS session caches; then a quiet baseline.
    assert.deepEqual(await storm(lab, id, warmUp), []);
    const baseline = await settle(lab.measure, (m) => quiet(m, id));
    assert.ok(quiet(baseline, id), `quiet before the storm: ${JSON.stringify(baseline.openExchanges)}`);

    const started = performance.now();
    const wrong = await storm(lab, id, total);
    const seconds = (performance.now() - started) / 1000;
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} requests were not aborted mid-body`);

    // Freed memory goes back to the system lazily (glibc trims its heap top on later frees), so
    // the figures are polled until they are back within bounds or the deadline passes.
    const afterStorm = await settle(
      lab.measure,
      (m) => quiet(m, id) && handlesWithin(m.activeResources, baseline.activeResources) && m.rssBytes <= baseline.rssBytes + rssSlackBytes,
    );
    const quietMs = performance.now() - started - seconds * 1000;
    const before = serverStats(baseline, id);
    const now = serverStats(afterStorm, id);
    t.diagnostic(
      `${id}: ${total} aborts in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)}/s), quiet ${(quietMs / 1000).toFixed(1)} s later; ` +
        `RSS ${mb(baseline.rssBytes)} → ${mb(afterStorm.rssBytes)} MB (peak ${mb(afterStorm.maxRssBytes)}), ` +
        `heap used ${mb(baseline.heapUsedBytes)} → ${mb(afterStorm.heapUsedBytes)} MB of ${mb(baseline.heapTotalBytes)} → ${mb(afterStorm.heapTotalBytes)}; ` +
        `handles ${JSON.stringify(baseline.activeResources)} → ${JSON.stringify(afterStorm.activeResources)}; ` +
        `connections ${now.totalConnections - before.totalConnections}; ` +
        `bodies the server counted as sent in full: ${Math.round((now.bytesSent - before.bytesSent) / bodyBytes)}`,
    );

    assert.equal(now.requests - before.requests, total, 'every request reached the handler');
    assert.equal(now.openConnections, 0, 'open connections');
    assert.deepEqual(afterStorm.openExchanges, baseline.openExchanges, 'exchanges still open');
    assert.ok(
      handlesWithin(afterStorm.activeResources, baseline.activeResources),
      `handles ${JSON.stringify(afterStorm.activeResources)} vs baseline ${JSON.stringify(baseline.activeResources)} (± ${handleSlack})`,
    );
    assert.ok(afterStorm.heapUsedBytes <= baseline.heapUsedBytes + heapSlackBytes, `heap used ${mb(afterStorm.heapUsedBytes)} MB`);
    assert.ok(afterStorm.rssBytes <= baseline.rssBytes + rssSlackBytes, `RSS ${mb(afterStorm.rssBytes)} MB`);

    await assertServesOption(lab);
    assert.ok(lab.alive(), 'the lab process is still running');
    assert.equal(lab.stderr(), '', 'the servers logged no errors');
  });
}
