import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { KeyObject, X509Certificate, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import tls from 'node:tls';
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

// Imported here, after server/certs.js has set up the Reflect metadata @peculiar/x509 needs.
const x509 = await import('@peculiar/x509');
const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' };
const labSans = [{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }, { type: 'ip', value: '::1' }];
const NAME_CONSTRAINTS_OID = '2.5.29.30';

/**
 * A certificate signed with `issuer`'s key ({ keyPem, certPem }; none: self-signed), as someone
 * holding that key could make it: a leaf for `sans`, or with `ca` a CA ({ pathLength, extensions }).
 * Resolves { keyPem, certPem }.
 */
async function issue({ issuer, sans = labSans, ca, notBefore, notAfter = new Date(Date.now() + 30 * DAY_MS), subject = 'CN=h2lab test' }) {
  const keys = await webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']);
  const signingKey = issuer
    ? await webcrypto.subtle.importKey('pkcs8', createPrivateKey(issuer.keyPem).export({ type: 'pkcs8', format: 'der' }), keyAlgorithm, false, ['sign'])
    : keys.privateKey;
  const extensions = ca
    ? [new x509.BasicConstraintsExtension(true, ca.pathLength, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true), ...(ca.extensions ?? [])]
    : [new x509.SubjectAlternativeNameExtension(sans)];
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: issuer ? new x509.X509Certificate(issuer.certPem).subjectName : subject,
    publicKey: keys.publicKey,
    signingKey,
    notBefore: notBefore ?? new Date(notAfter.getTime() - 30 * DAY_MS),
    notAfter,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions,
  }, webcrypto);
  return { certPem: cert.toString('pem'), keyPem: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) };
}

const caOnDisk = (paths) => ({ keyPem: read(paths.caKey), certPem: read(paths.caCert) });

// A leaf that is right in every way except its validity period, signed by the CA on disk.
async function writeLeafValidUntil(paths, notAfter) {
  const leaf = await issue({ issuer: caOnDisk(paths), notAfter });
  fs.writeFileSync(paths.cert, leaf.certPem);
  fs.writeFileSync(paths.key, leaf.keyPem);
}

// One DER element at the start of `bytes`: [tag, content, the bytes after it].
function tlv(bytes) {
  let length = bytes[1];
  let start = 2;
  if (length & 0x80) {
    start += length & 0x7f;
    length = bytes.readUIntBE(2, length & 0x7f);
  }
  return [bytes[0], bytes.subarray(start, start + length), bytes.subarray(start + length)];
}

/** The CA's NameConstraints, decoded from its DER: { critical, names: ['DNS:x', 'IP:<address>/<mask hex>'…] }. */
function permittedSubtrees(caPem) {
  const ext = new x509.X509Certificate(caPem).getExtension(NAME_CONSTRAINTS_OID);
  const [outerTag, outer] = tlv(Buffer.from(ext.value));
  const [permittedTag, permitted, excluded] = tlv(outer);
  assert.deepEqual([outerTag, permittedTag, excluded.length], [0x30, 0xa0, 0], 'permittedSubtrees [0] alone');
  const names = [];
  for (let rest = permitted; rest.length;) {
    const [subtreeTag, subtree, next] = tlv(rest);
    assert.equal(subtreeTag, 0x30);
    const [tag, value] = tlv(subtree);
    if (tag === 0x82) names.push(`DNS:${value.toString('ascii')}`);
    else if (tag === 0x87) {
      const half = value.length / 2;
      const address = half === 4 ? [...value.subarray(0, 4)].join('.') : value.subarray(0, 16).toString('hex').match(/.{4}/g).join(':');
      names.push(`IP:${address}/${value.subarray(half).toString('hex')}`);
    } else names.push(`tag ${tag}`);
    rest = next;
  }
  return { critical: ext.critical, names: names.sort() };
}

/**
 * A TLS handshake to a server presenting `chain` (leaf first) with `key`, verified against `ca`
 * for `servername` as any Node client verifies: resolves 'ok' or OpenSSL's words for the failure.
 */
