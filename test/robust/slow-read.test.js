// Slow readers and stuck connections on all three servers. A client that asks for large bodies
// and never reads them is cut once its writes make no progress for sendTimeoutMs (nginx's
// send_timeout), holding a bounded amount of memory meanwhile; one that reads slowly, sits idle
// or waits for a delayed response is not. A client that stops reading and then disconnects
// leaves nothing behind (node:http2 on Node 20 kept such sessions and every byte queued for them
// for good, nodejs/node#42710), and /api/reset closes every connection it counts, stalled or not.
// The lab runs in a child process (fixtures/lab-process.js), so its RSS is the servers' own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { once } from 'node:events';
import { MiB } from '../../common/setup/units.js';
import { ids, isH1 } from '../helpers/lab.js';
import { assertServesOption, mb, rssPeak, settle, spawnLab } from './fixtures/lab-child.js';
import { PREFACE, frame, getRequest, settings, type } from './raw.js';

// Short, so a cut comes within seconds; the servers apply it as they apply config.js's 60 s.
const sendTimeoutMs = 2_000;
// The servers look every timeoutCheckIntervalMs (1 s); 3 s more for a loaded two-core machine.
const cutWithinMs = sendTimeoutMs + 1_000 + 3_000;
// glibc hands freed pages back, so RSS follows live memory (abort-storm.test.js says why).
const mallocEnv = { MALLOC_TRIM_THRESHOLD_: String(128 * 1024) };
const limitsEnv = (limits) => ({ ...mallocEnv, H2LAB_TEST_TRANSPORT_LIMITS: JSON.stringify(limits) });

// What each hostile client asks for: /option?size=64 (the largest body) on 50 HTTP/1.1
// connections, or on 100 streams (the servers' limit) of each of 10 HTTP/2 connections, with
// HTTP/2 windows opened as far as they go, so that only TCP holds the servers back.
const sizeMiB = 64;
const h1Connections = 50;
const h2Connections = 10;
const h2Streams = 100;
const connectionsOf = (id) => (isH1(id) ? h1Connections : h2Connections);

// Memory a stalled connection may hold until it is cut: what is queued for it above the kernel,
// one 64 KiB slice of the body per response (server/http/payload.js), encrypted; over HTTP/2 one
// per stream, 6.6 MB for 100, and once more when the peer resets and the failed writes let every
// stream queue its next slice: 13 MB, and TLS records and bookkeeping around it. Before, node:http2
// held 100 MB per connection (a whole 1 MiB chunk per stream) and kept it after the peer had
// gone; spdy held 75 MB (a whole 64 MiB body in frames, less what the kernel had taken).
const peakBytesPer = (id) => (isH1(id) ? 1e6 : 20e6);
// Once every connection is gone, RSS is back within this of the quiet baseline (allocator slack
// and the heap V8 grew into; a leaked stalled connection is megabytes).
const afterSlackBytes = 30e6;

async function openCount(lab, id) {
  const res = await fetch(`${lab.ui}/api/stats`);
  return (await res.json()).servers.find((s) => s.id === id).openConnections;
}

async function connect(lab, id) {
  const { origin, protocol } = lab.servers[id];
  const { hostname, port } = new URL(origin);
  const socket = tls.connect({ host: hostname, port, servername: 'localhost', ca: lab.ca, ALPNProtocols: [protocol] });
  socket.on('error', () => {}); // the server cutting this client off is the point
  await once(socket, 'secureConnect');
  return socket;
}

/** The request bytes: one GET, or a preface with the largest windows and `streams` GETs. */
function requestBytes(id, path, streams) {
  if (isH1(id)) return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  const increment = Buffer.alloc(4);
  increment.writeUInt32BE(2 ** 31 - 1 - 65_535); // the connection window to its maximum
  const parts = [PREFACE, settings({ 4: 2 ** 31 - 1 }), frame(type.WINDOW_UPDATE, 0, 0, increment)];
  for (let i = 0; i < streams; i++) parts.push(getRequest(1 + 2 * i, path));
  return Buffer.concat(parts);
}

/** A connection that asks for large bodies and never reads a byte of them. */
async function nonReader(lab, id) {
  const socket = await connect(lab, id);
  socket.pause();
  socket.write(requestBytes(id, `/option?size=${sizeMiB}`, h2Streams));
  return { socket, openedAt: performance.now() };
}

/** Opens the server's quota of non-readers; resolves them once all are connected. */
async function nonReaders(lab, id) {
  const clients = [];
  for (let i = 0; i < connectionsOf(id); i++) clients.push(await nonReader(lab, id));
  return clients;
}

