// The replay behind the lab's real servers: each serves a recorded origin under its own name,
// over its own protocol, as the lab's handler would be served (server/replay/handler.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { readHar } from '../server/replay/archive.js';
import { createReplayHandler } from '../server/replay/handler.js';
import { reusedConnections } from '../runner/replay/as-served.js';
import { har, harEntry } from './fixtures/har.js';
import { h1Request, h2Connect, h2Request, ids, isH1, startTestLab } from './helpers/lab.js';

const script = 'console.log("from the cdn");'.repeat(200);
const archive = readHar(har([
  harEntry('https://www.example/', { body: '<!doctype html><script src="https://cdn.example/app.js"></script>' }),
  harEntry('https://cdn.example/app.js', { body: script, mimeType: 'application/javascript', headers: [['content-encoding', 'br'], ['cache-control', 'max-age=600'], ['alt-svc', 'h3=":443"']] }),
  harEntry('https://cdn.example:8443/font.woff2', { body: Buffer.from([0x77, 0x4f, 0x46, 0x32, 0, 0, 1, 2]), mimeType: 'font/woff2' }),
]));

/** @type {Record<string, ReturnType<typeof createReplayHandler>>} */
const replays = Object.fromEntries(ids.map((id) => [id, createReplayHandler({ serverId: id, archive })]));
let lab;
before(async () => {
  lab = await startTestLab({}, { handlerFor: (id, shared) => replays[id] ?? shared });
});
after(() => lab?.close());

/** A GET for `host` (the :authority or Host) and `path`, on server `id`. */
async function get(id, host, path, headers = {}) {
  if (isH1(id)) return h1Request(lab, path, { id, headers: { host, ...headers }, servername: 'localhost' });
  const session = await h2Connect(lab, id);
  try {
    return await h2Request(session, path, { headers: { ':authority': host, ...headers } });
  } finally {
    session.close();
  }
}

for (const id of ids) {
  test(`${id} serves each recorded origin by its name, encoded as the request accepts, and counts what it missed`, async () => {
    const page = await get(id, 'www.example', '/');
    assert.equal(page.status, 200);
    assert.match(page.body.toString(), /cdn\.example\/app\.js/);
    const js = await get(id, 'cdn.example', '/app.js', { 'accept-encoding': 'gzip, br' });
    assert.equal(js.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(js.body).toString(), script);
    assert.equal(js.headers['cache-control'], 'max-age=600');
    assert.equal(js.headers['alt-svc'], undefined, 'the real site\'s HTTP/3 is not announced');
    const plain = await get(id, 'cdn.example', '/app.js');
    assert.equal(plain.body.toString(), script, 'identity where nothing else is accepted');
    const font = await get(id, 'cdn.example:8443', '/font.woff2');
    assert.deepEqual([...font.body], [0x77, 0x4f, 0x46, 0x32, 0, 0, 1, 2]);
    const missed = await get(id, 'other.example', '/');
    assert.equal(missed.status, 404);
    assert.equal(JSON.parse(missed.body.toString()).code, 'replay-miss');
    const wrongPort = await get(id, 'cdn.example', '/font.woff2');
    assert.equal(wrongPort.status, 404, 'an origin is its host and port');
    const r = replays[id].replay;
    assert.deepEqual({ requests: r.requests, served: r.served, misses: r.misses, standIns: r.standIns }, { requests: 6, served: { exact: 4, query: 0 }, misses: 2, standIns: 1 });
    assert.deepEqual(r.missed, ['GET https://other.example/', 'GET https://cdn.example/font.woff2']);
    // Each request as the server saw it: its origin, connection and the body it sent (none for a
    // miss). Each HTTP/2 request above had a session of its own; an HTTP/1.1 request may reuse the
    // agent's kept-alive connection.
    const gets = { 'https://www.example': 1, 'https://cdn.example': 3, 'https://cdn.example:8443': 1, 'https://other.example': 1 };
    /** @type {Record<string, Set<number>>} */
    const counted = {};
    for (const a of r.arrivals) (counted[a.origin] ??= new Set()).add(a.connectionId);
    assert.deepEqual(Object.keys(counted).sort(), Object.keys(gets).sort());
    for (const [origin, n] of Object.entries(gets)) assert.ok(isH1(id) ? counted[origin].size >= 1 && counted[origin].size <= n : counted[origin].size === n, `${origin}: ${counted[origin].size}`);
    assert.deepEqual(r.arrivals.map((a) => a.bytes), [page.body.length, js.body.length, plain.body.length, font.body.length, null, null]);
    if (!isH1(id)) assert.equal(reusedConnections(r.arrivals, 3), 0, 'a session each');
  });
}
