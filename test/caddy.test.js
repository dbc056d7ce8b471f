// The Caddy family (caddy-h1, caddy-h2, caddy-h3) without a browser: Caddy in front of the shared
// handler must look, to a client, like the Node server of the same protocol (same errors, same
// header names, x-connection-id counting the client's connections, 103s forwarded), resets must
// end its connections, and Caddy must never take the lab down with it nor outlive it. The
// start-up cases cover the command line with Caddy busy, left out, misconfigured and missing.
// Needs Caddy (skipped without it, except the cases about its absence); the HTTP/3 parts also
// need gtlsclient (Debian ngtcp2-client), since Node has no HTTP/3 client.
// Everything against an in-process lab is asynchronous (execFile, never execSync): a blocked
// event loop would stall the lab's upstream that Caddy forwards to.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { serverById } from '../common/setup/servers.js';
import { caddyChildren, caddyMissing, caddyPidOf } from './helpers/caddy.js';
import { h3Get, h3Missing, h3Request } from './helpers/h3.js';
import { exitOf, ownLines, startScript, waitFor } from './helpers/cli.js';
import { isGone, until } from './helpers/processes.js';
import { caddyIds, freePortArgs, h1Request, h2Connect, h2Ids, h2Request, ids, isH1, request, serverOf, startTestLab } from './helpers/lab.js';

/** Each Caddy server beside the Node server of its protocol (HTTP/3 has none: compared with h2-node). */
const pairs = [['h1', 'caddy-h1'], ['h2-node', 'caddy-h2']];

// Hop-by-hop headers: Node's HTTP/1.1 server sends connection/keep-alive, Go's does not; date changes.
const ignoredHeaders = new Set(['date', 'connection', 'keep-alive']);
const headerNames = (headers) => Object.keys(headers).filter((n) => !n.startsWith(':') && !ignoredHeaders.has(n)).sort();

/** Requests every server must refuse alike: [what, target, method]. */
const badInput = (maxSizeMiB) => [
  ['size=abc', '/option?size=abc', 'GET'],
  ['delay=-1', '/option?delay=-1', 'GET'],
  ['size over the max', `/option?size=${maxSizeMiB + 1}`, 'GET'],
  ['an unknown path', '/nope', 'GET'],
  ['POST', '/option?size=0', 'POST'],
];

/** The parts of an error response a client relies on. */
const errorOf = (res) => ({
  status: Number(res.status),
  body: JSON.parse(res.body.toString()),
  contentType: res.headers['content-type'],
  allow: res.headers.allow,
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


/** The lab's control API, by address as test/helpers/lab.js stats() does. */
async function describeLab(uiOrigin) {
  const res = await fetch(`${uiOrigin.replace('localhost', '127.0.0.1')}/api/servers`);
  assert.equal(res.status, 200);
  return res.json();
}


/** A client holding one connection to a server: { get(path), close() }. */
async function connection(lab, id) {
  if (isH1(id)) {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    return { get: (p) => h1Request(lab, p, { id, agent }), close: () => agent.destroy() };
  }
  const session = await h2Connect(lab, id);
  return { get: (p) => h2Request(session, p), close: () => session.close() };
}

/** GET /option over TLS as raw HTTP/1.1, offering `alpn` (or no ALPN); resolves { status, head, headers, body } at close. */
function rawHttp1(lab, id, alpn) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: serverOf(lab, id).port, servername: 'localhost', ca: lab.certs.ca, ALPNProtocols: alpn });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('secureConnect', () => socket.write('GET /option?size=0 HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.on('data', (c) => (text += c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body = ''] = text.split('\r\n\r\n');
      const [statusLine, ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), head, headers, body });
    });
  });
}

/** Whether a TCP connect to host:port is refused (true) or accepted (false). */
const refusesTcp = (port, host = '127.0.0.1') =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ port, host }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (err) => (err.code === 'ECONNREFUSED' ? resolve(true) : reject(err)));
  });



// ---- the lab process -------------------------------------------------------------------------

const startCli = (args, env) => startScript('server/index.js', args, { env });
const ready = (r) => /npm run chrome/.test(r.stdout);
const uiOf = (stdout) => /^h2lab UI\s+(http:\/\/\S+?)\/?$/m.exec(stdout)?.[1];

/** A start-up that must fail: exit 1, one `h2lab:` line on stderr naming each of `mentions`. */
async function expectStartFailure(args, env, mentions) {
  const cli = startCli(args, env);
  const exit = await exitOf(cli);
  const lines = ownLines(cli.stderr);
  assert.equal(exit.code, 1, `exit code; stderr: ${cli.stderr}`);
  assert.equal(lines.length, 1, `one line: ${JSON.stringify(lines)}`);
  assert.match(lines[0], /^h2lab: /);
  for (const text of mentions) assert.ok(lines[0].includes(text), `"${lines[0]}" mentions ${text}`);
  assert.equal(cli.stdout, '');
}

