// Input rules of GET/HEAD /option?size=<MiB>&delay=<ms>, checked on all three servers: what is
// accepted, what gets a 400 naming the parameter and its bounds, 404/405 for other paths and
// methods, and raw-socket abuse that must neither crash a server nor get an answer in the wrong
// protocol.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import https from 'node:https';
import { h1Request, h2Connect, h2Ids, h2Request, ids, isH1, request, serverOf, startTestLab, stats } from './helpers/lab.js';

import { MiB } from '../common/setup/units.js';
// Every test gets a deadline, so a server that stalls fails the test instead of the whole run.
const T = { timeout: 10_000 };

/** Values that are not a finite decimal number within bounds, for either parameter. */
function badValues(param, bound) {
  const aboveBound = param === 'size' ? ['64.0001'] : ['60001', '60000.0001'];
  return [
    [`${param}=-1`, 'negative'],
    [`${param}=NaN`, 'NaN'],
    [`${param}=Infinity`, 'Infinity'],
    [`${param}=1e999`, 'overflowing exponent'],
    [`${param}=1e2`, 'exponent'],
    [`${param}=0x10`, 'hex'],
    [`${param}=`, 'empty'],
    [`${param}`, 'bare key'],
    [`${param}=1&${param}=2`, 'repeated'],
    [`${param}=1&${param}=1`, 'repeated, same value'],
    [`${param}[]=1`, 'array key'],
    [`${param}[a]=1`, 'object key'],
    [`${param}%5B%5D=1`, 'percent-encoded array key'],
    [`${param}=1abc`, 'trailing garbage'],
    [`${param}=1%20`, 'trailing encoded space'],
    [`${param}=1+`, 'trailing plus (form-encoded space)'],
    [`${param}=%2B1`, 'leading plus'],
    [`${param}=%00`, 'NUL'],
    [`${param}=%zz`, 'broken percent-encoding'],
    [`${param}=%E0%A4%A`, 'truncated UTF-8 percent-encoding'],
    [`${param}=.`, 'a lone dot'],
    [`${param}=1.2.3`, 'two dots'],
    ...aboveBound.map((v) => [`${param}=${v}`, `just above ${bound}`]),
    [`${param}=${'9'.repeat(5000)}`, 'huge digit string'],
    [`${param}=0.${'0'.repeat(4000)}1&${param}=0`, 'long but valid first, then repeated'],
  ];
}
const badSize = badValues('size', 64);
const badDelay = badValues('delay', 60000);

async function assertJsonError(res, status, { param, mentions = [] } = {}) {
  assert.equal(res.status, status, `status, body: ${res.body.toString().slice(0, 200)}`);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.equal(Number(res.headers['content-length']), res.body.length, 'content-length matches the body');
  const body = JSON.parse(res.body.toString());
  assert.equal(typeof body.error, 'string');
  assert.ok(body.error.length > 0 && body.error.length < 300, `short message: ${body.error.length} chars`);
  assert.match(body.code, /^[a-z0-9-]+$/, 'a stable code');
  if (param !== undefined) {
    assert.equal(body.code, 'invalid-field');
    assert.equal(body.field, param);
    assert.ok(body.error.includes(param), `message names ${param}: ${body.error}`);
  } else {
    assert.equal(body.field, null);
  }
  for (const text of mentions) assert.ok(body.error.includes(text), `message mentions ${text}: ${body.error}`);
  return body;
}

function assertCommonHeaders(res, id, lab) {
  assert.equal(res.headers['x-server'], id);
  assert.equal(res.headers['access-control-allow-origin'], lab.uiOrigin);
  assert.equal(res.headers['cache-control'], 'no-store');
}

