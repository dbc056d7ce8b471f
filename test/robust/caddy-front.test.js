// Hostile and careless use of the Caddy front (issue 22): a client's own X-Lab-* headers, a TCP
// client on the HTTP/3 port, resets and releases racing from two tabs, and what a lab that died
// left in the temp directory. Real Caddy; the HTTP/3 checks also need gtlsclient.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { transportLimits, caddyLimits } from '../../server/config.js';
import { caddyConfig } from '../../server/fronts/caddy-config.js';
import { caddyMissing, caddyPidOf } from '../helpers/caddy.js';
import { h3Missing, h3Request } from '../helpers/h3.js';
import { caddyIds, request, serverOf, startTestLab } from '../helpers/lab.js';

// A client that is turned away is told within milliseconds (TLS alert, or a close); the bound
// only has to tell that from a hang on a loaded two-core machine.
const turnedAwayWithinMs = 3_000;

/** The X-Lab-* request headers the upstream of `id` receives while `send()` runs. */
async function labHeadersUpstream(lab, id, send) {
  const seen = [];
  const record = (req) => seen.push(Object.fromEntries(Object.entries(req.headers).filter(([name]) => name.startsWith('x-lab-'))));
  const { server } = serverOf(lab, id);
  server.on('request', record);
  try {
    await send();
  } finally {
    server.off('request', record);
  }
  assert.equal(seen.length, 1, `one request reached ${id}'s upstream`);
  return seen[0];
}

/**
 * A TLS client on the TCP side of caddy-h3's port that sends an HTTP/1.1 request once its
 * handshake is done: { error, alpn, answer } when the server closes; fails if it has not within
 * turnedAwayWithinMs.
 */
function tcpClientOfH3Port(lab, alpn) {
  const { port } = serverOf(lab, 'caddy-h3');
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: lab.certs.ca, ALPNProtocols: alpn });
    const result = { error: null, alpn: null, answer: '' };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open ${turnedAwayWithinMs} ms later`));
    }, turnedAwayWithinMs);
    socket.on('secureConnect', () => {
      result.alpn = socket.alpnProtocol;
      socket.write('GET /option?size=0 HTTP/1.1\r\nHost: localhost\r\n\r\n');
    });
    socket.setEncoding('utf8');
    socket.on('data', (text) => (result.answer += text));
    socket.on('error', (err) => (result.error = err.code));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(result);
    });
  });
}

describe('the Caddy front against its clients', { skip: caddyMissing }, () => {
  let lab;
  before(async () => {
    lab = await startTestLab({ noCaddy: false });
  });
  after(() => lab?.close());

  // The upstream trusts X-Lab-Refuse (the HTTP/2-only 505), X-Lab-Client (connection ids) and
  // X-Lab-Front: only the front may set them.
  for (const id of ['caddy-h1', 'caddy-h2']) {
    test(`${id}: a client's X-Lab-* headers never reach the upstream, only the front's own`, async () => {
      const spoofed = { 'x-lab-refuse': 'not-http2', 'x-lab-client': '127.0.0.9:9', 'x-lab-front': 'h1', 'x-lab-other': '1' };
      let res;
      const got = await labHeadersUpstream(lab, id, async () => (res = await request(lab, id, '/option?size=0', { headers: spoofed })));
      assert.equal(res.status, 200, 'served, not refused');
      assert.deepEqual(Object.keys(got).sort(), ['x-lab-client', 'x-lab-front']);
      assert.equal(got['x-lab-front'], id);
      assert.match(got['x-lab-client'], /^127\.0\.0\.1:\d+$/, 'the address Caddy saw');
    });
  }

  // gtlsclient sends no headers of one's choosing: caddy-h3 is checked in the configuration the
  // lab gives Caddy.
  test('every route that proxies (caddy-h3 too) drops X-Lab-* before the proxy sets its own', () => {
    const servers = lab.running.filter((r) => r.front === 'caddy');
    const { apps } = caddyConfig({ servers, certFiles: ['c'], keyFile: 'k', limits: transportLimits, caddyLimits });
    const proxying = Object.values(apps.http.servers).flatMap((s) => s.routes).filter((r) => r.handle.some((h) => h.handler === 'reverse_proxy'));
    assert.equal(proxying.length, 4, 'caddy-h1, caddy-h3 and caddy-h2 twice');
    for (const route of proxying) {
      const first = route.handle.findIndex((h) => h.handler === 'headers' && h.request?.delete?.includes('X-Lab-*'));
      assert.ok(first >= 0 && first < route.handle.findIndex((h) => h.handler === 'reverse_proxy'), JSON.stringify(route.handle));
    }
  });

  test('caddy-h3 turns a TCP client away at once: a browser’s ALPN fails the handshake, none gets no answer', async () => {
    const browserLike = await tcpClientOfH3Port(lab, ['h2', 'http/1.1']);
    assert.equal(browserLike.error, 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL');
    const withoutAlpn = await tcpClientOfH3Port(lab, undefined);
    assert.equal(withoutAlpn.answer, '', 'no HTTP/1.1 answer on the HTTP/3 port');
  });

  test('caddy-h3 still answers over HTTP/3', { skip: h3Missing }, async () => {
    assert.equal((await h3Request(lab, '/option?size=0.01')).status, 200);
  });
});

// Two lab tabs, or a tab and the runner: their resets and releases may reach the lab at once.
test('hold, release and hold at once through the API, three times: the Caddy family stays available, one Caddy, answering', { skip: caddyMissing, timeout: 60_000 }, async () => {
  const notices = [];
  const lab = await startTestLab({ noCaddy: false }, { onNotice: (line) => notices.push(line) });
  const post = (p) => fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/${p}`, { method: 'POST' });
  try {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(['reset?hold=1', 'release', 'reset?hold=1'].map(post));
      assert.deepEqual(answers.map((r) => r.status), [200, 200, 200]);
    }
    assert.equal((await post('release')).status, 200);
    const { servers, fronts } = lab.describe();
    assert.deepEqual(notices, []);
    assert.equal(fronts.caddy.status, 'running');
    for (const id of caddyIds) assert.equal(servers.find((s) => s.id === id).available, true, `${id} available`);
    await caddyPidOf(lab); // exactly one Caddy
    for (const id of ['caddy-h1', 'caddy-h2']) assert.equal((await request(lab, id, '/option?size=0.01')).status, 200, id);
    if (!h3Missing) assert.equal((await h3Request(lab, '/option?size=0.01')).status, 200, 'caddy-h3');
  } finally {
    await lab.close();
  }
});

/** A pid no process has: one that just exited. */
async function deadPid() {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid;
}

test('a lab starting removes the Caddy folders of labs that died, not those of labs alive nor others', { skip: caddyMissing }, async () => {
  const folder = (name) => {
    const dir = path.join(os.tmpdir(), name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'caddy.json'), '{}');
    return dir;
  };
  const stale = folder(`h2lab-caddy-${await deadPid()}-Dead01`);
  const alive = folder(`h2lab-caddy-${process.pid}-Live01`); // this process is alive
  const unknown = folder(`h2lab-caddy-Other${process.pid}`); // not a name the lab makes
  try {
    const lab = await startTestLab({ noCaddy: false });
    await lab.close();
    assert.equal(fs.existsSync(stale), false, `${stale} removed`);
    assert.equal(fs.existsSync(alive), true, `${alive} kept`);
    assert.equal(fs.existsSync(unknown), true, `${unknown} kept`);
  } finally {
    for (const dir of [stale, alive, unknown]) fs.rmSync(dir, { recursive: true, force: true });
  }
});
