// The UI origin (plain HTTP): it answers only to the lab's own names, so a page that rebinds its
// name to this address cannot read /api/*; it forbids framing and sniffing, keeps API answers out
// of caches, and says which methods a route allows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestLab } from './helpers/lab.js';

let lab;
let port;
before(async () => {
  lab = await startTestLab();
  port = Number(new URL(lab.uiOrigin).port);
});
after(() => lab?.close());

function get(path, { host, method = 'GET' } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers: host === undefined ? {} : { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a foreign Host gets 421 with JSON, on the API and the page alike', async () => {
  for (const path of ['/api/servers', '/api/stats', '/']) {
    const res = await get(path, { host: `evil.example:${port}` });
    assert.equal(res.status, 421, path);
    const { code, field } = JSON.parse(res.body);
    assert.deepEqual({ code, field }, { code: 'not-lab-host', field: null }, path);
  }
});

test("the lab's own names are served", async () => {
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) assert.equal((await get('/api/servers', { host })).status, 200, host);
});

test('no sniffing, no framing, API answers not cached', async () => {
  const page = await get('/', { host: `localhost:${port}` });
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.equal(page.headers['content-security-policy'], "frame-ancestors 'none'");
  const api = await get('/api/stats', { host: `localhost:${port}` });
  assert.equal(api.headers['cache-control'], 'no-store');
});

test('a 405 names the allowed methods', async () => {
  const reset = await get('/api/reset', { host: `localhost:${port}` });
  assert.equal(reset.status, 405);
  assert.equal(reset.headers.allow, 'POST');
  const servers = await get('/api/servers', { host: `localhost:${port}`, method: 'DELETE' });
  assert.equal(servers.headers.allow, 'GET, HEAD');
});

test('a cross-site request cannot reset the servers, even without an Origin header', async () => {
  const res = await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/reset', method: 'POST', headers: { host: `localhost:${port}`, 'sec-fetch-site': 'cross-site' } }, (r) => {
      r.resume();
      r.on('end', () => resolve(r));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(res.statusCode, 403);
});
