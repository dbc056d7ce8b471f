// Hostile traffic against the three real servers: garbage, oversized and broken requests,
// HTTP/2 frames that break the protocol, floods, rapid reset and slowloris. Each case checks that
// the attacker gets an error or a closed connection within a bound, and that every server still
// answers a normal request (status, body length, protocol) meanwhile or afterwards. What each
// server did is printed as a diagnostic (docs/robustness.md records it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { MiB } from '../../common/setup/units.js';
import { h1Request, h2Connect, h2Ids, h2Request, ids, isH1, serverOf, startTestLab } from '../helpers/lab.js';
import * as raw from './raw.js';

// Timeouts shortened so slowloris cases take seconds; the servers apply them exactly as they
// apply config.js's defaults. The handshake timeout stays above the 1–2 s for which a rapid
// reset against spdy blocks the whole process, or the normal requests' handshakes time out.
const limits = { headersTimeoutMs: 1_500, handshakeTimeoutMs: 4_000 };
// A protocol error is answered as the frame is parsed (milliseconds here); 2 s leaves room for
// a loaded two-core machine.
const protocolErrorMs = 2_000;
// Node's HTTP/1.1 server checks its timeouts every timeoutCheckIntervalMs (1 s); 2 s of margin.
const slowlorisMs = limits.headersTimeoutMs + 1_000 + 2_000;
// A normal request on a fresh connection, while or after an attack: seconds, not minutes.
const healthyMs = 10_000;

let lab;
before(async () => {
  lab = await startTestLab({ transportLimits: limits });
});
after(() => lab?.close());

const sizeMiB = 0.01;

