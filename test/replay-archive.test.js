// A HAR read into the replay's archive, the matching of requests to it, and the responses it
// makes: from HARs the tests write (test/fixtures/har.js), in the shapes exporters give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { protocolOf, readHar, readHarFile } from '../server/replay/archive.js';
import { createMatcher } from '../server/replay/match.js';
import { accepted, chooseEncoding, replayResponse } from '../server/replay/response.js';
import { thinkTimes } from '../server/replay/handler.js';
import { har, harEntry } from './fixtures/har.js';

test('each exporter\'s spelling of a protocol is read as one', () => {
  assert.deepEqual(['HTTP/2.0', 'http/2.0', 'h2', 'HTTP/2'].map(protocolOf), ['h2', 'h2', 'h2', 'h2']);
  assert.deepEqual(['h3', 'HTTP/3', 'h3-29', 'QUIC'].map(protocolOf), ['h3', 'h3', 'h3', 'h3']);
  assert.deepEqual(['HTTP/1.1', 'http/1.0', '', 'spdy/3'].map(protocolOf), ['h1', 'h1', null, null]);
});

test('a HAR is read per origin, bodies decoded, what cannot be replayed counted by reason', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
  const archive = readHar(har([
    harEntry('https://a.example/', { body: '<p>hi</p>' }),
    harEntry('https://cdn.example:8443/i.png', { body: png, mimeType: 'image/png', startMs: 40, initiator: { type: 'parser', url: 'https://a.example/' } }),
    harEntry('https://a.example/app.js', { body: null, size: 1234, mimeType: 'application/javascript', initiator: 'https://a.example/' }),
    harEntry('https://a.example/app.js', { body: 'x' }),
    harEntry('https://a.example/old', { status: 301, headers: [['location', '/']] }),
    harEntry('data:image/png;base64,AAAA'),
    harEntry('http://plain.example/'),
    harEntry('https://a.example/blocked', { status: 0 }),
  ], 'https://a.example/'), 'test.har');
  assert.deepEqual([...archive.byOrigin.keys()], ['https://a.example', 'https://cdn.example:8443']);
  assert.equal(archive.exchanges.length, 5);
  const image = archive.exchanges[1];
  assert.deepEqual(image.body, png);
  assert.equal(image.startMs, 40);
  assert.equal(image.initiator, 'https://a.example/');
  assert.equal(image.protocol, 'h2');
  assert.equal(archive.exchanges[2].body, null);
  assert.equal(archive.exchanges[2].size, 1234);
  assert.equal(archive.exchanges[2].initiator, 'https://a.example/');
  assert.deepEqual(archive.counts, { duplicates: 1, redirects: 1, withoutBody: 1, truncated: 0 });
  assert.deepEqual(Object.values(archive.skipped), [1, 1, 1]);
  assert.match(Object.keys(archive.skipped).join(' | '), /data: URLs.*http: URLs.*status 0/);
  assert.equal(archive.pageUrl, 'https://a.example/');
});

test('a HAR that is not one, or records a lab name or this machine, is refused in one line naming the entry', () => {
  const refusals = [
    [{ nope: 1 }, /not a HAR: it has no log.entries/],
    [{ log: { version: '2.0', entries: [] } }, /HAR "2.0"; the lab reads HAR 1.2/],
    [har([harEntry('https://a.example/'), harEntry('https://localhost:8443/x')]), /entry 1: https:\/\/localhost:8443 is this machine/],
    [har([harEntry('https://h2lab.test/option')]), /entry 0: https:\/\/h2lab.test is a name of the lab/],
    [har([harEntry('https://127.0.0.1/')]), /is this machine/],
    [har([{ request: {} }]), /entry 0 has no request.url or no response/],
  ];
  for (const [value, message] of refusals) {
    assert.throws(() => readHar(value, 'x.har'), (err) => err.code === 'invalid-field' && err.field === '--har' && message.test(err.message) && !err.message.includes('\n'));
  }
});

