// The announcement gates identify the announcer's user before they count anything (issue 40,
// item 3): another user's announcements and npm run chrome's channels, at any rate and of a port
// that never answers, cost the person's own nothing; and an announcement the lab cannot attribute
// (through Vite's dev proxy, whose socket is the lab user's) is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { startVite } from './helpers/vite.js';
import { freePort } from '../server/fronts/ports.js';
import WebSocket from 'ws';
import { startTestLab } from './helpers/lab.js';

const nobody = 65534;
const skip = (process.platform !== 'linux' && 'the peer user comes from /proc/net/tcp (Linux)')
  || (process.getuid?.() !== 0 && 'runs another user (nobody, uid 65534), which needs root');

const uiPortOf = (lab) => Number(new URL(lab.uiOrigin).port);

/** A port that listens and answers HTTP 404, as any program's may. */
async function endpoint(t) {
  const server = http.createServer((req, res) => res.writeHead(404).end()).listen(0, '127.0.0.1');
  t.after(() => server.close());
  await once(server, 'listening');
  return server.address().port;
}

/**
 * A port on 127.0.0.1 that never answers: a listener (python3's, which never accepts) whose
 * accept queue one connection fills, after which Linux drops every SYN; a connection attempt
 * waits out its timeout (the gate's listen check: announceLimits.listenCheckTimeoutMs).
 */
async function silentPort(t) {
  const listener = spawn('python3', ['-c', "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(0); print(s.getsockname()[1],flush=True); time.sleep(600)"], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => listener.kill());
  const port = Number(String((await once(listener.stdout, 'data'))[0]));
  const filler = net.connect(port, '127.0.0.1');
  t.after(() => filler.destroy());
  await once(filler, 'connect');
  return port;
}

/** Runs `script` (CommonJS, given `args` as process.argv[1…]) as nobody; resolves its stdout's JSON once it exits. */
async function asNobody(t, script, args) {
  const child = spawn(process.execPath, ['-e', script, ...args.map(String)], { uid: nobody, gid: nobody, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
  await once(child, 'exit');
  return JSON.parse(out);
}

// One POST to process.argv[1] (a URL), printed as { status, code }.
const postOnce = `
  const req = require('node:http').request(process.argv[1], { method: 'POST' }, (res) => {
    let body = '';
    res.setEncoding('utf8').on('data', (c) => (body += c));
    // A held announcement's body is one line that does not end: its first chunk is the answer.
    res.once('data', () => { console.log(JSON.stringify({ status: res.statusCode, code: JSON.parse(body).code })); process.exit(0); });
  });
  req.on('error', (err) => { console.log(JSON.stringify({ error: err.message })); process.exit(0); });
  req.end();`;

/** The status the lab answers a POST /api/reset from `origin` (403 unless the origin is the lab's). */
const resetFrom = async (lab, origin) => (await fetch(`http://127.0.0.1:${uiPortOf(lab)}/api/reset`, { method: 'POST', headers: { origin } })).status;

test("POST /api/dev-server through Vite's dev proxy is refused (403): from nobody, and from the lab's own user, whom the lab cannot tell apart there", { skip }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const vite = await startVite(await freePort(0, '127.0.0.1'), uiPortOf(lab));
  t.after(() => vite.close());
  const vitePort = vite.httpServer.address().port;
  const port = await endpoint(t); // it listens: only who announces is at fault
  const throughVite = `http://127.0.0.1:${vitePort}/api/dev-server?port=${port}`;
  assert.deepEqual(await asNobody(t, postOnce, [throughVite]), { status: 403, code: 'announcer-not-lab-user' }, 'nobody through Vite');
  assert.equal(await resetFrom(lab, `http://localhost:${port}`), 403, "nobody's port is not trusted");
  const own = await fetch(throughVite, { method: 'POST' });
  assert.deepEqual([own.status, (await own.json()).code], [403, 'announcer-not-lab-user'], 'the lab user through Vite');
  // The page's own API calls still go through the proxy.
  assert.equal((await fetch(`http://127.0.0.1:${vitePort}/api/servers`)).status, 200);
});

// nobody's flood: `concurrency` requests at a time until `seconds` pass, each again as soon as it
// is answered: POSTs announcing a port that never answers, and channel upgrades, taking turns.
const flood = `
  const http = require('node:http');
  const [uiPort, silent, seconds, concurrency] = process.argv.slice(1).map(Number);
  const until = Date.now() + seconds * 1000;
  const answers = {};
  let open = 0;
  const upgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  function one(i, n) {
    if (Date.now() > until) { if (--open === 0) console.log(JSON.stringify(answers)); return; }
    const channel = i % 2 === 1;
    const req = http.request({ host: '127.0.0.1', port: uiPort, agent: false, method: channel ? 'GET' : 'POST', headers: channel ? upgrade : {},
      path: channel ? '/api/devtools-channel?devtools=' + String(n % 10).repeat(32) : '/api/dev-server?port=' + silent });
    let done = false;
    const next = (what) => {
      if (done) return;
      done = true;
      answers[what] = (answers[what] ?? 0) + 1;
      req.destroy();
      one(i, n + 1);
    };
    req.on('response', (res) => { res.resume(); next(res.statusCode); });
    req.on('upgrade', (res, socket) => { socket.destroy(); next(101); });
    req.on('error', (err) => next(err.code));
    req.end();
  }
  for (let i = 0; i < concurrency; i++) { open++; one(i, 0); }`;

/** Holds POST /api/dev-server?port=N; resolves { status, end() } once the lab answered. */
function announce(lab, port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: uiPortOf(lab), method: 'POST', path: `/api/dev-server?port=${port}`, agent: false }, (res) => {
      res.once('data', () => resolve({ status: res.statusCode, end: () => req.destroy() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Offers npm run chrome's channel; resolves { status, end() } once the lab answered. */
function offerChannel(lab, channel) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${uiPortOf(lab)}/api/devtools-channel?devtools=${channel}`);
    ws.once('open', () => resolve({ status: 101, end: () => ws.close() }));
    ws.once('unexpected-response', (req, res) => {
      res.resume();
      resolve({ status: res.statusCode, end: () => {} });
    });
    ws.once('error', () => {});
  });
}

test("another user's announcements of a port that never answers and channel upgrades, 16 at a time for 6 s: the person's own are each taken", { skip }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const [port, silent] = [await endpoint(t), await silentPort(t)];
  const seconds = 6;
  const flooded = asNobody(t, flood, [uiPortOf(lab), silent, seconds, 16]);
  await new Promise((resolve) => setTimeout(resolve, 500)); // the flood under way
  const own = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < (seconds - 1.5) * 1000; i++) {
    const answer = i % 2 ? await offerChannel(lab, 'c'.repeat(31) + (i % 10)) : await announce(lab, port);
    answer.end();
    own.push(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const floodAnswers = await flooded;
  t.diagnostic(`the person's ${own.length}: ${own.join(' ')}; nobody's: ${JSON.stringify(floodAnswers)}`);
  assert.ok(own.length >= 10, `${own.length} of the person's`);
  assert.deepEqual(own.filter((status) => status !== 200 && status !== 101), [], `the person's: ${own.join(' ')}; nobody's: ${JSON.stringify(floodAnswers)}`);
  assert.deepEqual(Object.keys(floodAnswers), ['403'], `nobody's are all refused as another user's: ${JSON.stringify(floodAnswers)}`);
});
