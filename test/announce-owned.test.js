// Announcements (POST /api/dev-server, npm run chrome's channel GET /api/devtools-channel) are bounded and owned: a few at a time
// (announceLimits; 429 too-many-announcements above them), from a process of the lab's own user
// (Linux's socket tables, server/peer-user.js), for a port something listens on. The review held
// 6,000 at once from one process, and announced a DevTools port as `nobody`, which then needed no
// confirmation (npm run chrome now offers a channel instead, held to the same rule);
// `npm run bench:announce` measures the first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { announceLimits, peerCheckLimits } from '../server/config.js';
import { holdAnnouncement } from '../server/announce.js';
import { freePort } from '../server/fronts/ports.js';
import { allLabHostNames } from '../common/setup/host-names.js';
import { createHeldPorts } from '../server/held-ports.js';
import { originPolicy } from '../server/origin-policy.js';
import { peerUid } from '../server/peer-user.js';
import WebSocket from 'ws';
import { startTestLab } from './helpers/lab.js';

const nobody = 65534;
const notRoot = process.getuid?.() !== 0 && 'runs the announcer as nobody (uid 65534), which needs root';
const notLinux = process.platform !== 'linux' && 'the peer user comes from /proc/net/tcp (Linux)';

/** A port that listens (an announced port must) and answers HTTP (404), as any program on a port may. */
async function endpoint(t) {
  const server = http.createServer((req, res) => res.writeHead(404).end()).listen(0, '127.0.0.1');
  t.after(() => server.close());
  await once(server, 'listening');
  return server.address().port;
}

const uiPortOf = (lab) => Number(new URL(lab.uiOrigin).port);

