// The replay's own certificates: a CA made for the run, without name constraints, that signs
// only leaves; a leaf per recorded host or one for all, every leaf on one key (one SPKI for
// Chromium); and every server of the lab, the Node servers and the fronts, serving the leaf the
// client's SNI names. No browser: TLS clients read the certificate each server sends.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { makeReplayCerts } from '../server/replay/certs.js';
import { startTestLab } from './helpers/lab.js';
import { caddyMissing } from './helpers/caddy.js';
import { nginxMissing } from './helpers/nginx.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-replay-certs-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const hosts = ['www.example', 'cdn.example', 'img.example'];

test('a replay CA of its own signs a leaf per host, or one for all, every leaf on one key; its files are private', async () => {
  const perHost = await makeReplayCerts(hosts, { coalescing: 'host', dir: path.join(dir, 'host') });
  const all = await makeReplayCerts(hosts, { coalescing: 'all', dir: path.join(dir, 'all') });
  const ca = new X509Certificate(perHost.caPem);
  assert.ok(ca.ca, 'a CA');
  const parsed = new x509.X509Certificate(perHost.caPem);
  assert.equal(parsed.getExtension('2.5.29.30'), null, 'no name constraints: it signs recorded names, and only the run\'s browsers trust it');
  assert.equal(parsed.getExtension(x509.BasicConstraintsExtension).pathLength, 0, 'it signs leaves alone');
  assert.equal(new X509Certificate(all.caPem).fingerprint256 === ca.fingerprint256, false, 'a CA made for each run');
  assert.deepEqual(perHost.leaves.map((l) => new X509Certificate(l.certPem).subjectAltName), hosts.map((h) => `DNS:${h}`));
  assert.deepEqual(all.leaves.map((l) => new X509Certificate(l.certPem).subjectAltName), [hosts.map((h) => `DNS:${h}`).join(', ')]);
  for (const l of perHost.leaves) {
    const leaf = new X509Certificate(l.certPem);
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'signed by the run\'s CA');
    assert.equal(leaf.ca, false);
    assert.equal(path.basename(l.certFile), `${l.names[0]}.crt`, 'named as nginx finds it');
  }
  assert.equal(new Set(perHost.leaves.map((l) => new X509Certificate(l.certPem).publicKey.export({ type: 'spki', format: 'der' }).toString('base64'))).size, 1, 'one key');
  assert.equal(fs.statSync(path.join(dir, 'host')).mode & 0o777, 0o700);
  for (const f of fs.readdirSync(path.join(dir, 'host'), { recursive: true })) assert.equal(fs.statSync(path.join(dir, 'host', f)).mode & 0o777, f === 'leaves' ? 0o700 : 0o600, f);
  // A recorded host named as one of the replay's own files keeps both apart.
  const clash = await makeReplayCerts(['ca', 'replay'], { coalescing: 'host', dir: path.join(dir, 'clash') });
  assert.ok(new X509Certificate(fs.readFileSync(clash.caFile)).ca, 'ca.crt is still the CA');
  assert.deepEqual(clash.leaves.map((l) => path.relative(path.join(dir, 'clash'), l.certFile)), ['leaves/ca.crt', 'leaves/replay.crt']);
});

/** The leaf a server sends for `servername`: its subjectAltName. */
function leafFor(port, servername, alpn) {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ALPNProtocols: [alpn], rejectUnauthorized: false }, () => {
      const san = socket.getPeerX509Certificate()?.subjectAltName;
      socket.destroy();
      resolve(san);
    });
    socket.on('error', reject);
  });
}

const fronted = [...(caddyMissing ? [] : ['caddy-h1', 'caddy-h2']), ...(nginxMissing ? [] : ['nginx-h1', 'nginx-h2'])];
test(`every server serves the leaf the SNI names: h1, h2-spdy, h2-node${fronted.length ? `, ${fronted.join(', ')}` : ''}`, async () => {
  for (const coalescing of ['host', 'all']) {
    const served = await makeReplayCerts(hosts, { coalescing, dir: path.join(dir, `lab-${coalescing}`) });
    const lab = await startTestLab({ noCaddy: Boolean(caddyMissing), noNginx: Boolean(nginxMissing) }, { served });
    try {
      for (const s of lab.describe().servers.filter((x) => ['h1', 'h2-spdy', 'h2-node', ...fronted].includes(x.id))) {
        for (const host of hosts) {
          const san = await leafFor(Number(new URL(s.origin).port), host, s.protocol);
          assert.equal(san, coalescing === 'all' ? hosts.map((h) => `DNS:${h}`).join(', ') : `DNS:${host}`, `${coalescing}: ${s.id} for ${host}`);
        }
      }
    } finally {
      await lab.close();
    }
  }
});
