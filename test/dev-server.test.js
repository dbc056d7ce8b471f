// Vite's dev server (`npm run dev`) is one of the lab's own origins only while it runs: it
// announces itself to the lab's UI and holds that request open (server/dev-announce.js), so that
// another project's dev server on the same port (5173 is every Vite's default) can neither read
// the test servers' responses nor reset the lab. A real Vite dev server from vite.config.js, on a
// free port, announces itself whichever of the two starts first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { startVite } from './helpers/vite.js';
import { viteDevPort } from '../server/config.js';
import { freePort as freePortOn } from '../server/fronts/ports.js';
import { h1Request, h2Connect, h2Request, startTestLab } from './helpers/lab.js';

const freePort = () => freePortOn(0, '127.0.0.1');

// The announcement goes out as Vite starts listening (milliseconds); a retry is 500 ms away.
const announcedWithinMs = 5_000;

const uiUrl = (lab, path) => `${lab.uiOrigin.replace('localhost', '127.0.0.1')}${path}`;
const resetFrom = async (lab, origin) => (await fetch(uiUrl(lab, '/api/reset'), { method: 'POST', headers: { origin } })).status;

/** Polls `check` until it returns `want` or timeoutMs passes; returns the last value. */
async function until(check, want, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value === want || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the lab makes of `origin`: may it reset, may it read h1's and h2-node's responses, is its Host served. */
async function trustOf(lab, origin) {
  const h1 = await h1Request(lab, '/option?size=0', { headers: { origin }, agent: false }); // resets close pooled sockets
  const session = await h2Connect(lab, 'h2-node');
  const h2 = await h2Request(session, '/option?size=0', { headers: { origin } });
  session.close();
  const host = await new Promise((resolve, reject) => {
    const { port } = new URL(lab.uiOrigin);
    http.get({ host: '127.0.0.1', port, path: '/api/servers', headers: { host: new URL(origin).host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
  return {
    reset: await resetFrom(lab, origin),
    h1: h1.headers['access-control-allow-origin'] === origin,
    h2: h2.headers['access-control-allow-origin'] === origin,
    host,
  };
}

test("the dev server's origin is the lab's own only while the dev server runs", async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const devPort = await freePort();
  const origin = `http://localhost:${devPort}`;
  assert.deepEqual(await trustOf(lab, origin), { reset: 403, h1: false, h2: false, host: 421 }, 'before npm run dev');
  // Vite's default port is nobody's until a dev server announces it (whatever listens there now).
  assert.deepEqual(await trustOf(lab, `http://localhost:${viteDevPort}`), { reset: 403, h1: false, h2: false, host: 421 }, `${viteDevPort}, unannounced`);

  const vite = await startVite(devPort, new URL(lab.uiOrigin).port);
  t.after(() => vite.close());
  assert.equal(await until(() => resetFrom(lab, origin), 200, announcedWithinMs), 200, 'announced');
  assert.deepEqual(await trustOf(lab, origin), { reset: 200, h1: true, h2: true, host: 200 }, 'while it runs');
  assert.equal((await trustOf(lab, `http://127.0.0.1:${devPort}`)).reset, 200, 'under each of the lab names');
  // The page's API calls go through Vite's proxy, which forwards the dev server's Host.
  assert.equal((await fetch(`${origin.replace('localhost', '127.0.0.1')}/api/servers`)).status, 200);

  await vite.close();
  assert.equal(await until(() => resetFrom(lab, origin), 403, 2_000), 403, 'withdrawn when it stops');
  assert.deepEqual(await trustOf(lab, origin), { reset: 403, h1: false, h2: false, host: 421 }, 'after it stopped');
});

test('a dev server started before the lab announces itself once the lab is up, and again after a restart', async (t) => {
  const [devPort, uiPort] = [await freePort(), await freePort()];
  const origin = `http://localhost:${devPort}`;
  const vite = await startVite(devPort, uiPort);
  t.after(() => vite.close());
  for (const round of ['first start', 'restart']) {
    const lab = await startTestLab({ uiPort });
    try {
      assert.equal(await until(() => resetFrom(lab, origin), 200, announcedWithinMs), 200, round);
    } finally {
      await lab.close();
    }
  }
});

test('only a process can announce a dev server, not a page, and each announcement holds its own', async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  // Something must listen on an announced port (the lab checks): a stand-in for the dev server.
  const devServer = net.createServer().listen(0, '127.0.0.1');
  t.after(() => devServer.close());
  await once(devServer, 'listening');
  const devPort = devServer.address().port;
  const origin = `http://localhost:${devPort}`;
  const announce = (headers = {}, port = devPort) => new Promise((resolve, reject) => {
    const { port: uiPort } = new URL(lab.uiOrigin);
    const req = http.request({ host: '127.0.0.1', port: uiPort, method: 'POST', path: `/api/dev-server?port=${port}`, headers });
    req.on('response', (res) => resolve({ status: res.statusCode, req, res }));
    req.on('error', reject);
    req.end();
  });

  for (const headers of [{ origin }, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-origin' }]) {
    const { status, res } = await announce(headers);
    res.resume();
    assert.equal(status, 403, JSON.stringify(headers));
  }
  for (const port of ['0', '65536', 'x']) {
    const { status, res } = await announce({}, port);
    res.resume();
    assert.equal(status, 400, port);
  }
  assert.equal((await fetch(uiUrl(lab, '/api/dev-server'))).status, 405);
  const closedPort = await freePort();
  const unheard = await announce({}, closedPort);
  unheard.res.resume();
  assert.equal(unheard.status, 409, 'a port nothing listens on');
  assert.equal(await resetFrom(lab, `http://localhost:${closedPort}`), 403, 'is not trusted');
  assert.equal(await resetFrom(lab, origin), 403, 'refused announcements trust nothing');

  // Two at once (a dev server restarting overlaps itself): the port stays trusted until both end.
  const first = await announce();
  const second = await announce();
  assert.deepEqual([first.status, second.status], [200, 200]);
  first.req.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await resetFrom(lab, origin), 200, 'one still holds');
  second.req.destroy();
  assert.equal(await until(() => resetFrom(lab, origin), 403, 2_000), 403, 'none holds');
});
