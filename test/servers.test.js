// The Node servers against real TLS clients (the Caddy family's: caddy.test.js): protocol, bytes, delay, headers, connections.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { codeOf, h1Request, h2Connect, h2Ids, h2Request, ids, request, startTestLab, stats } from './helpers/lab.js';
import { assetUrlsIn } from '../common/setup/page.js';

import { servers } from '../common/setup/servers.js';
import { MiB } from '../common/setup/units.js';
let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab.close());

test('each server negotiates the protocol it promises', async () => {
  assert.equal((await h1Request(lab, '/option')).alpn, 'http/1.1');
  for (const id of h2Ids) {
    const session = await h2Connect(lab, id);
    assert.equal(session.alpnProtocol, 'h2', id);
    session.close();
  }
  assert.deepEqual(
    lab.describe().servers.map((s) => [s.id, s.protocol]),
    servers.filter((s) => ids.includes(s.id)).map((s) => [s.id, s.protocol]),
  );
});

for (const id of ids) {
  test(`${id}: exact byte counts for 0, 0.1, 1 and 2.5 MiB (several payload chunks), GET and HEAD`, async () => {
    for (const sizeMiB of [0, 0.1, 1, 2.5]) {
      const bytes = Math.floor(sizeMiB * MiB);
      const res = await request(lab, id, `/option?size=${sizeMiB}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.length, bytes, `${id} size=${sizeMiB}`);
      assert.equal(res.headers['content-length'], String(bytes));
      const head = await request(lab, id, `/option?size=${sizeMiB}`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      assert.equal(head.headers['content-length'], String(bytes));
    }
  });

  test(`${id}: the delay is honoured and reported in server-timing`, async () => {
    const started = performance.now();
    const res = await request(lab, id, '/option?size=0.01&delay=120');
    const elapsed = performance.now() - started;
    const dur = Number(/delay;dur=([\d.]+)/.exec(res.headers['server-timing'])[1]);
    assert.ok(dur >= 120, `server waited ${dur} ms`);
    assert.ok(elapsed >= 120, `client saw ${elapsed} ms`);
  });

  test(`${id}: every /option response carries the lab's headers`, async () => {
    const origin = lab.uiOrigin;
    const res = await request(lab, id, '/option?size=0.001', { headers: { origin } });
    const h = res.headers;
    assert.equal(h['content-type'], 'application/octet-stream');
    assert.equal(h['content-length'], '1048');
    assert.equal(h['cache-control'], 'no-store');
    assert.equal(h['access-control-allow-origin'], origin);
    assert.equal(h['timing-allow-origin'], origin);
    for (const name of ['x-server', 'x-connection-id', 'x-client-port', 'server-timing']) {
      assert.match(h['access-control-expose-headers'], new RegExp(name));
    }
    assert.equal(h['x-server'], id);
    assert.match(h['x-connection-id'], /^[1-9]\d*$/);
    assert.match(h['x-client-port'], /^[1-9]\d*$/, 'the browser side of the connection, as the server saw it');
    assert.match(h['server-timing'], /^delay;dur=\d+\.\d{3}$/);
    assert.ok(h.date, 'date');
    // A stranger's origin gets the UI origin back, never a reflection of itself.
    const other = await request(lab, id, '/option', { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers['access-control-allow-origin'], lab.uiOrigin);
  });
}

test('the three servers send the same header names on /option', async () => {
  const names = [];
  for (const id of ids) {
    const res = await request(lab, id, '/option?size=0.001');
    // Connection management headers exist only in HTTP/1.1's framing.
    names.push(Object.keys(res.headers).filter((n) => !n.startsWith(':') && !['connection', 'keep-alive'].includes(n)).sort());
  }
  assert.deepEqual(names[1], names[0]);
  assert.deepEqual(names[2], names[0]);
});

test('six parallel HTTP/1.1 requests open six connections; twenty HTTP/2 requests share one', async () => {
  await lab.reset();
  const statsBefore = await stats(lab);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 6, ca: lab.certs.ca });
  const h1 = await Promise.all(Array.from({ length: 6 }, () => h1Request(lab, '/option?size=0.01&delay=100', { agent })));
  assert.equal(new Set(h1.map((r) => r.headers['x-connection-id'])).size, 6);

  const sessions = {};
  for (const id of h2Ids) {
    sessions[id] = await h2Connect(lab, id);
    const res = await Promise.all(Array.from({ length: 20 }, () => h2Request(sessions[id], '/option?size=0.01&delay=50')));
    assert.equal(new Set(res.map((r) => r.headers['x-connection-id'])).size, 1, id);
  }
  const during = await stats(lab);
  assert.equal(during.h1.totalConnections - statsBefore.h1.totalConnections, 6);
  assert.equal(during.h1.openConnections, 6);
  for (const id of h2Ids) {
    assert.equal(during[id].totalConnections - statsBefore[id].totalConnections, 1, id);
    assert.equal(during[id].openConnections, 1, id);
    assert.equal(during[id].requests - statsBefore[id].requests, 20, id);
  }

  const res = await fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/reset`, { method: 'POST' });
  const reset = await res.json();
  // Six for each HTTP/1.1 server's agent (h1 only here), one per HTTP/2 server.
  const expected = ids.map((id) => (id === 'h1' ? 6 : h2Ids.includes(id) ? 1 : 0));
  assert.deepEqual(reset.servers.map((s) => s.closed), expected);
  assert.equal(reset.closed, expected.reduce((a, b) => a + b, 0));
  const statsAfter = await stats(lab);
  for (const id of ids) assert.equal(statsAfter[id].openConnections, 0, id);
  agent.destroy();
  for (const s of Object.values(sessions)) s.destroy();
});

test('bytes sent and request counts add up', async () => {
  const statsBefore = await stats(lab);
  await request(lab, 'h2-node', '/option?size=0.5');
  await request(lab, 'h2-node', '/option?size=0.5', { method: 'HEAD' });
  const statsAfter = await stats(lab);
  assert.equal(statsAfter['h2-node'].requests - statsBefore['h2-node'].requests, 2);
  assert.equal(statsAfter['h2-node'].bytesSent - statsBefore['h2-node'].bytesSent, 0.5 * MiB);
});

test('the control API answers 404 and 405 in JSON', async () => {
  const ui = lab.uiOrigin.replace('localhost', '127.0.0.1');
  const notFound = await fetch(`${ui}/api/nothing`);
  assert.equal(notFound.status, 404);
  assert.deepEqual(await codeOf(notFound), { code: 'not-found', field: null });
  const wrongMethod = await fetch(`${ui}/api/reset`);
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'POST');
  assert.deepEqual(await codeOf(wrongMethod), { code: 'method-not-allowed', field: null });
  const noPacket = await fetch(`${ui}/api/networks/packet`);
  assert.equal(noPacket.status, 404);
  assert.deepEqual(await codeOf(noPacket), { code: 'network-not-in-lab', field: null });
  // Only a network that sees packets captures a run: the link refuses, naming why.
  const linkCapture = await fetch(`${ui}/api/networks/link/capture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"run"}' });
  assert.equal(linkCapture.status, 400);
  assert.deepEqual(await codeOf(linkCapture), { code: 'no-packets', field: 'network' });
  const foreign = await fetch(`${ui}/api/reset`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } });
  assert.equal(foreign.status, 403);
  assert.deepEqual(await codeOf(foreign), { code: 'not-lab-page', field: null });
  const described = await (await fetch(`${ui}/api/servers`)).json();
  assert.deepEqual(described.limits, { maxSizeMiB: 64, maxDelayMs: 60000, maxStreams: 100, maxAssets: 50 });
  assert.equal(described.certificate.spkiSha256, lab.certs.spkiSha256);
  for (const s of described.servers) assert.ok(s.port > 0 && s.origin.endsWith(`:${s.port}`));
});

