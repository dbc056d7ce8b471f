// The lab link against the real servers, with real TLS clients: its control API, its accuracy at
// Fast 4G (the figures the issue asks for: time to first byte, body time, a cold connection's
// three round trips), one bandwidth shared by every connection, closes and resets passed on as
// they happened, and nothing left behind after 1,000 aborted connections.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { createPath } from '../server/path/path.js';
import { presetConditions } from '../server/path/conditions.js';
import { createRelay } from '../server/link/tcp-relay.js';
import { pathBounds } from '../common/setup/path-limits.js';
import { connectionWindowBytes, streamWindowBytes } from '../runner/push-load.js';
import { codeOf, ids, serverOf, startTestLab } from './helpers/lab.js';

import { MiB } from '../common/setup/units.js';
let lab;
let api;
before(async () => {
  lab = await startTestLab();
  api = `${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api`;
});
after(() => lab.close());
beforeEach(() => lab.networks.link.set(presetConditions('no-throttling')));

const putLink = async (body, headers = {}) => {
  const res = await fetch(`${api}/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

/** A browser-sized HTTP/2 session through the link to a server. */
async function h2Session(id) {
  const session = http2.connect(serverOf(lab, id).linkOrigin, { ca: lab.certs.ca, settings: { initialWindowSize: streamWindowBytes } });
  session.on('error', () => {});
  await once(session, 'connect');
  session.setLocalWindowSize(connectionWindowBytes);
  return session;
}

/** One request; times from its start: first byte (headers) and end of body. */
function timed(session, path) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let ttfbMs;
    let bytes = 0;
    const stream = session.request({ ':path': path });
    stream.on('response', () => (ttfbMs = performance.now() - start));
    stream.on('data', (c) => (bytes += c.length));
    stream.on('end', () => resolve({ ttfbMs, endMs: performance.now() - start, bytes }));
    stream.on('error', reject);
    stream.end();
  });
}

const within = (actual, expected, share, what) =>
  assert.ok(Math.abs(actual - expected) <= expected * share, `${what}: ${actual.toFixed(1)} ms, expected ${expected.toFixed(1)} ms ± ${share * 100} %`);

test('GET /api/networks/link answers the conditions, and /api/servers a link origin per server', async () => {
  assert.deepEqual(await (await fetch(`${api}/networks/link`)).json(), { preset: 'no-throttling', rttMs: 0, downloadBps: -1, uploadBps: -1, queueBytes: 16 * 1024, loss: 0, burst: null, traceDown: null, traceUp: null });
  const { servers } = await (await fetch(`${api}/servers`)).json();
  for (const s of servers) {
    assert.match(s.linkOrigin, /^https:\/\/localhost:\d+$/);
    assert.notEqual(s.linkOrigin, s.origin);
  }
});

test('PUT /api/networks/link takes a preset or explicit numbers, with a bandwidth-delay product queue by default', async () => {
  const fast = await putLink({ preset: 'fast-4g' });
  assert.equal(fast.status, 200);
  assert.deepEqual(fast.body, { preset: 'fast-4g', rttMs: 165, downloadBps: 1_012_500, uploadBps: 168_750, queueBytes: 167_063, loss: 0, burst: null, traceDown: null, traceUp: null });
  const explicit = await putLink({ rttMs: 40, downloadBps: 500_000, uploadBps: 100_000, queueBytes: 65_536, loss: 0, burst: null, traceDown: null, traceUp: null });
  assert.deepEqual(explicit.body, { preset: null, rttMs: 40, downloadBps: 500_000, uploadBps: 100_000, queueBytes: 65_536, loss: 0, burst: null, traceDown: null, traceUp: null });
  assert.deepEqual(await (await fetch(`${api}/networks/link`)).json(), explicit.body);
});

test('PUT /api/networks/link refuses bad input with 400 naming the field, and changes nothing', async () => {
  await putLink({ preset: 'slow-4g' });
  const cases = [
    [{ preset: 'warp-9' }, 'preset'],
    [{ preset: 'offline' }, 'preset'],
    [{ rttMs: 100, downloadBps: -5, uploadBps: 1000 }, 'downloadBps'],
    [{ rttMs: '100', downloadBps: 1000, uploadBps: 1000 }, 'rttMs'],
    [{ rttMs: 4_000, downloadBps: 1000, uploadBps: 1000 }, 'rttMs'], // over pathBounds.maxRttMs: no QUIC handshake completes
    [{ rttMs: 100, downloadBps: 1000 }, 'uploadBps'],
    [{ rttMs: 100, downloadBps: 1000, uploadBps: 1000, queueBytes: 10 }, 'queueBytes'],
    [{ preset: 'fast-4g', rttMs: 10 }, 'rttMs'],
    [{ latency: 10 }, 'latency'],
    [{ preset: 'fast-4g', loss: 2 }, 'loss'], // the link loses no packets (common/setup/networks.js carries)
    [{ preset: 'fast-4g', burst: { p: 1, r: 25 } }, 'burst'],
    [[1, 2], 'body'],
  ];
  for (const [body, field] of cases) {
    const r = await putLink(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual([r.body.code, r.body.field], ['invalid-field', field], JSON.stringify(body));
  }
  const notJson = await fetch(`${api}/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"preset":' });
  assert.equal(notJson.status, 400);
  assert.deepEqual(await codeOf(notJson), { code: 'invalid-json', field: 'body' });
  const plain = await fetch(`${api}/networks/link`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'slow-4g' });
  assert.equal(plain.status, 415);
  assert.deepEqual(await codeOf(plain), { code: 'not-json', field: 'body' });
  const large = await fetch(`${api}/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ preset: 'x'.repeat(8_000) }) });
  assert.equal(large.status, 413);
  assert.deepEqual(await codeOf(large), { code: 'body-too-large', field: 'body' });
  assert.equal((await (await fetch(`${api}/networks/link`)).json()).preset, 'slow-4g');
});

test('PUT /api/networks/link is for the lab page only; other methods get 405', async () => {
  const foreign = await putLink({ preset: 'fast-4g' }, { origin: 'http://evil.example' });
  assert.equal(foreign.status, 403);
  assert.deepEqual([foreign.body.code, foreign.body.field], ['not-lab-page', null]);
  const unknown = await fetch(`${api}/networks/warp`);
  assert.deepEqual([unknown.status, (await codeOf(unknown)).code], [404, 'unknown-network']);
  const browsers = await fetch(`${api}/networks/devtools`);
  assert.deepEqual([browsers.status, (await codeOf(browsers)).code], [404, 'network-not-in-lab'], 'DevTools throttling is the browser\'s');
  const post = await fetch(`${api}/networks/link`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD, PUT');
  assert.deepEqual(await codeOf(post), { code: 'method-not-allowed', field: null });
});

test('the link takes no loss seed: 400 no-loss naming the network; other methods get 405', async () => {
  const res = await fetch(`${api}/networks/link/loss-seed`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seed: 1 }) });
  assert.equal(res.status, 400);
  assert.deepEqual(await codeOf(res), { code: 'no-loss', field: 'network' });
  const get = await fetch(`${api}/networks/link/loss-seed`);
  assert.deepEqual([get.status, get.headers.get('allow')], [405, 'PUT']);
});

test('with no throttling every server answers through its link port over its own protocol', async () => {
  for (const id of ids) {
    const { linkOrigin } = serverOf(lab, id);
    const socket = tls.connect({ host: 'localhost', port: new URL(linkOrigin).port, ca: lab.certs.ca, ALPNProtocols: [serverOf(lab, id).protocol] });
    await once(socket, 'secureConnect');
    assert.equal(socket.alpnProtocol, serverOf(lab, id).protocol);
    socket.destroy();
  }
  const session = await h2Session('h2-spdy');
  const r = await timed(session, '/option?size=1');
  session.close();
  assert.equal(r.bytes, MiB);
});

test('Fast 4G: warm first byte ±10 % of 165 ms, 1 MiB body ±10 % of 1 MiB / 1,012,500 B/s, a cold request ≥ 3 round trips', async () => {
  lab.networks.link.set(presetConditions('fast-4g'));
  const start = performance.now();
  const session = await h2Session('h2-node');
  const cold = await timed(session, '/option?size=0');
  const coldMs = performance.now() - start;
  assert.ok(coldMs >= 3 * 165, `a cold request (TCP, TLS 1.3, request) took ${coldMs.toFixed(1)} ms, under 3 × 165 ms`);
  assert.equal(cold.bytes, 0);
  const warm = await timed(session, '/option?size=0');
  within(warm.ttfbMs, 165, 0.1, 'warm time to first byte');
  const body = await timed(session, '/option?size=1');
  assert.equal(body.bytes, MiB);
  within(body.endMs - body.ttfbMs, (MiB / 1_012_500) * 1000, 0.1, '1 MiB after its first byte');
  session.close();
});

test('one bottleneck: two connections share the bandwidth that one would have', async () => {
  lab.networks.link.set(presetConditions('fast-4g'));
  const [a, b] = await Promise.all([h2Session('h2-node'), h2Session('h2-spdy')]);
  await Promise.all([timed(a, '/option?size=0'), timed(b, '/option?size=0')]);
  const start = performance.now();
  const [ra, rb] = await Promise.all([timed(a, '/option?size=0.5'), timed(b, '/option?size=0.5')]);
  const bothMs = performance.now() - start;
  a.close();
  b.close();
  assert.equal(ra.bytes + rb.bytes, MiB);
  // 1 MiB at 1,012,500 B/s is 1,036 ms of link time plus the round trip, whoever sends it.
  assert.ok(bothMs >= 165 + 1036 * 0.95, `2 × 0.5 MiB on two connections took ${bothMs.toFixed(0)} ms`);
});

test('new conditions apply to connections already open', async () => {
  const session = await h2Session('h2-node');
  const beforeChange = await timed(session, '/option?size=0');
  lab.networks.link.set({ ...presetConditions('no-throttling'), rttMs: 300, downloadBps: 1e9, uploadBps: 1e9 });
  const afterChange = await timed(session, '/option?size=0');
  session.close();
  assert.ok(beforeChange.endMs < 100, `before: ${beforeChange.endMs.toFixed(1)} ms`);
  assert.ok(afterChange.endMs >= 295, `after setting a 300 ms round trip: ${afterChange.endMs.toFixed(1)} ms`);
});

test('a change of conditions re-times what is queued: after 1 B/s, no throttling serves the stuck connection and a new one at once', { timeout: 20_000 }, async () => {
  await putLink({ rttMs: 0, downloadBps: 1, uploadBps: 1 });
  const stuck = h2Session('h2-node'); // its ClientHello would take minutes at 1 B/s
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal((await putLink({ preset: 'no-throttling' })).status, 200);
  const fresh = await h2Session('h2-node');
  assert.equal((await timed(fresh, '/option?size=1')).bytes, MiB);
  const reopened = await stuck;
  assert.equal((await timed(reopened, '/option?size=0')).bytes, 0);
  fresh.close();
  reopened.close();
});

test('/api/reset closes the connections through the link on both sides', async () => {
  const session = await h2Session('h2-node');
  await timed(session, '/option?size=0');
  assert.equal(lab.networks.link.openConnections(), 1);
  // The client may see a FIN or, when it writes after the relay has gone, a RST: either closes it.
  const closed = new Promise((resolve) => session.once('close', resolve));
  const res = await fetch(`${api}/reset`, { method: 'POST' });
  assert.equal((await res.json()).link, 1);
  await closed;
  assert.equal(lab.networks.link.openConnections(), 0);
});

/** A relay on a free port in front of a plain TCP server that does `onSocket` to each connection. */
async function relayInFront(onSocket, conditions = presetConditions('no-throttling')) {
  const target = net.createServer(onSocket);
  target.listen(0, '127.0.0.1');
  await once(target, 'listening');
  const path = createPath(conditions);
  const relay = createRelay({ path, rttMs: () => conditions.rttMs, targetPort: target.address().port, targetHost: '127.0.0.1' });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return {
    port: relay.address().port,
    path,
    async close() {
      for (const teardown of relay.pairs) teardown();
      path.clear();
      relay.close();
      target.close();
      await Promise.all([once(relay, 'close'), once(target, 'close')]);
    },
  };
}

test('a server that resets is seen as a reset, one that ends as an end, behind its data', async () => {
  const conditions = { ...presetConditions('no-throttling'), rttMs: 40, downloadBps: 1e6, uploadBps: 1e6 };
  for (const how of ['reset', 'end']) {
    const r = await relayInFront((socket) => {
      socket.write('x'.repeat(5000));
      if (how === 'reset') setTimeout(() => socket.resetAndDestroy(), 5);
      else socket.end();
    }, conditions);
    const client = net.connect({ port: r.port, host: '127.0.0.1', allowHalfOpen: true });
    try {
      let bytes = 0;
      client.on('data', (c) => (bytes += c.length));
      // libuv reports a RST that arrives in the same wake-up as the last data as an end (EPOLLHUP
      // after a partial read), so an end is told from a reset by writing: after a FIN the
      // half-open socket still takes bytes, after a RST the kernel refuses them (EPIPE).
      const outcome = await new Promise((resolve) => {
        client.on('error', (err) => resolve(err.code));
        client.on('end', () => client.write('?', (err) => resolve(err ? err.code : 'end')));
      });
      if (how === 'reset') assert.ok(['ECONNRESET', 'EPIPE'].includes(outcome), `a reset arrived as ${outcome}`);
      else assert.equal(outcome, 'end');
      assert.equal(bytes, 5000, `the ${how} arrived behind every byte`);
    } finally {
      client.destroy();
      await r.close();
    }
  }
});

test('1,000 connections opened and aborted through the link leave no sockets or timers behind', async () => {
  lab.networks.link.set(presetConditions('fast-4g'));
  const { linkPort } = serverOf(lab, 'h1');
  const count = (type) => process.getActiveResourcesInfo().filter((t) => t === type).length;
  const sockets = count('TCPSocketWrap');
  const timers = count('Timeout');
  for (let batch = 0; batch < 10; batch++) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const raw = net.connect(linkPort, '127.0.0.1');
        const socket = tls.connect({ socket: raw, servername: 'localhost', ca: lab.certs.ca, ALPNProtocols: ['http/1.1'] });
        socket.on('error', () => {});
        raw.on('error', () => {});
        socket.once('secureConnect', () => socket.write('GET /option?size=1 HTTP/1.1\r\nhost: localhost\r\n\r\n'));
        // Some go during the handshake round trip, some during TLS, some mid-body; half with a reset.
        await new Promise((r) => setTimeout(r, (i % 4) * 120));
        if (i % 2) raw.resetAndDestroy();
        else socket.destroy();
      }),
    );
  }
  const deadline = Date.now() + 10_000;
  while ((lab.networks.link.openConnections() || count('TCPSocketWrap') > sockets) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(lab.networks.link.openConnections(), 0);
  assert.ok(count('TCPSocketWrap') <= sockets, `${count('TCPSocketWrap')} TCP sockets open, ${sockets} before`);
  assert.ok(count('Timeout') <= timers + 1, `${count('Timeout')} timers, ${timers} before`);
});

test("a closed connection's pieces leave the queue: the next connection does not wait behind them", async () => {
  const conditions = { ...presetConditions('no-throttling'), rttMs: 0, downloadBps: 10_000, uploadBps: -1, queueBytes: 16 * 1024, loss: 0, burst: null, traceDown: null, traceUp: null };
  const r = await relayInFront((socket) => {
    socket.on('error', () => {});
    socket.end(Buffer.alloc(100_000));
  }, conditions);
  try {
    const first = net.connect({ port: r.port, host: '127.0.0.1' });
    first.on('error', () => {});
    await once(first, 'data');
    assert.ok(r.path.down.queued().bytes >= 8 * 1024, 'the queue holds the first connection\'s bytes');
    first.destroy();
    // The relay learns of it from the RST its next write draws, within one slice (146 ms).
    const deadline = performance.now() + 1_000;
    while (r.path.down.queued().pieces && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(r.path.down.queued(), { pieces: 0, bytes: 0, costBytes: 0 }, 'the first connection\'s pieces left the queue');
    const start = performance.now();
    const second = net.connect({ port: r.port, host: '127.0.0.1' });
    await once(second, 'data');
    const firstByteMs = performance.now() - start;
    second.destroy();
    // Behind the first connection's 16 KiB it would have waited 1.6 s; its own first slice takes 146 ms.
    const behindMs = (conditions.queueBytes / conditions.downloadBps) * 1000;
    assert.ok(firstByteMs < behindMs / 2, `first byte after ${firstByteMs.toFixed(0)} ms`);
  } finally {
    await r.close();
  }
});

/** A cold request through a server's twin port (a new connection, TLS, /option?size=0); resolves the status. */
async function coldRequest(id) {
  const { linkOrigin, protocol } = serverOf(lab, id);
  if (protocol === 'http/1.1') {
    const res = await new Promise((resolve, reject) => {
      https.get(`${linkOrigin}/option?size=0`, { ca: lab.certs.ca, agent: false }, resolve).on('error', reject);
    });
    res.resume();
    await once(res, 'end');
    return res.statusCode;
  }
  const session = await h2Session(id);
  try {
    await timed(session, '/option?size=0');
    return 200;
  } finally {
    session.close();
  }
}

// The servers' handshake and header timers (10 s) start when the relay connects to them, as the
// browser's first bytes arrive, where a real server accepts: at 500 B/s down and 300 B/s up the
// handshake's bytes take seconds more than its round trips.
test('at the largest round trip (pathBounds.maxRttMs) a cold request completes through every twin port, also at 500 B/s down and 300 B/s up', { timeout: 90_000 }, async () => {
  for (const rates of [{ downloadBps: -1, uploadBps: -1 }, { downloadBps: 500, uploadBps: 300 }]) {
    lab.networks.link.set({ ...presetConditions('no-throttling'), rttMs: pathBounds.maxRttMs, ...rates });
    const statuses = await Promise.all(ids.map(coldRequest));
    assert.deepEqual(statuses, ids.map(() => 200), `at ${JSON.stringify(rates)}`);
  }
});

test('POST /api/traces takes a trace as text and the link follows it by name; a bad one is refused naming its line, another type unread', async () => {
  const post = (body, type = 'text/plain', name = 'two-slots') => fetch(`${api}/traces?name=${name}`, { method: 'POST', headers: { 'content-type': type }, body });
  const ok = await post('1\n2\n');
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { name: 'two-slots', sha256: (await import('node:crypto')).createHash('sha256').update('1\n2\n').digest('hex'), meanBps: 1_504_000, periodMs: 2 });
  const bad = await post('1\n2\nx\n');
  assert.equal(bad.status, 400);
  const badBody = await bad.json();
  assert.deepEqual([badBody.code, badBody.field], ['invalid-field', 'trace']);
  assert.match(badBody.error, /line 3/);
  const json = await post('{"a":1}', 'application/json');
  assert.deepEqual([json.status, (await codeOf(json)).code], [415, 'not-text']);
  assert.ok((await (await fetch(`${api}/traces`)).json()).traces.some((t) => t.name === 'two-slots' && !t.builtIn));
  const set = await putLink({ preset: 'fast-4g', traceDown: 'two-slots' });
  assert.equal(set.status, 200);
  assert.deepEqual([set.body.rttMs, set.body.downloadBps, set.body.traceDown.name], [165, 1_504_000, 'two-slots']);
});