/** Starts the CLI, reads /api/servers, stops it with SIGTERM (exit 0): { stdout, described }. */
async function startAndDescribe(args, env) {
  const cli = startCli(args, env);
  await waitFor(cli, ready, 20_000);
  const described = await describeLab(uiOf(cli.stdout));
  cli.child.kill('SIGTERM');
  assert.equal((await exitOf(cli, 10_000)).code, 0, `exit after SIGTERM; stderr: ${cli.stderr}`);
  return { stdout: cli.stdout, described };
}

// ---- one lab with Caddy ----------------------------------------------------------------------

describe('the Caddy family in a running lab', { skip: caddyMissing }, () => {
  let lab;
  before(async () => {
    lab = await startTestLab({ noCaddy: false });
  });
  after(() => lab?.close());

  test('/api/servers lists the three Caddy servers, available, and the running front', async () => {
    const { servers, fronts } = await describeLab(lab.uiOrigin);
    for (const id of caddyIds) {
      const s = servers.find((x) => x.id === id);
      assert.ok(s, `${id} listed`);
      assert.equal(s.protocol, serverById(id).protocol);
      assert.equal(s.origin, serverOf(lab, id).origin);
      assert.match(s.origin, /^https:\/\/(localhost|127\.0\.0\.1):\d+$/);
      assert.match(s.linkOrigin, /^https:\/\/(localhost|127\.0\.0\.1):\d+$/);
      assert.notEqual(s.linkOrigin, s.origin);
      assert.match(s.software, /^Caddy \d+\.\d+\.\d+ → Node v/);
      assert.equal(s.available, true);
    }
    assert.equal(fronts.caddy.status, 'running');
    assert.match(fronts.caddy.version, /^\d+\.\d+\.\d+$/);
  });

  for (const [node, caddy] of pairs) {
    test(`${caddy} answers bad input exactly as ${node}: 400 naming param, 404, 405 with allow`, async () => {
      const got = [];
      for (const [what, target, method] of badInput(lab.config.maxSizeMiB)) {
        const [fromNode, fromCaddy] = await Promise.all([node, caddy].map((id) => request(lab, id, target, { method }).then(errorOf)));
        assert.deepEqual(fromCaddy, fromNode, what);
        got.push(fromCaddy);
      }
      // And the cases really are the errors they claim to be.
      assert.deepEqual(got.map((e) => e.status), [400, 400, 400, 404, 405]);
      assert.deepEqual(got.slice(0, 3).map((e) => e.body.field), ['size', 'delay', 'size']);
      assert.deepEqual(got.map((e) => e.contentType), Array(5).fill('application/json'));
      assert.equal(got[4].allow, 'GET, HEAD');
    });
  }

  test('caddy-h3 answers bad input exactly as h2-node (over HTTP/3 with gtlsclient)', { skip: h3Missing }, async () => {
    for (const [what, target, method] of badInput(lab.config.maxSizeMiB)) {
      const want = errorOf(await request(lab, 'h2-node', target, { method }));
      const got = errorOf(await h3Request(lab, target, { method }));
      assert.deepEqual(got, want, what);
    }
  });

  for (const [node, caddy] of pairs) {
    test(`${caddy}: a 200 has ${node}'s header names, no server header, x-server and x-connection-id per connection`, async () => {
      const target = '/option?size=0.01&delay=1';
      const [want, got] = await Promise.all([node, caddy].map((id) => request(lab, id, target)));
      assert.equal(got.status, 200);
      assert.deepEqual(headerNames(got.headers), headerNames(want.headers));
      assert.equal(got.headers.server, undefined, 'no server header');
      assert.equal(got.headers['x-server'], caddy);

      const first = await connection(lab, caddy);
      const second = await connection(lab, caddy);
      try {
        const idsSeen = [];
        const portsSeen = [];
        for (const c of [first, first, second]) {
          const { headers } = await c.get(target);
          idsSeen.push(headers['x-connection-id']);
          portsSeen.push(headers['x-client-port']);
        }
        assert.match(portsSeen[0], /^[1-9]\d*$/, 'the client port Caddy saw');
        assert.equal(portsSeen[1], portsSeen[0], 'one connection, one client port');
        assert.notEqual(portsSeen[2], portsSeen[0], 'a new connection, a new client port');
        assert.match(idsSeen[0], /^[1-9]\d*$/, 'a positive integer');
        assert.equal(idsSeen[1], idsSeen[0], 'the same connection keeps its id');
        assert.notEqual(idsSeen[2], idsSeen[0], 'a new connection gets a new id');
      } finally {
        first.close();
        second.close();
      }
    });
  }

  // Go cannot refuse http/1.1 in ALPN as Node does (README: Node's HTTP/2 servers fail that
  // handshake): Caddy's HTTP/2 port answers such a client, and one without ALPN, with a 505 whose
  // JSON must be the one the Node HTTP/2 servers give a client without ALPN.
  test('caddy-h2 refuses an HTTP/1.1 client (ALPN http/1.1 or none) with the Node HTTP/2 servers’ 505 JSON', async () => {
    // The same body and the same header names (the one error table behind both), bar the
    // connection-level ones Caddy replaces.
    const refusal = async ([id, alpn]) => {
      const res = await rawHttp1(lab, id, alpn);
      assert.equal(res.status, 505, `${id} with ALPN ${alpn}: ${res.head}`);
      const names = Object.keys(res.headers).filter((n) => !['date', 'connection', 'keep-alive', 'x-server'].includes(n)).sort();
      return { body: JSON.parse(res.body), names, contentType: res.headers['content-type'] };
    };
    const [viaCaddy, viaCaddyNoAlpn, ...viaNode] = await Promise.all(
      [['caddy-h2', ['http/1.1']], ['caddy-h2', undefined], ...h2Ids.map((id) => [id, undefined])].map(refusal),
    );
    for (const want of viaNode) {
      assert.deepEqual(viaCaddy, want);
      assert.deepEqual(viaCaddyNoAlpn, want);
    }
  });

  test('caddy-h2 forwards a 103 Early Hint with its link header well before the page', async () => {
    const session = await h2Connect(lab, 'caddy-h2');
    try {
      const res = await h2Request(session, '/page?assets=1&size=0.01&delay=300&hints=1');
      const ended = performance.now();
      assert.equal(res.status, 200);
      assert.equal(res.informational.length, 1, 'one informational response');
      const [hint] = res.informational;
      assert.equal(hint.headers[':status'], 103);
      assert.match(String(hint.headers.link), /rel=preload/);
      assert.ok(ended - hint.at >= 250, `the 103 came ${Math.round(ended - hint.at)} ms before the end of the page`);
    } finally {
      session.close();
    }
  });

  test('lab.reset() ends a client’s HTTP/2 session to caddy-h2; the next connection has a new id', async () => {
    const session = await h2Connect(lab, 'caddy-h2');
    const first = (await h2Request(session, '/option?size=0')).headers['x-connection-id'];
    const closed = once(session, 'close');
    await lab.reset();
    await Promise.race([closed, sleep(5_000).then(() => assert.fail('the session did not close within 5 s of the reset'))]);
    const afterReset = (await request(lab, 'caddy-h2', '/option?size=0')).headers['x-connection-id'];
    assert.notEqual(afterReset, first);
  });

  test('reset({ hold: true }) after an HTTP/3 request holds its origins and closes caddy-h1 until release()', { skip: h3Missing }, async () => {
    const h3 = serverOf(lab, 'caddy-h3');
    assert.equal((await h3Request(lab, '/option?size=0')).status, 200);
    const { held } = await lab.reset({ hold: true });
    try {
      assert.deepEqual(held, [h3.origin, h3.linkOrigin]);
      assert.equal(await refusesTcp(serverOf(lab, 'caddy-h1').port), true, 'caddy-h1 refuses connections while held');
    } finally {
      await lab.release();
    }
    for (const id of ['caddy-h1', 'caddy-h2']) assert.equal((await request(lab, id, '/option?size=0.01')).status, 200, `${id} after release`);
    assert.equal((await h3Request(lab, '/option?size=0.01')).status, 200, 'caddy-h3 after release');
  });

  test('a hold with no HTTP/3 request since the last: no origin for the page to close, nothing stays held', async () => {
    // Only a connection something used needs the page's closing request, which shows as a failure in its console.
    await lab.reset({ hold: true });
    await lab.release();
    const { held } = await lab.reset({ hold: true });
    assert.deepEqual(held, []);
    assert.equal((await request(lab, 'caddy-h1', '/option?size=0.01')).status, 200, 'caddy-h1 answers with no release asked');
  });
});

