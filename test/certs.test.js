import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { KeyObject, X509Certificate, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCerts } from '../server/certs.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const CLI_PATH = fileURLToPath(new URL('../server/certs-cli.js', import.meta.url));

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-certs-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function sanSet(certPem) {
  return new Set(new X509Certificate(certPem).subjectAltName.split(', '));
}

function read(file) {
  return fs.readFileSync(file, 'utf8');
}

// A leaf that is right in every way except its validity period, signed by the CA on disk.
async function writeLeafValidUntil(paths, notAfter) {
  // Imported here, after server/certs.js has set up the Reflect metadata @peculiar/x509 needs.
  const x509 = await import('@peculiar/x509');
  const caKeyDer = createPrivateKey(read(paths.caKey)).export({ type: 'pkcs8', format: 'der' });
  const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const signingKey = await webcrypto.subtle.importKey('pkcs8', caKeyDer, keyAlgorithm, false, ['sign']);
  const keys = await webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=h2lab localhost',
    issuer: new x509.X509Certificate(read(paths.caCert)).subjectName,
    publicKey: keys.publicKey,
    signingKey,
    notBefore: new Date(notAfter.getTime() - 30 * DAY_MS),
    notAfter,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [new x509.SubjectAlternativeNameExtension([
      { type: 'dns', value: 'localhost' },
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
    ])],
  }, webcrypto);
  fs.writeFileSync(paths.cert, cert.toString('pem'));
  fs.writeFileSync(paths.key, KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }));
}

async function httpsGetStatus({ key, cert, ca }) {
  const server = https.createServer({ key, cert }, (req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const req = https.get({
      host: '127.0.0.1',
      port: server.address().port,
      ca: [ca],
      servername: 'localhost',
      agent: false,
    });
    const [res] = await once(req, 'response');
    res.resume();
    await once(res, 'end');
    return res.statusCode;
  } finally {
    server.close();
    await once(server, 'close');
  }
}

test('generates a CA and a leaf into an empty directory', async (t) => {
  const dir = path.join(tempDir(t), 'nested', 'certs');
  const result = await ensureCerts({ dir });

  assert.equal(result.generated, true);
  for (const file of Object.values(result.paths)) {
    assert.ok(path.isAbsolute(file));
    assert.ok(fs.existsSync(file), file);
  }
  if (process.platform !== 'win32') {
    for (const file of [result.paths.caKey, result.paths.key]) {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, file);
    }
  }
  assert.equal(read(result.paths.cert), result.cert);
  assert.equal(read(result.paths.caCert), result.ca);
  assert.match(result.key, /^-----BEGIN PRIVATE KEY-----/);

  const leaf = new X509Certificate(result.cert);
  const ca = new X509Certificate(result.ca);
  assert.ok(ca.ca);
  assert.ok(!leaf.ca);
  assert.ok(leaf.checkIssued(ca));
  assert.ok(leaf.verify(ca.publicKey));
  assert.ok(leaf.checkPrivateKey(createPrivateKey(result.key)));
  const sans = sanSet(result.cert);
  for (const san of ['DNS:localhost', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) {
    assert.ok(sans.has(san), `${san} in ${[...sans]}`);
  }

  const spkiDer = leaf.publicKey.export({ type: 'spki', format: 'der' });
  assert.equal(result.spkiSha256, createHash('sha256').update(spkiDer).digest('base64'));

  assert.equal(await httpsGetStatus(result), 200);
});

test('reuses valid files', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  const second = await ensureCerts({ dir });
  assert.equal(second.generated, false);
  assert.equal(second.cert, first.cert);
  assert.equal(second.key, first.key);
  assert.equal(second.ca, first.ca);
  assert.equal(second.spkiSha256, first.spkiSha256);
});

test('new SANs regenerate the leaf but keep the CA', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  const second = await ensureCerts({ dir, sans: ['h2lab.test', '10.1.2.3'] });

  assert.equal(second.generated, true);
  assert.equal(second.ca, first.ca);
  assert.equal(read(second.paths.caKey), read(first.paths.caKey));
  assert.notEqual(second.cert, first.cert);
  assert.notEqual(second.spkiSha256, first.spkiSha256);
  const sans = sanSet(second.cert);
  for (const san of ['DNS:localhost', 'DNS:h2lab.test', 'IP Address:10.1.2.3']) assert.ok(sans.has(san), san);

  // The same set in another order and spelling is not a change.
  const third = await ensureCerts({ dir, sans: ['10.1.2.3', 'H2LAB.test', '0:0:0:0:0:0:0:1'] });
  assert.equal(third.generated, false);
});