test('POST /api/reset refuses a page from another site', async () => {
  const ui = lab.uiOrigin.replace('localhost', '127.0.0.1');
  const res = await fetch(`${ui}/api/reset`, { method: 'POST', headers: { origin: 'https://evil.example' } });
  assert.equal(res.status, 403);
  const own = await fetch(`${ui}/api/reset`, { method: 'POST', headers: { origin: lab.uiOrigin } });
  assert.equal(own.status, 200);
  // The UI under another name the certificate covers is still the lab's page; a foreign host on
  // Vite's port is not.
  const ownByAddress = await fetch(`${ui}/api/reset`, { method: 'POST', headers: { origin: ui } });
  assert.equal(ownByAddress.status, 200);
  const foreignVite = await fetch(`${ui}/api/reset`, { method: 'POST', headers: { origin: 'http://evil.example:5173' } });
  assert.equal(foreignVite.status, 403);
});

test('tiny sizes give asset URLs in plain decimals that the server accepts', async () => {
  const session = await h2Connect(lab, 'h2-node');
  const page = await h2Request(session, '/page?assets=1&size=0.0000001');
  const [url] = assetUrlsIn(page.body.toString());
  assert.match(url, /size=0\.0000001&/);
  assert.equal((await h2Request(session, url)).status, 200);
  session.close();
});