function within(ms, promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** One /option?size=0.01 on a fresh connection to every server, checked in full. */
async function allHealthy() {
  const path = `/option?size=${sizeMiB}&probe=${Math.random()}`;
  await Promise.all(
    ids.map((id) =>
      within(healthyMs, (async () => {
        let res;
        let protocol;
        if (isH1(id)) {
          res = await h1Request(lab, path, { id });
          protocol = res.alpn;
        } else {
          const session = await h2Connect(lab, id);
          try {
            res = await h2Request(session, path);
            protocol = session.alpnProtocol;
          } finally {
            session.close();
          }
        }
        assert.equal(res.status, 200, `${id} status`);
        assert.equal(res.body.length, Math.floor(sizeMiB * MiB), `${id} body length`);
        assert.equal(res.headers['x-server'], id);
        assert.equal(protocol, serverOf(lab, id).protocol, `${id} protocol`);
      })().catch((err) => {
        throw new Error(`normal request to ${id}: ${err.message}`, { cause: err });
      }), `normal request to ${id}`),
    ),
  );
}

const refused = (conn) => conn.goaway() || conn.resets().length > 0 || /^HTTP\/1\.1 [45]\d\d/.test(conn.text);

/** Waits up to boundMs for an error or a close, records it, and asserts there was one. */
async function expectRefusal(t, id, conn, boundMs) {
  await raw.until(conn, refused, boundMs);
  await raw.until(conn, () => false, 50); // let a close that follows the error be seen too
  t.diagnostic(`${id}: ${raw.outcome(conn)}`);
  assert.ok(refused(conn) || conn.closedAt !== null, `${id}: an error or a close within ${boundMs} ms; got ${raw.outcome(conn)}`);
  conn.socket.destroy();
}

test('garbage after the TLS handshake', async (t) => {
  await Promise.all(
    ids.map(async (id) => {
      const conn = await raw.rawConnect(lab, id);
      conn.socket.write('hello garbage\r\n\r\n'); // shorter than the HTTP/2 preface on purpose
      await expectRefusal(t, id, conn, protocolErrorMs);
    }),
  );
  await allHealthy();
});

test('oversized headers and URLs: 431 or a refused stream', async (t) => {
  const big = 'a'.repeat(20 * 1024); // over maxHeaderBytes (16 KiB) on every server
  const huge = 'a'.repeat(60 * 1024);
  for (const id of ids) {
    for (const [what, path, headers] of [
      ['20 KiB header', '/option?size=0', { 'x-big': big }],
      ['60 KiB header', '/option?size=0', { 'x-big': huge }],
      ['20 KiB URL', `/option?size=0&x=${big}`, {}],
    ]) {
      let result;
      try {
        if (isH1(id)) {
          result = await within(protocolErrorMs, h1Request(lab, path, { headers, id }), what);
        } else {
          const session = await h2Connect(lab, id);
          result = await within(protocolErrorMs, h2Request(session, path, { headers }), what).finally(() => session.destroy());
        }
      } catch (err) {
        if (err.code !== 'ERR_HTTP2_STREAM_ERROR' && err.code !== 'ECONNRESET') throw err;
        t.diagnostic(`${id} ${what}: ${err.message}`);
        continue;
      }
      t.diagnostic(`${id} ${what}: HTTP ${result.status} ${result.body}`);
      assert.equal(result.status, 431, `${id} ${what}`);
      assert.deepEqual(JSON.parse(result.body), { error: 'request headers too large', code: 'headers-too-large', field: null });
    }
  }
  await allHealthy();
});

test('a :path that is not an absolute path: the 400 JSON or a PROTOCOL_ERROR reset, never served, never express', async (t) => {
  for (const id of h2Ids) {
    for (const path of ['https://evil.example/option?size=0', '', 'option?size=0', '*']) {
      const conn = await raw.h2Raw(lab, id);
      let text = '';
      conn.socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      conn.socket.write(raw.getRequest(1, path));
      // Done when stream 1 ends: a reset, or DATA with END_STREAM.
      await raw.until(conn, (c) => c.frames.some((f) => f.streamId === 1 && (f.type === 'RST_STREAM' || (f.type === 'DATA' && f.flags & raw.flag.END_STREAM))), protocolErrorMs);
      const reset = conn.resets().find((f) => f.streamId === 1);
      t.diagnostic(`${id} ${JSON.stringify(path)}: ${raw.outcome(conn)}`);
      if (reset) assert.equal(reset.code, 'PROTOCOL_ERROR', `${id} ${JSON.stringify(path)}`);
      else assert.match(text, /\{"error":":path must be an absolute path/, `${id} ${JSON.stringify(path)}: ${JSON.stringify(text.slice(-200))}`);
      conn.socket.destroy();
    }
  }
});

test('broken percent-encoding in the query: 400 naming the parameter', async (t) => {
  for (const id of ids) {
    for (const [query, param] of [['size=%E0%A4%A', 'size'], ['size=0&delay=%zz', 'delay'], ['size=%', 'size']]) {
      const path = `/option?${query}`;
      let res;
      if (isH1(id)) res = await h1Request(lab, path, { id });
      else {
        const session = await h2Connect(lab, id);
        res = await h2Request(session, path).finally(() => session.close());
      }
      assert.equal(res.status, 400, `${id} ${query}`);
      assert.equal(res.headers['content-type'], 'application/json');
      const body = JSON.parse(res.body);
      assert.equal(body.field, param, `${id} ${query}: ${res.body}`);
      assert.match(body.error, /percent-encoding/);
    }
  }
  t.diagnostic('all three: HTTP 400 {"error":"… its value has broken percent-encoding","code":"invalid-field","field":…}');
  await allHealthy();
});

const { frame, type, flag, getRequest, hpack, requestFields } = raw;
const protocolBreakers = {
  'HEADERS on stream 0': () => getRequest(0, '/option?size=0'),
  'even stream id from a client': () => getRequest(2, '/option?size=0'),
  'DATA on an idle stream': () => frame(type.DATA, 0, 7, Buffer.from('hello')),
  'frame over SETTINGS_MAX_FRAME_SIZE (16,384)': () =>
    frame(type.HEADERS, flag.END_HEADERS | flag.END_STREAM, 1, Buffer.concat([hpack(requestFields('/option?size=0')), Buffer.alloc(20_000)])),
  'CONTINUATION without HEADERS': () => frame(type.CONTINUATION, flag.END_HEADERS, 1, hpack(requestFields('/option?size=0'))),
};

for (const [name, bytes] of Object.entries(protocolBreakers)) {
  test(`HTTP/2 protocol error: ${name}`, async (t) => {
    await Promise.all(
      h2Ids.map(async (id) => {
        const conn = await raw.h2Raw(lab, id);
        conn.socket.write(bytes());
        await expectRefusal(t, id, conn, protocolErrorMs);
      }),
    );
    await allHealthy();
  });
}

test('HTTP/2 decreasing stream id: the stale HEADERS is not served', async (t) => {
  // RFC 9113 §5.1.1 calls this a connection error: spdy's guard answers it with GOAWAY
  // PROTOCOL_ERROR; nghttp2 ignores a HEADERS below the last stream it processed (it cannot
  // tell it from a stream it closed). Either way the stale request is not served.
  await Promise.all(
    h2Ids.map(async (id) => {
      const conn = await raw.h2Raw(lab, id);
      conn.socket.write(getRequest(5, '/option?size=0'));
      await raw.until(conn, (c) => c.frames.some((f) => f.type === 'HEADERS' && f.streamId === 5), protocolErrorMs);
      conn.socket.write(getRequest(3, '/option?size=0'));
      await raw.until(conn, refused, 500);
      const served3 = conn.frames.some((f) => f.type === 'HEADERS' && f.streamId === 3);
      t.diagnostic(`${id}: stream 3 after 5 ${served3 ? 'served' : 'ignored'}; ${raw.outcome(conn)}`);
      assert.ok(!served3 || refused(conn), `${id} must not serve stream 3 after 5`);
      conn.socket.destroy();
    }),
  );
  await allHealthy();
});

for (const [name, one] of [['SETTINGS', () => raw.settings({ 3: 100 })], ['PING', (i) => raw.ping(i)]]) {
  test(`HTTP/2 ${name} flood`, async (t) => {
    await Promise.all([
      ...h2Ids.map(async (id) => {
        const conn = await raw.h2Raw(lab, id);
        conn.socket.write(Buffer.concat(Array.from({ length: 20_000 }, (_, i) => one(i))));
        // 20,000 frames are parsed in well under a second here; 5 s for a loaded machine.
        await expectRefusal(t, id, conn, 5_000);
      }),
      allHealthy(),
    ]);
    await allHealthy();
  });
}

test('HTTP/2 rapid reset: thousands of streams opened and reset at once', async (t) => {
  const streams = 3_000;
  await Promise.all([
    ...h2Ids.map(async (id) => {
      const conn = await raw.h2Raw(lab, id);
      const parts = [];
      for (let i = 0; i < streams; i++) parts.push(getRequest(1 + 2 * i, `/option?size=${sizeMiB}`), raw.rstStream(1 + 2 * i));
      conn.socket.write(Buffer.concat(parts));
      // spdy runs an express request for each stream until its limit (1,000 resets) cuts in,
      // about 3 s on this machine; 20 s for a loaded one.
      await raw.until(conn, (c) => c.goaway(), 20_000);
      await raw.until(conn, () => false, 50);
      const responses = conn.frames.filter((f) => f.type === 'HEADERS').length;
      t.diagnostic(`${id}: ${raw.outcome(conn)}; ${responses} responses started before it`);
      assert.ok(conn.goaway() || conn.closedAt !== null, `${id}: GOAWAY or close; got ${raw.outcome(conn)}`);
      assert.ok(responses < streams, `${id} stopped before serving all ${streams}`);
      conn.socket.destroy();
    }),
    allHealthy(),
  ]);
  await allHealthy();
});

/** Writes `bytes` one at a time, `gapMs` apart, until the server closes the connection. */
async function trickle(conn, bytes, gapMs) {
  for (const byte of bytes) {
    if (conn.closedAt !== null || conn.socket.destroyed) return;
    conn.socket.write(Buffer.from([byte]));
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

async function expectCutOff(t, id, what, conn, { notBeforeMs = 0 } = {}) {
  await raw.until(conn, () => false, slowlorisMs);
  t.diagnostic(`${id} ${what}: ${raw.outcome(conn)}`);
  assert.ok(conn.closedAt !== null, `${id} ${what}: closed within ${slowlorisMs} ms`);
  assert.ok(conn.closedAt >= notBeforeMs, `${id} ${what}: not before the timeout (${conn.closedAt.toFixed(0)} ms)`);
  conn.socket.destroy();
}

test('slowloris: headers trickled byte by byte, HTTP/1.1 and HTTP/2', async (t) => {
  const gapMs = 150; // every request below takes longer than slowlorisMs to trickle
  const h1Head = Buffer.from(`GET /option?size=0 HTTP/1.1\r\nHost: localhost\r\nUser-Agent: ${'s'.repeat(40)}\r\n\r\n`);
  const h2Head = getRequest(1, '/option?size=0', [['user-agent', 's'.repeat(40)]]);
  await Promise.all([
    ...ids.map(async (id) => {
      const conn = isH1(id) ? await raw.rawConnect(lab, id) : await raw.h2Raw(lab, id);
      const dripping = trickle(conn, isH1(id) ? h1Head : h2Head, gapMs);
      await expectCutOff(t, id, 'trickled headers', conn, { notBeforeMs: limits.headersTimeoutMs * 0.9 });
      await dripping;
    }),
    allHealthy(),
  ]);
  await allHealthy();
});

test('slowloris: connections that never send a request, or never finish the TLS handshake', async (t) => {
  await Promise.all(
    ids.flatMap((id) => [
      (async () => {
        const conn = isH1(id) ? await raw.rawConnect(lab, id) : await raw.h2Raw(lab, id);
        await expectCutOff(t, id, 'silent after the handshake', conn, { notBeforeMs: limits.headersTimeoutMs * 0.9 });
      })(),
      (async () => {
        const socket = net.connect(serverOf(lab, id).port, '127.0.0.1');
        const start = performance.now();
        const closedAt = new Promise((resolve) => socket.once('close', () => resolve(performance.now() - start)));
        socket.on('error', () => {});
        const ms = await within(limits.handshakeTimeoutMs + 2_000, closedAt, `${id} silent TCP connection`);
        t.diagnostic(`${id} silent TCP connection (no ClientHello): closed at ${ms.toFixed(0)} ms`);
        assert.ok(ms >= limits.handshakeTimeoutMs * 0.9, `${id}: not before the handshake timeout`);
      })(),
    ]),
  );
  await allHealthy();
});