test('a HAR file that is not JSON, or is over the bound, is refused with the file named', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-har-'));
  try {
    const bad = path.join(dir, 'bad.har');
    fs.writeFileSync(bad, '{"log": ');
    assert.throws(() => readHarFile(bad), /--har: .*bad\.har is not JSON/);
    assert.throws(() => readHarFile(path.join(dir, 'missing.har')), /--har: cannot read .*missing\.har \(ENOENT\)/);
    const good = path.join(dir, 'good.har');
    fs.writeFileSync(good, JSON.stringify(har([harEntry('https://a.example/')])));
    assert.equal(readHarFile(good).exchanges.length, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('requests match as Web Page Replay matches: exact URL, then the best query on the same path, else a miss', () => {
  const { exchanges } = readHar(har([
    harEntry('https://a.example/search?q=cats&page=2&t=1', { body: 'exact' }),
    harEntry('https://a.example/search?q=cats&page=3', { body: 'two params' }),
    harEntry('https://a.example/search?q=dogs', { body: 'one param' }),
    harEntry('https://a.example/api', { method: 'POST', body: 'post' }),
    harEntry('https://b.example/search?q=cats', { body: 'other origin' }),
  ]));
  const matcher = createMatcher(exchanges);
  const body = (url, method = 'GET') => {
    const m = matcher.match({ method, url, headers: [] });
    return m.exchange ? `${m.how}: ${m.exchange.body.toString()}` : m.how;
  };
  assert.equal(body('https://a.example/search?q=cats&page=2&t=1'), 'exact: exact');
  assert.equal(body('https://a.example/search?q=cats&page=3&t=9'), 'query: two params');
  assert.equal(body('https://a.example/search?q=dogs&x=1'), 'query: one param');
  assert.equal(body('https://a.example/api', 'POST'), 'exact: post');
  assert.equal(body('https://a.example/api'), 'miss', 'a GET is not a recorded POST');
  assert.equal(body('https://a.example/nothing'), 'miss');
  assert.equal(body('https://c.example/search?q=cats'), 'miss', 'an origin not recorded');
  assert.equal(body('https://a.example/search?q=cats&page=2&t=1#frag'), 'exact: exact');
});

test('one URL recorded twice is answered in the recorded order, and headers decide between candidates', () => {
  const { exchanges } = readHar(har([
    harEntry('https://a.example/poll', { body: 'first' }),
    harEntry('https://a.example/poll', { body: 'second' }),
    harEntry('https://a.example/lang', { body: 'en', requestHeaders: [['x-lang', 'en']] }),
    harEntry('https://a.example/lang', { body: 'fr', requestHeaders: [['x-lang', 'fr']] }),
  ]));
  const matcher = createMatcher(exchanges);
  const get = (url, headers = []) => matcher.match({ method: 'GET', url, headers }).exchange?.body.toString();
  assert.deepEqual([get('https://a.example/poll'), get('https://a.example/poll'), get('https://a.example/poll')], ['first', 'second', 'first']);
  assert.equal(get('https://a.example/lang', [['x-lang', 'fr']]), 'fr');
  assert.equal(get('https://a.example/lang', [['x-lang', 'en'], ['user-agent', 'whatever']]), 'en');
});

test('a replayed response keeps the recorded status and headers, minus the connection\'s and what would leave the replay, encoded as accepted', () => {
  const text = 'body '.repeat(2000);
  const [exchange] = readHar(har([harEntry('https://a.example/app.js', {
    body: text,
    mimeType: 'application/javascript',
    headers: [['content-encoding', 'gzip'], ['content-length', '99'], ['connection', 'keep-alive'], ['alt-svc', 'h3=":443"'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['cache-control', 'max-age=60'], ['nel', '{}'], ['date', 'Mon, 01 Jan 2024 00:00:00 GMT']],
  })])).exchanges;
  const now = new Date(Date.UTC(2026, 10, 28, 12));
  const r = replayResponse(exchange, exchange.body, 'gzip, deflate, br, zstd', now);
  assert.equal(r.status, 200);
  assert.equal(r.encoding, 'gzip');
  assert.equal(zlib.gunzipSync(r.body).toString(), text);
  assert.deepEqual(r.headers, { 'content-type': 'application/javascript', 'set-cookie': ['a=1', 'b=2'], 'cache-control': 'max-age=60', 'content-encoding': 'gzip', 'content-length': String(r.body.length), date: now.toUTCString() });
  const identity = replayResponse(exchange, exchange.body, 'identity', now);
  assert.equal(identity.body.toString(), text);
  assert.equal(identity.headers['content-encoding'], undefined);
  assert.equal(identity.standIn, true);
  assert.deepEqual(chooseEncoding('zstd', accepted('gzip, br, zstd')), { encoding: 'br', standIn: true });
  assert.deepEqual(chooseEncoding('br', accepted('gzip;q=1, br;q=0')), { encoding: 'gzip', standIn: true });
  assert.deepEqual(chooseEncoding('', accepted('gzip')), { encoding: '', standIn: false });
});

test('the recorded think time is the wait for the first byte less the origin\'s round trip', () => {
  const archive = readHar(har([
    harEntry('https://a.example/', { wait: 130, connect: 90, ssl: 50 }), // a 40 ms handshake: 90 ms of thinking
    harEntry('https://a.example/fast', { wait: 41 }),
    harEntry('https://a.example/slow', { wait: 20 }), // quicker than a round trip: no thinking
    harEntry('https://b.example/x', { wait: 75 }), // no handshake recorded: its quickest answer thought for nothing
    harEntry('https://b.example/y', { wait: 25 }),
  ]));
  const think = thinkTimes(archive);
  assert.deepEqual(archive.exchanges.map((e) => think.get(e)), [90, 1, 0, 50, 0]);
});