async function handshake({ chain, key, ca, servername, host = '127.0.0.1' }) {
  const server = tls.createServer({ key, cert: chain.join('\n') }, (socket) => socket.end());
  server.on('tlsClientError', () => {});
  server.listen(0, host);
  await once(server, 'listening');
  try {
    return await new Promise((resolve) => {
      const socket = tls.connect({ host, port: server.address().port, ca: [ca], servername }, () => {
        socket.destroy();
        resolve('ok');
      });
      socket.on('error', (err) => resolve(err.message)); // Node names this OpenSSL error UNSPECIFIED
    });
  } finally {
    server.close();
  }
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
  assert.equal(result.caReplaced, false, 'a first CA replaces nothing');
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

test('new SANs regenerate the leaf, and the CA, whose name constraints follow the names', async (t) => {
  const dir = tempDir(t);
  const first = await ensureCerts({ dir });
  const second = await ensureCerts({ dir, sans: ['h2lab.test', '10.1.2.3'] });

  assert.equal(second.generated, true);
  assert.notEqual(second.ca, first.ca);
  assert.equal(second.caReplaced, true, 'npm start tells whoever imported the old CA');
  assert.ok(permittedSubtrees(second.ca).names.includes('DNS:h2lab.test'));
  assert.ok(permittedSubtrees(second.ca).names.includes('IP:10.1.2.3/ffffffff'));
  assert.notEqual(second.cert, first.cert);
  assert.notEqual(second.spkiSha256, first.spkiSha256);
  const sans = sanSet(second.cert);
  for (const san of ['DNS:localhost', 'DNS:h2lab.test', 'IP Address:10.1.2.3']) assert.ok(sans.has(san), san);

  // The same set in another order and spelling is not a change.
  const third = await ensureCerts({ dir, sans: ['10.1.2.3', 'H2LAB.test', '0:0:0:0:0:0:0:1'] });
  assert.equal(third.generated, false);
  assert.equal(third.caReplaced, false);
  // Fewer names: a CA still trusted for the dropped one would be more than the lab needs.
  const fourth = await ensureCerts({ dir });
  assert.notEqual(fourth.ca, second.ca);
  assert.deepEqual(permittedSubtrees(fourth.ca).names, permittedSubtrees(first.ca).names);
});

test('the CA signs only leaves, only for the lab\'s names, for a year; the leaf ends with it', async (t) => {
  const { ca, cert } = await ensureCerts({ dir: tempDir(t), sans: ['h2lab.test', '*.wild.test', '10.1.2.3', 'fd00::1'] });
  const basic = new x509.X509Certificate(ca).getExtension(x509.BasicConstraintsExtension);
  assert.deepEqual([basic.ca, basic.pathLength, basic.critical], [true, 0, true]);
  const ones = (bytes) => 'ff'.repeat(bytes);
  assert.deepEqual(permittedSubtrees(ca), {
    critical: true,
    names: [
      'DNS:h2lab.test', 'DNS:h3-link.h2lab.test', 'DNS:h3.h2lab.test', 'DNS:localhost', 'DNS:wild.test',
      `IP:0000:0000:0000:0000:0000:0000:0000:0001/${ones(16)}`, `IP:10.1.2.3/${ones(4)}`, `IP:127.0.0.1/${ones(4)}`,
      `IP:fd00:0000:0000:0000:0000:0000:0000:0001/${ones(16)}`,
    ].sort(),
  });
  const caCert = new X509Certificate(ca);
  const leaf = new X509Certificate(cert);
  assert.equal(Date.parse(caCert.validTo) - Date.parse(caCert.validFrom), 366 * DAY_MS, 'a year, from a day back');
  assert.equal(leaf.validTo, caCert.validTo);
});

test("Node's TLS verification: the lab's leaf passes, anything else its key signs fails", async (t) => {
  const certs = await ensureCerts({ dir: tempDir(t) });
  const lab = caOnDisk(certs.paths);
  const own = { chain: [certs.cert], key: certs.key, ca: certs.ca };
  assert.equal(await handshake({ ...own, servername: 'localhost' }), 'ok');
  assert.equal(await handshake({ ...own }), 'ok', 'by address, 127.0.0.1');
  assert.equal(await handshake({ ...own, host: '::1' }), 'ok', 'by address, ::1');

  // Whoever holds ca.key signs for a name of theirs, alone or beside the lab's, or for an address.
  const cases = [
    ['evil.example', [{ type: 'dns', value: 'evil.example' }]],
    ['evil.example beside localhost', [...labSans, { type: 'dns', value: 'evil.example' }]],
    ['a name under a lab name is still the lab\'s', [{ type: 'dns', value: 'sub.localhost' }]],
    ['10.9.9.9', [{ type: 'ip', value: '10.9.9.9' }]],
  ];
  for (const [what, sans] of cases) {
    const stolen = await issue({ issuer: lab, sans });
    const servername = sans.at(-1).type === 'dns' ? sans.at(-1).value : undefined;
    const result = await handshake({ chain: [stolen.certPem], key: stolen.keyPem, ca: certs.ca, servername });
    if (what.startsWith('a name under')) assert.equal(result, 'ok', what);
    else assert.equal(result, 'permitted subtree violation', what);
  }
  // An address's leaf is checked against the address the client connects to.
  const stolenIp = await issue({ issuer: lab, sans: [{ type: 'ip', value: '127.0.0.2' }] });
  assert.equal(await handshake({ chain: [stolenIp.certPem], key: stolenIp.keyPem, ca: certs.ca, host: '127.0.0.2' }), 'permitted subtree violation');

  // A sub-CA the key signs (pathLenConstraint 0) cannot issue anything, even for localhost.
  const sub = await issue({ issuer: lab, ca: { pathLength: 0 }, subject: 'CN=stolen sub-CA' });
  const viaSub = await issue({ issuer: sub });
  assert.equal(await handshake({ chain: [viaSub.certPem, sub.certPem], key: viaSub.keyPem, ca: certs.ca, servername: 'localhost' }), 'path length constraint exceeded');
});

test('a CA made without the constraints, the path length or the shorter validity is replaced, with its leaf', async (t) => {
  const good = await ensureCerts({ dir: tempDir(t) });
  const constraints = new x509.X509Certificate(good.ca).getExtension(NAME_CONSTRAINTS_OID);
  const tenYears = new Date(Date.now() + 3650 * DAY_MS);
  const variants = {
    'the CA of before (no constraints, no path length, ten years)': { ca: {}, notAfter: tenYears },
    'no name constraints': { ca: { pathLength: 0 } },
    'no path length': { ca: { extensions: [constraints] } },
    'ten years': { ca: { pathLength: 0, extensions: [constraints] }, notAfter: tenYears },
  };
  for (const [what, options] of Object.entries(variants)) {
    const dir = tempDir(t);
    const { paths } = await ensureCerts({ dir });
    const old = await issue({ ...options, subject: 'CN=h2lab local CA', notBefore: new Date(Date.now() - DAY_MS) });
    fs.writeFileSync(paths.caCert, old.certPem);
    fs.writeFileSync(paths.caKey, old.keyPem);
    await writeLeafValidUntil(paths, new Date(Date.now() + 300 * DAY_MS));
    const renewed = await ensureCerts({ dir });
    assert.equal(renewed.generated, true, what);
    assert.notEqual(renewed.ca, old.certPem, what);
    assert.equal(new x509.X509Certificate(renewed.ca).getExtension(x509.BasicConstraintsExtension).pathLength, 0, what);
    assert.deepEqual(permittedSubtrees(renewed.ca), permittedSubtrees(good.ca), what);
    assert.ok(new X509Certificate(renewed.cert).checkIssued(new X509Certificate(renewed.ca)), what);
  }
  // The control: the same steps with a CA the lab made keeps it.
  const dir = tempDir(t);
  const kept = await ensureCerts({ dir });
  assert.equal((await ensureCerts({ dir })).ca, kept.ca);
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