/** Holds POST /api/<kind>?port=N open; resolves { status, code, headers, end() } once the lab answered. */
function announce(lab, kind, port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: uiPortOf(lab), method: 'POST', path: `/api/${kind}?port=${port}`, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (body) => resolve({ status: res.statusCode, code: JSON.parse(body).code, headers: res.headers, end: () => req.destroy() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const statuses = (answers) => answers.map((a) => `${a.status} ${a.code ?? ''}`.trim()).sort();

test(`${announceLimits.maxPerKind} announcements of a kind at most; above that 429 too-many-announcements, on a connection the lab does not keep`, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const port = await endpoint(t);
  const { maxPerKind } = announceLimits;
  const held = [];
  t.after(() => held.forEach((a) => a.end()));

  // All at once: the checks under way count, or every one would pass them before any was held.
  const burst = await Promise.all(Array.from({ length: 20 }, () => announce(lab, 'dev-server', port)));
  held.push(...burst);
  assert.deepEqual(statuses(burst), [...Array(maxPerKind).fill('200'), ...Array(20 - maxPerKind).fill('429 too-many-announcements')].sort());
  for (const refused of burst.filter((a) => a.status === 429)) {
    assert.equal(refused.headers.connection, 'close');
    refused.end();
  }

  // An announcement that ends makes room for the next; refused ones keep none.
  burst.find((a) => a.status === 200).end();
  const after = await retry(() => announce(lab, 'dev-server', port), (a) => a.status === 200);
  held.push(after);
  assert.equal(after.status, 200, 'room again once one ended');
  assert.equal((await announce(lab, 'dev-server', port)).status, 429, 'and full again');
  const res = await fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/servers`);
  assert.equal(res.status, 200, 'the rest of the API answers meanwhile');
});

test('a port nothing listens on: 409 port-not-listening, and it takes no room', async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const closed = await freePort(0, '127.0.0.1');
  for (let i = 0; i < announceLimits.maxTotal + 2; i++) {
    const answer = await announce(lab, 'dev-server', closed);
    answer.end();
    assert.deepEqual([answer.status, answer.code], [409, 'port-not-listening']);
  }
  const open = await announce(lab, 'dev-server', await endpoint(t));
  open.end();
  assert.equal(open.status, 200);
});

test(`the user checks (a read of the socket tables each) at ${peerCheckLimits.readsPerSecond} a second, after ${peerCheckLimits.burst} at once: an announcement waits for one, none is refused for the rate`, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const port = await endpoint(t);
  const { readsPerSecond, burst } = peerCheckLimits;
  const answers = [];
  const t0 = performance.now();
  for (let i = 0; i < 30; i++) {
    const answer = await announce(lab, 'dev-server', port);
    answer.end(); // each ends before the next: only the rate stands in the way
    answers.push(answer);
  }
  const seconds = (performance.now() - t0) / 1000;
  assert.deepEqual(statuses(answers), Array(30).fill('200'));
  // One read each, one after another: no more reads than the bucket gave.
  assert.ok(seconds >= (30 - burst) / readsPerSecond - 0.1, `30 in ${seconds.toFixed(2)} s`);
});

test('an announcer whose port listens only later is refused, and held once it listens', async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const port = await freePort(0, '127.0.0.1');
  const states = [];
  let heard;
  const held = new Promise((resolve) => (heard = resolve));
  const announcement = holdAnnouncement({ host: '127.0.0.1', uiPort: uiPortOf(lab), path: `/api/dev-server?port=${port}` }, (state, status) => {
    states.push(`${state} ${status}`);
    if (state === 'held') heard();
  });
  t.after(() => announcement.stop());
  await new Promise((resolve) => setTimeout(resolve, 300));
  const server = net.createServer().listen(port, '127.0.0.1');
  t.after(() => server.close());
  await held;
  assert.deepEqual(states, ['refused 409', 'held 200']);
});

test('the trusted origins change by the one port announced or withdrawn', () => {
  const changes = [];
  const ports = createHeldPorts((port, held) => changes.push([port, held]));
  const first = ports.hold(5173);
  const again = ports.hold(5173);
  const other = ports.hold(5174);
  first();
  first(); // a second withdraw is nothing
  again();
  other();
  assert.deepEqual(changes, [[5173, true], [5174, true], [5173, false], [5174, false]]);

  const policy = originPolicy({ host: '127.0.0.1', uiPort: 8080, sans: ['lab.test'] });
  // Loopback's names, the lab's own (common/setup/host-names.js: Firefox reaches the lab by them) and the SAN.
  const names = ['localhost', '127.0.0.1', '[::1]', ...allLabHostNames, 'lab.test'];
  const all = names.length;
  const trusted = (port) => names.filter((n) => policy.isLabOrigin(`http://${n}:${port}`) && policy.isLabHost(`${n}:${port}`)).length;
  assert.deepEqual([trusted(8080), trusted(5173), trusted(5174)], [all, 0, 0]);
  const dev = policy.announceDevServer(5173);
  const devAgain = policy.announceDevServer(5173);
  const next = policy.announceDevServer(5174);
  assert.deepEqual(dev.origins, names.map((n) => `http://${n}:5173`));
  assert.deepEqual([trusted(8080), trusted(5173), trusted(5174)], [all, all, all]);
  dev.withdraw();
  assert.equal(trusted(5173), all, 'the overlapping announcement still holds');
  devAgain.withdraw();
  assert.deepEqual([trusted(8080), trusted(5173), trusted(5174)], [all, 0, all]);
  // The UI's own port, announced as a dev server (it listens), stays the lab's when withdrawn.
  policy.announceDevServer(8080).withdraw();
  next.withdraw();
  assert.deepEqual([trusted(8080), trusted(5173), trusted(5174)], [all, 0, 0]);
});

/**
 * A node process as `nobody` that holds `route` open on the lab's UI (a POST, or with `upgrade` a
 * WebSocket's GET); resolves { status, code } once answered (it ends with the test).
 */
async function announceAsNobody(t, lab, route, { upgrade = false } = {}) {
  const headers = upgrade ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } : {};
  const script = `
    const req = require('node:http').request({ host: '127.0.0.1', port: ${uiPortOf(lab)}, method: '${upgrade ? 'GET' : 'POST'}', path: process.argv[1], headers: ${JSON.stringify(headers)} }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (body) => console.log(JSON.stringify({ status: res.statusCode, code: JSON.parse(body).code })));
    });
    req.on('error', (err) => console.log(JSON.stringify({ error: err.message })));
    req.end();`;
  const child = spawn(process.execPath, ['-e', script, route], { uid: nobody, gid: nobody, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  const [line] = await once(child.stdout.setEncoding('utf8'), 'data');
  return JSON.parse(line);
}

test("an announcement from another user (nobody) is refused: 403 announcer-not-lab-user, and its dev server's origin is not trusted", { skip: notLinux || notRoot }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const port = await endpoint(t); // it listens: nothing but the announcer's user is at fault
  assert.deepEqual(await announceAsNobody(t, lab, `/api/dev-server?port=${port}`), { status: 403, code: 'announcer-not-lab-user' });
  const reset = await fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/reset`, { method: 'POST', headers: { origin: `http://localhost:${port}` } });
  assert.equal(reset.status, 403, "nobody's dev server is not the lab's");
  // The lab's own user, for the same port, is taken.
  const own = await announce(lab, 'dev-server', port);
  own.end();
  assert.equal(own.status, 200);
});

test("npm run chrome's DevTools channel offered by nobody is refused: a page naming it gets no preset applied", { skip: notLinux || notRoot }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const channel = 'b'.repeat(32);
  assert.deepEqual(await announceAsNobody(t, lab, `/api/devtools-channel?devtools=${channel}`, { upgrade: true }), { status: 403, code: 'announcer-not-lab-user' });
  const ui = lab.uiOrigin.replace('localhost', '127.0.0.1');
  const res = await fetch(`${ui}/api/emulation`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ devtoolsChannel: channel, pageUrl: `${ui}/?devtools=${channel}`, preset: 'slow-4g' }),
  });
  assert.deepEqual([res.status, (await res.json()).code], [409, 'devtools-channel-unknown']);
});