/** Opens TLS to one server, optionally writes, and reports everything that came back. */
function rawTls(lab, id, { alpn, write, waitMs = 5000 } = {}) {
  return new Promise((resolve) => {
    const options = { host: '127.0.0.1', port: serverOf(lab, id).port, ca: lab.certs.ca, servername: 'localhost' };
    if (alpn) options.ALPNProtocols = alpn;
    const chunks = [];
    let settled = false;
    let error;
    let secure = false;
    let alpnProtocol;
    const socket = tls.connect(options, () => {
      secure = true;
      alpnProtocol = socket.alpnProtocol;
      if (write) socket.write(write);
    });
    const done = (how) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ how, error, secure, alpnProtocol, data: Buffer.concat(chunks).toString('latin1') });
    };
    const timer = setTimeout(() => done('timeout'), waitMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      error = err;
      done('error');
    });
    socket.on('end', () => done('end'));
    socket.on('close', () => done('close'));
  });
}

/** GET with a deadline that reports how far the body got, so a stalled server fails with numbers. */
async function getBody(lab, id, path, deadlineMs = 4000) {
  if (isH1(id)) return h1Request(lab, path);
  const session = await h2Connect(lab, id);
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'GET', ':path': path });
      const chunks = [];
      let received = 0;
      let response;
      const timer = setTimeout(() => {
        stream.close();
        const expected = response?.['content-length'];
        reject(new Error(`${id} ${path}: stalled, ${received} of ${expected} body bytes after ${deadlineMs} ms`));
      }, deadlineMs);
      stream.on('response', (h) => (response = h));
      stream.on('data', (c) => {
        received += c.length;
        chunks.push(c);
      });
      stream.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response[':status'], headers: response, body: Buffer.concat(chunks) });
      });
      stream.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      stream.end();
    });
  } finally {
    session.destroy();
  }
}