/** A quiet lab, warmed up with one request per server, and its baseline. */
async function quietLab(t, limits) {
  const lab = await spawnLab({ env: limitsEnv(limits) });
  t.after(() => lab.close());
  await assertServesOption(lab);
  const baseline = await settle(lab.measure, (m) => m.stats.every((s) => s.openConnections === 0));
  return { lab, baseline };
}

/** Waits until the server has no connection left and RSS is back near the baseline. */
async function settled(lab, id, baseline) {
  return settle(lab.measure, (m) => m.stats.find((s) => s.id === id).openConnections === 0 && m.rssBytes <= baseline.rssBytes + afterSlackBytes);
}

for (const id of ids) {
  test(`${id}: connections that never read are cut ${sendTimeoutMs / 1000} s after their writes stop, holding bounded memory`, { timeout: 60_000 }, async (t) => {
    const { lab, baseline } = await quietLab(t, { sendTimeoutMs });
    const peak = rssPeak(lab.pid);
    const clients = await nonReaders(lab, id);
    const n = clients.length;
    // Polled: how many the server still has, and that none went before it was sendTimeoutMs old
    // (the kernel takes bytes for a while after the connect, so a cut comes later still).
    let open = n;
    let early = 0;
    const deadline = clients.at(-1).openedAt + cutWithinMs;
    while (open > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = performance.now();
      open = await openCount(lab, id);
      const oldEnough = clients.filter((c) => now - c.openedAt >= sendTimeoutMs * 0.9).length;
      early = Math.max(early, n - open - oldEnough);
    }
    const cutMs = performance.now() - clients.at(-1).openedAt;
    const peakBytes = peak.stop() - baseline.rssBytes;
    for (const c of clients) c.socket.destroy();
    const after = await settled(lab, id, baseline);
    t.diagnostic(
      `${id}: ${n} non-readers of ${sizeMiB} MiB${isH1(id) ? '' : ` × ${h2Streams} streams`}: ${n - open} cut, the last ${cutMs.toFixed(0)} ms after the last connected; ` +
        `RSS ${mb(baseline.rssBytes)} MB, peak +${mb(peakBytes)} MB (${mb(peakBytes / n)} per connection), after ${mb(after.rssBytes)} MB`,
    );
    assert.equal(open, 0, `${id}: every non-reader cut within ${cutWithinMs} ms`);
    assert.equal(early, 0, `${id}: none cut before ${sendTimeoutMs} ms`);
    assert.ok(peakBytes <= n * peakBytesPer(id), `${id}: peak RSS +${mb(peakBytes)} MB over ${n} connections (bound ${mb(n * peakBytesPer(id))})`);
    assert.ok(after.rssBytes <= baseline.rssBytes + afterSlackBytes, `${id}: RSS after ${mb(after.rssBytes)} MB vs baseline ${mb(baseline.rssBytes)}`);
    await assertServesOption(lab);
    assert.equal(lab.stderr(), '', 'the servers logged no errors');
  });
}

// 2 MiB/s for a 16 MiB body: the transfer lasts four send timeouts, and the kernel takes a step
// of its send buffer (up to ~1.4 MB here) well within each.
const slowBytesPerSecond = 2 * MiB;
const slowSizeMiB = 16;

/** Reads a large body at a fixed rate; resolves { bytes, closed } after `ms`. */
async function slowReader(lab, id, ms) {
  const socket = await connect(lab, id);
  socket.write(requestBytes(id, `/option?size=${slowSizeMiB}`, 1));
  let bytes = 0;
  let closed = false;
  socket.once('close', () => (closed = true));
  const start = performance.now();
  socket.on('data', (chunk) => {
    bytes += chunk.length;
    const aheadMs = start + (bytes / slowBytesPerSecond) * 1000 - performance.now();
    if (aheadMs > 0) {
      socket.pause();
      setTimeout(() => socket.resume(), aheadMs);
    }
  });
  await new Promise((resolve) => setTimeout(resolve, ms));
  socket.destroy();
  return { bytes, closed };
}

for (const id of ids) {
  test(`${id}: a slow reader, an idle connection and a delayed response are not cut`, { timeout: 60_000 }, async (t) => {
    const { lab } = await quietLab(t, { sendTimeoutMs });
    const spanMs = 4 * sendTimeoutMs;
    // Idle: one request answered, then nothing pending on a kept-alive connection.
    const idle = await connect(lab, id);
    idle.write(requestBytes(id, '/option?size=0.01', 1));
    const [slow, delayed] = await Promise.all([
      slowReader(lab, id, spanMs),
      fetchDelayed(lab, id, spanMs - sendTimeoutMs),
    ]);
    const idleOpen = !idle.destroyed && idle.readyState === 'open';
    idle.destroy();
    t.diagnostic(`${id}: slow reader got ${mb(slow.bytes)} MB in ${spanMs} ms (${slow.closed ? 'cut' : 'not cut'}); idle connection ${idleOpen ? 'open' : 'closed'}; delayed response ${delayed}`);
    assert.equal(slow.closed, false, `${id}: the slow reader was cut`);
    assert.ok(slow.bytes >= slowBytesPerSecond * (spanMs / 1000) * 0.5, `${id}: the slow reader got ${slow.bytes} bytes`);
    assert.ok(idleOpen, `${id}: the idle connection was closed`);
    assert.equal(delayed, 200);
  });
}