/** Offers npm run chrome's channel (a WebSocket to the lab); resolves { status, code, end() } once the lab answered. */
function offerChannel(lab, channel) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${uiPortOf(lab)}/api/devtools-channel?devtools=${channel}`);
    ws.once('open', () => resolve({ status: 101, end: () => ws.close() }));
    ws.once('unexpected-response', (req, res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode, code: JSON.parse(body).code, end: () => {} }));
    });
    ws.once('error', () => {});
  });
}

test(`announcements of both kinds (dev server, DevTools channel) count toward ${announceLimits.maxTotal} in all`, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const port = await endpoint(t);
  const { maxPerKind, maxTotal } = announceLimits;
  const held = [];
  t.after(() => held.forEach((a) => a.end()));
  for (let i = 0; i < maxPerKind; i++) held.push(await announce(lab, 'dev-server', port));
  assert.deepEqual(statuses(held), Array(maxPerKind).fill('200'));
  const channels = [];
  for (let i = 0; i < maxPerKind; i++) channels.push(await offerChannel(lab, String(i).repeat(32)));
  held.push(...channels);
  assert.deepEqual(statuses(channels), [...Array(maxTotal - maxPerKind).fill('101'), ...Array(2 * maxPerKind - maxTotal).fill('429 too-many-announcements')].sort());
});

test("the peer's user from the socket tables: over IPv4, IPv6 and IPv4-mapped IPv6, as root and as nobody; unknown without the tables", { skip: notLinux }, async (t) => {
  /** The server side of a connection from `connectTo` to a server on `listenOn`, and the client's socket. */
  async function connection(listenOn, connectTo, connect = (port) => net.connect(port, connectTo)) {
    const server = net.createServer().listen(0, listenOn);
    t.after(() => server.close());
    await once(server, 'listening');
    const accepted = once(server, 'connection');
    const client = connect(server.address().port);
    t.after(() => client.destroy?.());
    const [socket] = await accepted;
    t.after(() => socket.destroy());
    return { socket, client };
  }
  const cases = [
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['::', '127.0.0.1'], // a dual-stack server sees ::ffff:127.0.0.1; the client's socket is IPv4
    ['127.0.0.1', '::ffff:127.0.0.1'], // an IPv6 client socket to an IPv4 address: in tcp6, mapped
  ];
  for (const [listenOn, connectTo] of cases) {
    const { socket } = await connection(listenOn, connectTo);
    assert.equal(await peerUid(socket), process.getuid(), `${connectTo} → ${listenOn}`);
    assert.equal(await peerUid(socket, { procNet: '/nonexistent' }), null, 'no tables: unknown');
  }
  if (!notRoot) {
    const { socket } = await connection('127.0.0.1', '127.0.0.1', (port) => {
      const child = spawn(process.execPath, ['-e', `require('node:net').connect(${port}, '127.0.0.1'); setInterval(() => {}, 1000)`], { uid: nobody, gid: nobody, cwd: '/' });
      return { destroy: () => child.kill() };
    });
    assert.equal(await peerUid(socket), nobody, 'a peer running as nobody');
  }
  // Tables of many chunks: 2,000 more sockets put the peer's line past the first 64 KiB read.
  const crowd = await Promise.all(Array.from({ length: 2_000 }, async () => {
    const server = net.createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    return server;
  }));
  t.after(() => crowd.forEach((server) => server.close()));
  assert.equal(await peerUid((await connection('127.0.0.1', '127.0.0.1')).socket), process.getuid(), 'in a table of many chunks');
  // A line cut between two reads (64 KiB each), in a table written here: 127.0.0.1:40000 → 127.0.0.1:8080.
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-proc-net-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const line = (i, local, remote, uid) => `${String(i).padStart(4)}: ${local} ${remote} 01 00000000:00000000 00:00000000 00000000 ${String(uid).padStart(5)}        0 ${1000 + i} 1 0000000000000000 20 4 30 10 -1\n`;
  let table = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
  for (let i = 0; table.length < 65_536 - 40; i++) table += line(i, '0100007F:1F90', `0100007F:${(20_000 + i).toString(16).toUpperCase()}`, 0);
  writeFileSync(path.join(dir, 'tcp'), table + line(9_999, '0100007F:9C40', '0100007F:1F90', 4242));
  assert.equal(await peerUid({ remoteAddress: '127.0.0.1', remotePort: 40_000, localAddress: '127.0.0.1', localPort: 8080 }, { procNet: dir }), 4242, 'a line across two reads');
  // A peer that closed: its socket is no longer an established one.
  const { socket, client } = await connection('127.0.0.1', '127.0.0.1');
  client.destroy();
  await once(socket, 'close');
  assert.equal(await peerUid(socket), null, 'a peer gone');
});

/** Calls `make` until `done(result)` or 2 s passed (an ended announcement is let go when its close reaches the lab). */
async function retry(make, done) {
  const deadline = performance.now() + 2_000;
  for (;;) {
    const result = await make();
    if (done(result) || performance.now() > deadline) return result;
    result.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