function parseRawResponse(text) {
  const split = text.indexOf('\r\n\r\n');
  assert.ok(split > 0, `a complete HTTP/1.1 head: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body: text.slice(split + 4) };
}

describe('/option input rules, default limits', () => {
  let lab;
  before(async () => {
    lab = await startTestLab();
  });
  after(() => lab?.close());

  for (const id of ids) {
    describe(`on ${id}`, () => {
      for (const [[query, what], param, bound] of [
        ...badSize.map((c) => [c, 'size', '64']),
        ...badDelay.map((c) => [c, 'delay', '60,000']),
      ]) {
        it(`400 for ${param}: ${what}`, T, async () => {
          const res = await request(lab, id, `/option?${query}`);
          await assertJsonError(res, 400, { param, mentions: [bound] });
          assertCommonHeaders(res, id, lab);
        });
      }

      it('400 names one of the parameters, with its own bound, when both are bad', T, async () => {
        const res = await request(lab, id, '/option?delay=x&size=y');
        // Either may be reported, but it must be one of them with its own bound.
        const body = JSON.parse(res.body.toString());
        assert.equal(res.status, 400);
        assert.ok(['size', 'delay'].includes(body.field));
        assert.ok(body.error.includes(body.field === 'size' ? '64' : '60,000'), body.error);
      });

      it('400 on HEAD carries the JSON headers but no body', T, async () => {
        const res = await request(lab, id, '/option?size=-1', { method: 'HEAD' });
        assert.equal(res.status, 400);
        assert.equal(res.headers['content-type'], 'application/json');
        assert.ok(Number(res.headers['content-length']) > 0);
        assert.equal(res.body.length, 0);
        assertCommonHeaders(res, id, lab);
      });

      for (const [query, bytes] of [
        ['', 0],
        ['size=0', 0],
        ['size=.5', Math.floor(0.5 * MiB)],
        ['size=0.1&delay=0', Math.floor(0.1 * MiB)],
        ['delay=0', 0],
        ['delay=5', 0],
        ['size=1&cb=123&x[]=y', MiB],
        ['cb=1&cb=2&size=0.25&_=%zz&%zz=1&x[a][b]=&&', Math.floor(0.25 * MiB)],
        ['SIZE=1', 0], // names are case-sensitive: SIZE is someone else's parameter
        ['size=%31', MiB],
        ['%73ize=0.5', Math.floor(0.5 * MiB)], // a percent-encoded name is still "size"
        ['size=0.0000001', 0],
      ]) {
        it(`200 for ${JSON.stringify(query)}: ${bytes} bytes`, T, async () => {
          const res = await request(lab, id, `/option?${query}`.replace(/\?$/, ''));
          assert.equal(res.status, 200, res.body.toString().slice(0, 200));
          assert.equal(res.headers['content-type'], 'application/octet-stream');
          assert.equal(res.headers['content-length'], String(bytes));
          assert.equal(res.body.length, bytes);
          assertCommonHeaders(res, id, lab);
        });
      }

      it('delay is waited and reported in server-timing', T, async () => {
        const start = performance.now();
        const res = await request(lab, id, '/option?size=0&delay=50');
        const elapsed = performance.now() - start;
        assert.equal(res.status, 200);
        assert.ok(elapsed >= 50, `took ${elapsed} ms`);
        const dur = Number(/dur=([\d.]+)/.exec(res.headers['server-timing'])?.[1]);
        assert.ok(dur >= 50 && dur < 1000, `server-timing ${res.headers['server-timing']}`);
      });

      for (const path of ['/', '/optionx', '/option/', '/%6Fption', '/Option', '/option.json', '/asset/999']) {
        it(`404 for ${path}`, T, async () => {
          const res = await request(lab, id, `${path}?size=1`);
          await assertJsonError(res, 404);
          assertCommonHeaders(res, id, lab);
        });
      }

      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
        it(`405 for ${method} /option`, T, async () => {
          const res = await request(lab, id, '/option?size=1', { method });
          const body = await assertJsonError(res, 405);
          assert.ok(body.error.includes(method), body.error);
          assert.ok(res.headers.allow?.split(/,\s*/).includes('GET'), `allow: ${res.headers.allow}`);
          assert.ok(res.headers.allow.split(/,\s*/).includes('HEAD'), `allow: ${res.headers.allow}`);
          assertCommonHeaders(res, id, lab);
        });
      }
    });
  }

  for (const id of ids) {
    it(`${id}: bodies over 1 MiB arrive complete (size=1.5, size=2.25)`, T, async () => {
      for (const size of [1.5, 2.25]) {
        const res = await getBody(lab, id, `/option?size=${size}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-length'], String(Math.floor(size * MiB)));
        assert.equal(res.body.length, Math.floor(size * MiB), `size=${size}`);
      }
    });
  }

  it('size=64 exactly is accepted (HEAD on h2-node): content-length 67108864', T, async () => {
    const res = await request(lab, 'h2-node', '/option?size=64', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], String(64 * MiB));
    assert.equal(res.body.length, 0);
  });

  it('delay=60000 exactly is accepted: the request waits (aborted here after 200 ms)', T, async () => {
    const session = await h2Connect(lab, 'h2-node');
    try {
      const stream = session.request({ ':method': 'GET', ':path': '/option?size=0&delay=60000' });
      stream.on('error', () => {});
      let answered = false;
      stream.on('response', () => (answered = true));
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(answered, false, 'no 400: the delay is being waited');
      stream.close();
    } finally {
      session.destroy();
    }
  });

  // A small property-style loop: random strings over the characters that matter. The oracle is
  // the spec, not the code: accepted iff digits with at most one dot (at least one digit) and <= 64.
  it('random size values: 200 with floor(size × MiB) or a 400 naming size, never anything else', T, async () => {
    let seed = 0x2f6b1a3d;
    const rand = (n) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const pieces = ['0', '1', '6', '4', '9', '.', '.', '-', '+', 'e', 'x', ' ', '%', '&', '=', '[', '6', '5', '00'];
    const values = Array.from({ length: 60 }, () => Array.from({ length: 1 + rand(6) }, () => pieces[rand(pieces.length)]).join(''));
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    const sessions = { 'h2-spdy': await h2Connect(lab, 'h2-spdy'), 'h2-node': await h2Connect(lab, 'h2-node') };
    try {
      for (const value of values) {
        const path = `/option?size=${encodeURIComponent(value)}&cb=${rand(1e6)}`;
        const ok = /^\d*\.?\d*$/.test(value) && /\d/.test(value) && Number(value) <= 64;
        for (const id of ids) {
          const res =
            isH1(id) ? await h1Request(lab, path, { method: 'HEAD', agent }) : await h2Request(sessions[id], path, { method: 'HEAD' });
          const where = `${id} size=${JSON.stringify(value)}`;
          if (ok) {
            assert.equal(res.status, 200, where);
            assert.equal(res.headers['content-length'], String(Math.floor(Number(value) * MiB)), where);
          } else {
            assert.equal(res.status, 400, where);
            assert.equal(res.headers['content-type'], 'application/json', where);
          }
        }
      }
    } finally {
      agent.destroy();
      for (const s of Object.values(sessions)) s.close();
    }
  });

  describe('raw sockets', () => {
    it('h1: a malformed request line gets a JSON 400, and the server still serves', T, async () => {
      const got = await rawTls(lab, 'h1', { alpn: ['http/1.1'], write: 'GARBAGE\r\n\r\n' });
      assert.equal(got.alpnProtocol, 'http/1.1');
      const res = parseRawResponse(got.data);
      assert.match(res.statusLine, /^HTTP\/1\.1 400 /);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(typeof JSON.parse(res.body).error, 'string');
      const followUp = await h1Request(lab, '/option?size=0.1');
      assert.equal(followUp.status, 200);
      assert.equal(followUp.body.length, Math.floor(0.1 * MiB));
    });

    it('h1: conflicting Content-Length and Transfer-Encoding gets a JSON 400', T, async () => {
      const got = await rawTls(lab, 'h1', {
        alpn: ['http/1.1'],
        write: 'GET /option HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      });
      const res = parseRawResponse(got.data);
      assert.match(res.statusLine, /^HTTP\/1\.1 400 /);
      assert.equal(typeof JSON.parse(res.body).error, 'string');
    });

    it('h1: headers over the limit get a JSON 431', T, async () => {
      const got = await rawTls(lab, 'h1', {
        alpn: ['http/1.1'],
        write: `GET /option HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
      });
      const res = parseRawResponse(got.data);
      assert.match(res.statusLine, /^HTTP\/1\.1 431 /);
      assert.equal(typeof JSON.parse(res.body).error, 'string');
    });

    it('h1: ALPN offering only h2 fails the handshake', T, async () => {
      const got = await rawTls(lab, 'h1', { alpn: ['h2'], write: 'GET /option HTTP/1.1\r\nHost: localhost\r\n\r\n' });
      assert.equal(got.how, 'error');
      assert.equal(got.data, '');
    });

    for (const id of h2Ids) {
      it(`${id}: ALPN offering only http/1.1 fails the handshake, no response`, T, async () => {
        const got = await rawTls(lab, id, { alpn: ['http/1.1'], write: 'GET /option HTTP/1.1\r\nHost: localhost\r\n\r\n' });
        assert.equal(got.how, 'error', `handshake should fail, got ${got.how} ${JSON.stringify(got.data.slice(0, 100))}`);
        assert.ok(got.error, 'an error');
        assert.equal(got.secure, false, 'never became a secure connection');
        assert.equal(got.data, '');
      });

      it(`${id}: no ALPN + an HTTP/1.1 request gets HTTP/1.1 505 with a JSON body mentioning HTTP/2`, T, async () => {
        const got = await rawTls(lab, id, { write: 'GET /option HTTP/1.1\r\nHost: localhost\r\n\r\n' });
        assert.equal(got.alpnProtocol, false);
        const res = parseRawResponse(got.data);
        assert.match(res.statusLine, /^HTTP\/1\.1 505 /);
        assert.equal(res.headers['content-type'], 'application/json');
        assert.equal(res.headers['x-server'], id);
        assert.ok(res.headers['access-control-allow-origin'], 'CORS on the raw error too');
        assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
        assert.match(JSON.parse(res.body).error, /HTTP\/2/);
      });

      it(`${id}: h2 negotiated but garbage sent: the server survives`, T, async () => {
        const got = await rawTls(lab, id, { alpn: ['h2'], write: 'GARBAGE\r\n\r\n', waitMs: 500 });
        assert.equal(got.alpnProtocol, 'h2');
        assert.ok(!got.data.startsWith('HTTP/1.1 200'), 'no HTTP/1.1 success');
        const followUp = await request(lab, id, '/option?size=0.1');
        assert.equal(followUp.status, 200);
      });
    }
  });

  describe('edges found while writing these tests', () => {
    it('h1: an HTTP/1.1 request without Host gets the JSON 400 too', T, async () => {
      const got = await rawTls(lab, 'h1', { alpn: ['http/1.1'], write: 'GET /option HTTP/1.1\r\nConnection: close\r\n\r\n' });
      const res = parseRawResponse(got.data);
      assert.match(res.statusLine, /^HTTP\/1\.1 400 /);
      assert.equal(res.headers['content-type'], 'application/json');
    });

    it('h2-spdy: the 405 message names an unknown method', T, async () => {
      const session = await h2Connect(lab, 'h2-spdy');
      try {
        const res = await h2Request(session, '/option', { method: 'FOO' });
        assert.equal(res.status, 405);
        assert.match(JSON.parse(res.body.toString()).error, /"FOO"/);
      } finally {
        session.close();
      }
    });

    it('h2-spdy: no ALPN + a malformed request still gets the JSON 505', T, async () => {
      const got = await rawTls(lab, 'h2-spdy', { write: 'GARBAGE\r\n\r\n' });
      const res = parseRawResponse(got.data);
      assert.match(res.statusLine, /^HTTP\/1\.1 505 /);
      assert.match(JSON.parse(res.body).error, /HTTP\/2/);
    });
  });

  it('after all of the above every server still answers /option?size=0.1, counters intact', T, async () => {
    const statsBefore = await stats(lab);
    for (const id of ids) {
      const res = await request(lab, id, '/option?size=0.1');
      assert.equal(res.status, 200, id);
      assert.equal(res.body.length, Math.floor(0.1 * MiB), id);
      assert.equal(res.headers['content-length'], String(Math.floor(0.1 * MiB)), id);
      assertCommonHeaders(res, id, lab);
    }
    const statsAfter = await stats(lab);
    for (const id of ids) {
      assert.equal(statsAfter[id].requests - statsBefore[id].requests, 1, `${id} requests counted once`);
      assert.equal(statsAfter[id].bytesSent - statsBefore[id].bytesSent, Math.floor(0.1 * MiB), `${id} bytes counted`);
    }
  });
});

describe('/option input rules, configured limits (maxSizeMiB 2, maxDelayMs 100)', () => {
  let lab;
  before(async () => {
    lab = await startTestLab({ maxSizeMiB: 2, maxDelayMs: 100 });
  });
  after(() => lab?.close());

  for (const id of ids) {
    it(`${id}: size=3 → 400 mentioning 2; delay=101 → 400 mentioning 100`, T, async () => {
      const size = await request(lab, id, '/option?size=3');
      const sizeBody = await assertJsonError(size, 400, { param: 'size', mentions: ['2'] });
      assert.ok(!sizeBody.error.includes('64'), `old bound gone: ${sizeBody.error}`);
      await assertJsonError(await request(lab, id, '/option?size=2.0001'), 400, { param: 'size', mentions: ['2'] });
      const delay = await request(lab, id, '/option?delay=101');
      const delayBody = await assertJsonError(delay, 400, { param: 'delay', mentions: ['100'] });
      assert.ok(!delayBody.error.includes('60,000'), `old bound gone: ${delayBody.error}`);
    });

    it(`${id}: the bounds themselves pass: size=2&delay=100 → 2 MiB`, T, async () => {
      const ok = await getBody(lab, id, '/option?size=2&delay=100');
      assert.equal(ok.status, 200);
      assert.equal(ok.body.length, 2 * MiB);
    });
  }
});