/** One request whose response starts `delayMs` later, on a connection of its own; resolves its status. */
async function fetchDelayed(lab, id, delayMs) {
  const socket = await connect(lab, id);
  socket.write(requestBytes(id, `/option?size=0.01&delay=${delayMs}`, 1));
  let text = '';
  let frames = Buffer.alloc(0);
  return new Promise((resolve) => {
    socket.on('data', (chunk) => {
      if (isH1(id)) {
        text += chunk.toString('latin1');
        const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (status) resolve(Number(status[1]));
        return;
      }
      // HTTP/2: the response HEADERS on stream 1 (HPACK ':status: 200' is the indexed byte 0x88).
      frames = Buffer.concat([frames, chunk]);
      while (frames.length >= 9 && frames.length >= 9 + frames.readUIntBE(0, 3)) {
        const length = frames.readUIntBE(0, 3);
        if (frames[3] === type.HEADERS && (frames.readUInt32BE(5) & 0x7fffffff) === 1) resolve(frames[9] === 0x88 ? 200 : `HEADERS ${frames.subarray(9, 9 + length).toString('hex')}`);
        frames = frames.subarray(9 + length);
      }
    });
    socket.once('close', () => resolve('closed'));
  }).finally(() => socket.destroy());
}

for (const id of ids) {
  test(`${id}: clients that stop reading and then disconnect leave nothing behind`, { timeout: 60_000 }, async (t) => {
    // config.js's send timeout (60 s), far beyond this test: the servers must notice the peer gone.
    const { lab, baseline } = await quietLab(t, {});
    const peak = rssPeak(lab.pid);
    const clients = await nonReaders(lab, id);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // until the kernel buffers are full
    const started = performance.now();
    for (const c of clients) c.socket.destroy();
    const after = await settle(lab.measure, (m) => m.stats.find((s) => s.id === id).openConnections === 0 && m.rssBytes <= baseline.rssBytes + afterSlackBytes, { timeoutMs: 10_000 });
    const goneMs = performance.now() - started;
    const peakBytes = peak.stop() - baseline.rssBytes;
    const left = after.stats.find((s) => s.id === id).openConnections;
    t.diagnostic(`${id}: ${clients.length} stalled clients disconnected; ${left} left open after ${goneMs.toFixed(0)} ms; RSS ${mb(baseline.rssBytes)} → ${mb(after.rssBytes)} MB, peak +${mb(peakBytes)} MB`);
    assert.equal(left, 0, `${id}: connections still open after their clients left`);
    assert.ok(after.rssBytes <= baseline.rssBytes + afterSlackBytes, `${id}: RSS after ${mb(after.rssBytes)} MB vs baseline ${mb(baseline.rssBytes)}`);
    assert.ok(peakBytes <= clients.length * peakBytesPer(id), `${id}: peak RSS +${mb(peakBytes)} MB`);
    await assertServesOption(lab);
  });

  test(`${id}: /api/reset closes stalled connections and says how many`, { timeout: 60_000 }, async (t) => {
    const { lab, baseline } = await quietLab(t, {});
    const clients = await nonReaders(lab, id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const reset = await (await fetch(`${lab.ui}/api/reset`, { method: 'POST' })).json();
    const openAfter = await openCount(lab, id);
    const answer = reset.servers.find((s) => s.id === id);
    const after = await settled(lab, id, baseline);
    for (const c of clients) c.socket.destroy();
    t.diagnostic(`${id}: reset answered ${JSON.stringify(answer)}; ${openAfter} open right after; RSS ${mb(baseline.rssBytes)} → ${mb(after.rssBytes)} MB`);
    assert.equal(openAfter, 0, `${id}: connections open after the reset`);
    assert.deepEqual(answer, { id, closed: clients.length, stillOpen: 0 });
    assert.ok(after.rssBytes <= baseline.rssBytes + afterSlackBytes, `${id}: RSS after ${mb(after.rssBytes)} MB vs baseline ${mb(baseline.rssBytes)}`);
  });
}