// ---- The HTTP/3 twin port on IPv6 ----------------------------------------------------------------

test('--host ::1: a reset with hold and its release bring the HTTP/3 twin port back on ::1, and caddy-h3 answers through it', { skip: h3Missing }, async () => {
  const notices = [];
  const lab = await startTestLab({ host: '::1', noCaddy: false }, { onNotice: (line) => notices.push(line) });
  try {
    const h3 = serverOf(lab, 'caddy-h3');
    assert.equal((await h3Get('::1', h3.linkPort, '/option?size=0.01')).status, 200, 'through the twin port before the reset');
    await lab.reset({ hold: true });
    await lab.release();
    assert.deepEqual(notices, [], 'no notice: the Caddy family stays available');
    assert.equal(h3.available, true, h3.unavailableReason);
    assert.equal(h3.relay.address().family, 'IPv6');
    assert.equal((await h3Get('::1', h3.linkPort, '/option?size=0.01')).status, 200, 'through the twin port after the release');
  } finally {
    await lab.close();
  }
});

// ---- Caddy dies under a running lab ----------------------------------------------------------

test('Caddy killed: one notice, its servers unavailable, the Node servers, reset and close still work', { skip: caddyMissing }, async () => {
  const notices = [];
  const lab = await startTestLab({ noCaddy: false }, { onNotice: (line) => notices.push(line) });
  try {
    process.kill(await caddyPidOf(lab), 'SIGKILL');
    await until(() => notices.length > 0, 5_000, 'a notice');

    const { servers, fronts } = await describeLab(lab.uiOrigin);
    for (const id of caddyIds) {
      const s = servers.find((x) => x.id === id);
      assert.equal(s.available, false, `${id} unavailable`);
      assert.ok(s.unavailableReason, `${id} says why`);
    }
    assert.equal(fronts.caddy.status, 'exited');
    for (const id of ids) assert.equal((await request(lab, id, '/option?size=0.01')).status, 200, `${id} still answers`);
    await lab.reset();
    await lab.reset({ hold: true });
    await lab.release();
    assert.equal(notices.length, 1, `exactly one notice: ${JSON.stringify(notices)}`);
    assert.match(notices[0], /Caddy/);
  } finally {
    await lab.close();
  }
});

