// Whatever listens on a DevTools port may be hostile: any local process can, and any web page can
// send a visitor to the lab's address with ?devtools=<port>. The lab (npm start's process, Caddy
// and all) must survive every answer such an endpoint gives, refuse it with the reason in the API's
// answer, and not even connect to a port the person did not confirm. npm run chrome's own Chrome
// opens no port: its channel is offered by a process, never by a page. The hostile endpoint is a
// real HTTP + WebSocket server on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import WebSocket, { WebSocketServer } from 'ws';
import { devtoolsLimits } from '../server/config.js';
import { startScript, waitFor, exitOf } from './helpers/cli.js';
import { codeOf, freePortArgs } from './helpers/lab.js';
import { caddyMissing } from './helpers/caddy.js';

let lab;
let ui;
let hostile;
let decoy; // where a hostile answer points: the lab must never reach it
let mode;
const seen = { hostile: [], decoy: [] };

/** A loopback HTTP + WebSocket server; `respond(req, res)` answers HTTP, `onCall(ws, call)` each call sent over a socket. */
async function endpoint(log, respond, onCall) {
  const server = http.createServer((req, res) => {
    log.push(`GET ${req.url}`);
    respond(req, res);
  });
  new WebSocketServer({ server }).on('connection', (ws, req) => {
    log.push(`WS ${req.url}`);
    ws.on('message', (data) => onCall(ws, JSON.parse(data)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: server.address().port };
}

const version = (wsUrl, extra = {}) => JSON.stringify({ Browser: 'Hostile/1.0', webSocketDebuggerUrl: wsUrl, ...extra });
const browserUrl = (port, host = '127.0.0.1') => `ws://${host}:${port}/devtools/browser/0b7e1c5e-4d8a-4b8e-9a53-1c0e8d2f7a11`;

// Each mode is one answer a hostile endpoint gives; `code` is the API's answer, and its message
// must name the reason (`expect`) for the person.
const modes = {
  // The review's reproduction: before, this one frame threw in ws's handler and the lab exited.
  'not JSON message': { ws: (ws) => ws.send('hello, not JSON'), code: 'devtools-failed', expect: /sent a message that is not JSON/ },
  redirect: {
    http: (res) => res.writeHead(302, { location: `http://127.0.0.1:${decoy.port}/json/version` }).end(),
    code: 'devtools-refused',
    expect: /redirect/,
  },
  'oversized answer': {
    // Chunked, no content-length: the lab must count what it reads.
    http: (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(version(browserUrl(hostile.port), { pad: 'x'.repeat(devtoolsLimits.versionAnswerMaxBytes * 4) }));
    },
    code: 'devtools-refused',
    expect: new RegExp(`more than ${devtoolsLimits.versionAnswerMaxBytes} bytes`),
  },
  'not JSON answer': { http: (res) => res.end('<html>hello</html>'), code: 'devtools-refused', expect: /not JSON/ },
  'another port': { http: (res) => res.end(version(browserUrl(decoy.port))), code: 'devtools-refused', expect: /is not ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/<id>/ },
  'another host': { http: (res) => res.end(version(browserUrl(hostile.port, 'localhost'))), code: 'devtools-refused', expect: /is not ws:\/\/127\.0\.0\.1/ },
  'another path': { http: (res) => res.end(version(`ws://127.0.0.1:${hostile.port}/devtools/page/x`)), code: 'devtools-refused', expect: /is not ws:\/\/127\.0\.0\.1/ },
  'oversized message': { ws: (ws) => ws.send('"' + 'x'.repeat(devtoolsLimits.messageMaxBytes + 1) + '"'), code: 'devtools-failed', expect: /message over \d+ bytes/ },
  'null message': { ws: (ws) => ws.send('null'), code: 'devtools-failed', expect: /not a DevTools Protocol message/ },
  'no target list': { ws: (ws, call) => ws.send(JSON.stringify({ id: call.id, result: { targetInfos: 'all of them' } })), code: 'devtools-failed', expect: /no target list/ },
};

before(async () => {
  decoy = await endpoint(seen.decoy, (req, res) => res.end(version(browserUrl(decoy.port))), () => {});
  hostile = await endpoint(
    seen.hostile,
    (req, res) => (modes[mode].http ?? ((r) => r.end(version(browserUrl(hostile.port)))))(res),
    (ws, call) => modes[mode].ws(ws, call),
  );
  // As npm start runs it: Caddy's family too, whose Caddy must not go down with a crash.
  lab = startScript('server/index.js', freePortArgs);
  await waitFor(lab, (r) => /npm run chrome/.test(r.stdout), 30_000);
  ui = /^h2lab UI\s+(http:\/\/\S+?)\/?$/m.exec(lab.stdout)[1].replace('localhost', '127.0.0.1');
});

after(() => {
  hostile?.server.close();
  decoy?.server.close();
}); // test/helpers/cli.js ends a lab the last test did not

const put = (body) =>
  fetch(`${ui}/api/emulation`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const request = (port, extra = {}) => ({ devtoolsPort: port, pageUrl: `${ui}/?devtools=${port}`, windows: 'tab', preset: 'slow-4g', ...extra });

/** Offers a DevTools channel as npm run chrome does (a WebSocket); resolves { status, body, end() }. */
function offerChannel(channel, headers = {}) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${ui.replace('http', 'ws')}/api/devtools-channel?devtools=${channel}`, { headers });
    ws.once('open', () => resolve({ status: 101, body: '', end: () => ws.close() }));
    ws.once('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode, body, end: () => {} }));
    });
    ws.once('error', () => {});
  });
}

test('a port the person did not confirm: 403 asking for confirmation, and the lab does not connect to it', async () => {
  const res = await put(request(hostile.port));
  assert.equal(res.status, 403);
  assert.deepEqual(await codeOf(res), { code: 'devtools-port-unconfirmed', field: 'devtoolsPort' });
  assert.deepEqual(seen.hostile, []);
  // The person's confirmation (from the lab's own page) lets the lab try it.
  mode = 'not JSON answer';
  assert.equal((await put(request(hostile.port, { confirmed: true }))).status, 502);
  assert.deepEqual(seen.hostile, ['GET /json/version']);
  seen.hostile.length = 0;
});

test("npm run chrome's channel: a process may offer one, a page may not, and one channel is one connection's", async () => {
  const channel = 'c'.repeat(32);
  const page = await offerChannel(channel, { origin: 'https://evil.example' });
  assert.equal(page.status, 403);
  assert.equal(JSON.parse(page.body).code, 'page-cannot-announce');
  const bad = await offerChannel('0');
  assert.equal(bad.status, 400);
  assert.deepEqual([JSON.parse(bad.body).code, JSON.parse(bad.body).field], ['invalid-field', 'devtools']);
  const held = await offerChannel(channel);
  assert.equal(held.status, 101);
  const again = await offerChannel(channel);
  held.end();
  assert.equal(again.status, 409);
  assert.equal(JSON.parse(again.body).code, 'devtools-channel-held');
  assert.equal(lab.child.exitCode, null, lab.stderr);
});

test('a hostile DevTools endpoint at a confirmed port: each answer refused with its reason, the lab still serving', { timeout: 60_000 }, async () => {
  for (const name of Object.keys(modes)) {
    mode = name;
    const res = await put(request(hostile.port, { confirmed: true }));
    const body = await res.json();
    assert.equal(res.status, 502, `${name}: ${JSON.stringify(body)}`);
    assert.deepEqual([body.code, body.field], [modes[name].code, null], name);
    assert.match(body.error, modes[name].expect, name);
    assert.equal((await fetch(`${ui}/api/servers`)).status, 200, `the lab after ${name}`);
  }
  assert.deepEqual(seen.decoy, [], 'the lab followed a hostile answer elsewhere');
  assert.equal(lab.child.exitCode, null, lab.stderr);
  assert.doesNotMatch(lab.stderr, /Error|at /, 'the lab printed a stack');
});

test('afterwards the lab still shuts down as asked, Caddy and its folder with it', { timeout: 30_000, skip: caddyMissing }, async () => {
  const caddy = execFileSync('ps', ['-o', 'args=', '--ppid', String(lab.child.pid)], { encoding: 'utf8' });
  const folder = /--config (\S+)\/caddy\.json/.exec(caddy)?.[1];
  assert.ok(folder && existsSync(folder), `Caddy runs under the lab: ${caddy}`);
  lab.child.kill('SIGINT');
  const exit = await exitOf(lab);
  assert.equal(exit.code, 0, lab.stderr);
  assert.equal(existsSync(folder), false, `${folder} stayed behind`);
});