test('a missing leaf key regenerates the leaf', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  fs.rmSync(first.paths.key);
  const second = await ensureCerts({ dir });
  assert.equal(second.generated, true);
  assert.ok(fs.existsSync(second.paths.key));
  assert.notEqual(second.cert, first.cert);
  assert.equal(second.ca, first.ca);
});

test('a corrupted leaf certificate regenerates the leaf', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  fs.writeFileSync(first.paths.cert, '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n');
  const second = await ensureCerts({ dir });
  assert.equal(second.generated, true);
  assert.ok(new X509Certificate(second.cert));
  assert.equal(second.ca, first.ca);
});

test('a corrupted CA regenerates both CA and leaf', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  fs.writeFileSync(first.paths.caCert, 'garbage');
  const second = await ensureCerts({ dir });
  assert.equal(second.generated, true);
  assert.notEqual(second.ca, first.ca);
  assert.ok(new X509Certificate(second.cert).checkIssued(new X509Certificate(second.ca)));
});

test('an expired leaf, or one expiring within 24 h, is regenerated', async (t) => {
  const dir = tempDir(t);
  const { paths, ca } = await ensureCerts({ dir });

  for (const notAfter of [new Date(Date.now() - DAY_MS), new Date(Date.now() + HOUR_MS)]) {
    await writeLeafValidUntil(paths, notAfter);
    const stale = read(paths.cert);
    const result = await ensureCerts({ dir });
    assert.equal(result.generated, true, `notAfter ${notAfter.toISOString()}`);
    assert.notEqual(result.cert, stale);
    assert.equal(result.ca, ca);
    assert.ok(Date.parse(new X509Certificate(result.cert).validTo) > Date.now() + 300 * DAY_MS);
  }
});

test('a leaf from another CA, or with another key, is regenerated', async (t) => {
  const dir = tempDir(t);
  const other = await ensureCerts({ dir: tempDir(t) });
  const { paths, ca } = await ensureCerts({ dir });

  fs.copyFileSync(other.paths.cert, paths.cert);
  fs.copyFileSync(other.paths.key, paths.key);
  const reissued = await ensureCerts({ dir });
  assert.equal(reissued.generated, true);
  assert.equal(reissued.ca, ca);
  assert.ok(new X509Certificate(reissued.cert).checkIssued(new X509Certificate(ca)));

  fs.copyFileSync(other.paths.key, paths.key);
  const rekeyed = await ensureCerts({ dir });
  assert.equal(rekeyed.generated, true);
  assert.ok(new X509Certificate(rekeyed.cert).checkPrivateKey(createPrivateKey(rekeyed.key)));
});

test('certs CLI: an unknown option is one stderr line and exit code 2', () => {
  const run = spawnSync(process.execPath, [CLI_PATH, '--bogus'], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], /^h2lab certs: .*--bogus/);
});

test('certs CLI: prints paths and the SPKI hash', (t) => {
  const dir = tempDir(t);
  const env = { ...process.env, H2LAB_SAN: 'env.test' };
  const run = spawnSync(process.execPath, [CLI_PATH, '--dir', dir, '--san', 'flag.test'], { encoding: 'utf8', env });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^Generated/);
  assert.ok(run.stdout.includes(path.join(dir, 'ca.crt')));
  const [, hash] = /SPKI SHA-256 \(for --ignore-certificate-errors-spki-list\): (\S+)/.exec(run.stdout);
  const cert = read(path.join(dir, 'server.crt'));
  assert.equal(hash, createHash('sha256')
    .update(new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' })).digest('base64'));
  // Flags win over H2LAB_SAN.
  const sans = sanSet(cert);
  assert.ok(sans.has('DNS:flag.test'));
  assert.ok(!sans.has('DNS:env.test'));
});