// ---- the lab as a process --------------------------------------------------------------------

for (const signal of ['SIGTERM', 'SIGKILL']) {
  test(`no orphan: ${signal} to the lab → its Caddy gone within 5 s`, { skip: caddyMissing, timeout: 30_000 }, async () => {
    const cli = startCli(freePortArgs);
    await waitFor(cli, ready, 20_000);
    const children = await caddyChildren(cli.child.pid);
    assert.equal(children.length, 1, `one Caddy child: ${JSON.stringify(children)}`);
    const [{ pid, config }] = children;
    const caddyDir = path.dirname(config); // its configuration and HOME
    try {
      cli.child.kill(signal);
      await until(() => isGone(pid), 5_000, `Caddy (pid ${pid}) gone after ${signal} to the lab`);
      const exit = await exitOf(cli, 5_000);
      if (signal === 'SIGTERM') {
        assert.equal(exit.code, 0, `exit code; stderr: ${cli.stderr}`);
        assert.equal(fs.existsSync(caddyDir), false, `${caddyDir} removed`);
      } else assert.equal(exit.signal, 'SIGKILL');
    } finally {
      if (!isGone(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(caddyDir, { recursive: true, force: true }); // a SIGKILLed lab cannot remove it
    }
  });
}

describe('start-up', () => {
  test('a busy --caddy-h1-port → exit 1 with one line naming the port and the flag', { skip: caddyMissing }, async () => {
    const blocker = net.createServer();
    await new Promise((resolve, reject) => blocker.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address();
    try {
      const args = freePortArgs.map((arg, i) => (freePortArgs[i - 1] === '--caddy-h1-port' ? String(port) : arg));
      await expectStartFailure(args, {}, [String(port), '--caddy-h1-port']);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  test('CADDY_PATH naming a missing file → exit 1 with one line naming CADDY_PATH', async () => {
    await expectStartFailure(freePortArgs, { CADDY_PATH: '/nonexistent' }, ['CADDY_PATH', '/nonexistent']);
  });

  test('--no-caddy: no Caddy servers, front "off", no install hint', async () => {
    // Without nginx too, which NGINX_PATH may offer: this is about Caddy's family alone.
    const { stdout, described } = await startAndDescribe([...freePortArgs, '--no-caddy', '--no-nginx']);
    assert.deepEqual(described.servers.map((s) => s.id), ids);
    assert.equal(described.fronts.caddy.status, 'off');
    assert.doesNotMatch(stdout, /apt-get/);
  });

  test('Caddy not on PATH: starts without the family, front "missing", one install hint on stdout', async () => {
    // An empty PATH directory: the lab runs by process.execPath, and its own directory may hold caddy.
    const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-nopath-'));
    try {
      const { stdout, described } = await startAndDescribe(freePortArgs, { PATH: emptyDir, CADDY_PATH: '', NGINX_PATH: '' });
      assert.deepEqual(described.servers.map((s) => s.id), ids);
      assert.equal(described.fronts.caddy.status, 'missing');
      assert.equal(stdout.split('\n').filter((l) => l.includes('apt-get install caddy')).length, 1, stdout);
    } finally {
      fs.rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});
