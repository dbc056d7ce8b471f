// Local CA + leaf certificate for the lab's TLS servers.
// The CA is kept across leaf renewals so a user who imported it into a trust
// store keeps trusting new leaves; Chrome itself trusts the leaf by SPKI hash.
// Someone who imports the CA trusts whoever holds ca.key: so the CA may sign only for the lab's
// own names (name constraints), only leaves (pathLenConstraint 0), and only for a year.
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { KeyObject, X509Certificate, createHash, createPrivateKey, createPublicKey } from 'node:crypto';
// Web Crypto is the global `crypto`: the object node:crypto exports as webcrypto, typed as the
// Crypto @peculiar/x509 takes (@types/node's own type of it differs from that in overloads only).

// @peculiar/x509 loads tsyringe, which needs the Reflect metadata API its README asks for.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { allLabHostNames } from '../common/setup/host-names.js';

const DAY_MS = 24 * 60 * 60 * 1000;
// A year (it was ten): a trust-store entry someone forgot, or a ca.key copied off the machine,
// lapses within a year of the CA's making; the lab then makes a new one, to be imported again.
// The leaf lives as long as its CA (never longer), within the 398 days browsers allow a public
// leaf and Apple's 825 for any.
const CA_VALIDITY_DAYS = 365;
// Start validity in the past so a machine whose clock is slightly behind accepts new certs.
const BACKDATE_MS = DAY_MS;
// Renew ahead of expiry so a running server does not serve an expired cert mid-session.
const RENEW_BEFORE_MS = DAY_MS;
// The lab's names too (common/setup/host-names.js): a browser that reaches the lab by name (Firefox).
const DEFAULT_SANS = ['localhost', '127.0.0.1', '::1', ...allLabHostNames];
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' };
const DNS_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const NAME_CONSTRAINTS_OID = '2.5.29.30';

/** @typedef {{ type: 'dns'|'ip', value: string }} San  a subjectAltName, in canonical form */
/** @typedef {{ caKey: string, caCert: string, key: string, cert: string }} CertPaths */
/**
 * The lab's CA: its PEMs, the certificate parsed, and its key for signing leaves.
 * @typedef {{ keyPem: string, certPem: string, cert: X509Certificate, signingKey: CryptoKey }} Ca
 */

/**
 * Base64 SHA-256 of the certificate's DER SubjectPublicKeyInfo (Chrome's --ignore-certificate-errors-spki-list value).
 * @param {string} certPem
 */
export function spkiHashOf(certPem) {
  const spkiDer = createPublicKey(certPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spkiDer).digest('base64');
}

/**
 * Default SANs plus `extra`, deduplicated, as [{ type: 'dns'|'ip', value }].
 * Throws on a name that is neither an IP address nor a valid DNS name.
 * @param {readonly string[]} [extra]
 * @returns {San[]}
 */
export const sanList = (extra = []) => sansOf([...DEFAULT_SANS, ...extra]);

/**
 * `names` as SANs, deduplicated; throws on one that is neither an IP address nor a DNS name.
 * @param {readonly string[]} names
 * @returns {San[]}
 */
export function sansOf(names) {
  /** @type {Map<string, San>} */
  const byKey = new Map();
  for (const raw of names) {
    const name = String(raw).trim();
    /** @type {San} */
    let san;
    if (net.isIP(name)) san = { type: 'ip', value: canonicalIp(name) };
    else if (DNS_NAME.test(name.toLowerCase())) san = { type: 'dns', value: name.toLowerCase() };
    else throw new Error(`invalid SAN "${raw}": not an IP address or DNS name`);
    byKey.set(sanKey(san), san);
  }
  return [...byKey.values()];
}

/**
 * Reuses ca.* and server.* in `dir` while they are valid for another day and both are made for
 * exactly the default SANs plus `sans` (the CA's name constraints, the leaf's SANs); otherwise
 * regenerates the leaf, and the CA too when the CA is bad or constrained to other names.
 * `caReplaced`: a ca.crt was there and a new one replaced it.
 * @param {{ dir: string, sans?: readonly string[] }} o
 */
export async function ensureCerts({ dir, sans = [] }) {
  const wanted = sanList(sans);
  /** @type {CertPaths} */
  const paths = {
    caKey: path.resolve(dir, 'ca.key'),
    caCert: path.resolve(dir, 'ca.crt'),
    key: path.resolve(dir, 'server.key'),
    cert: path.resolve(dir, 'server.crt'),
  };
  await fs.mkdir(dir, { recursive: true });

  let generated = false;
  let caReplaced = false;
  let ca = await loadCa(paths, wanted);
  if (!ca) {
    // Someone may have imported the old one into a trust store, where it now does nothing.
    caReplaced = await fs.access(paths.caCert).then(() => true, () => false);
    ca = await createCa(wanted);
    await writePrivate(paths.caKey, ca.keyPem);
    await fs.writeFile(paths.caCert, ca.certPem);
    generated = true;
  }

  let leaf = await loadLeaf(paths, ca, wanted);
  if (!leaf) {
    leaf = await createLeaf(ca, wanted);
    await writePrivate(paths.key, leaf.keyPem);
    await fs.writeFile(paths.cert, leaf.certPem);
    generated = true;
  }

  return {
    key: leaf.keyPem,
    cert: leaf.certPem,
    ca: ca.certPem,
    spkiSha256: spkiHashOf(leaf.certPem),
    generated,
    caReplaced,
    paths,
  };
}

// Returns the CA if both files parse, match, and stay valid long enough, and the CA is one this
// module would make for `wanted` (constraints, path length, validity): a CA made before those
// rules, or for other names, is replaced. Otherwise null.
/** @param {CertPaths} paths @param {San[]} wanted @returns {Promise<Ca|null>} */
async function loadCa(paths, wanted) {
  const [keyPem, certPem] = await Promise.all([readOrNull(paths.caKey), readOrNull(paths.caCert)]);
  if (keyPem === null || certPem === null) return null;
  try {
    const cert = new X509Certificate(certPem);
    const keyObject = createPrivateKey(keyPem);
    if (!cert.ca || !isCurrent(cert) || !cert.checkPrivateKey(keyObject)) return null;
    const parsed = new x509.X509Certificate(certPem);
    const basic = parsed.getExtension(x509.BasicConstraintsExtension);
    const constraints = parsed.getExtension(NAME_CONSTRAINTS_OID);
    const lifetimeMs = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
    if (basic?.pathLength !== 0 || !constraints?.critical || lifetimeMs > CA_VALIDITY_DAYS * DAY_MS + BACKDATE_MS) return null;
    if (!Buffer.from(constraints.value).equals(nameConstraintsDer(wanted))) return null;
    // Import as WebCrypto key now: a CA key of another type fails here and is replaced.
    const signingKey = await crypto.subtle.importKey(
      'pkcs8', keyObject.export({ type: 'pkcs8', format: 'der' }), KEY_ALGORITHM, false, ['sign']);
    return { keyPem, certPem, cert, signingKey };
  } catch {
    return null;
  }
}

// Returns the leaf if it parses, matches its key, was issued by `ca`, has the wanted SANs and stays valid; otherwise null.
/** @param {CertPaths} paths @param {Ca} ca @param {San[]} wanted */
async function loadLeaf(paths, ca, wanted) {
  const [keyPem, certPem] = await Promise.all([readOrNull(paths.key), readOrNull(paths.cert)]);
  if (keyPem === null || certPem === null) return null;
  try {
    const cert = new X509Certificate(certPem);
    const ok = isCurrent(cert)
      && cert.checkIssued(ca.cert)
      && cert.verify(ca.cert.publicKey)
      && cert.checkPrivateKey(createPrivateKey(keyPem))
      && sameSet(sanKeysOf(cert), wanted.map(sanKey));
    return ok ? { keyPem, certPem } : null;
  } catch {
    return null;
  }
}

/**
 * A CA that signs only leaves (pathLenConstraint 0). The lab's is constrained to `sans`; one
 * without constraints (`sans` null) is for a throwaway profile's trust alone (a replay's).
 * @param {San[]|null} sans
 * @param {{ name?: string, validityDays?: number }} [o]
 * @returns {Promise<Ca>}
 */
export async function createCa(sans, { name = 'CN=h2lab local CA', validityDays = CA_VALIDITY_DAYS } = {}) {
  const keys = await generateKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + validityDays * DAY_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      // Critical, as RFC 5280 §4.2.1.10 requires: a client that cannot check it must refuse.
      ...(sans ? [new x509.Extension(NAME_CONSTRAINTS_OID, true, nameConstraintsDer(sans))] : []),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
    ],
  }, crypto);
  const certPem = cert.toString('pem');
  return { keyPem: privatePem(keys.privateKey), certPem, cert: new X509Certificate(certPem), signingKey: keys.privateKey };
}

/**
 * A leaf for `sans` signed by `ca`, valid as long as it: its own key, or `keys` (leaves that
 * share one key share one SPKI, which Chromium trusts with one flag).
 * @param {Ca} ca @param {San[]} sans @param {CryptoKeyPair} [keys]
 */
export async function createLeaf(ca, sans, keys) {
  keys ??= await generateKeys();
  const caCert = new x509.X509Certificate(ca.certPem);
  // Serial number left to the library: 16 random bytes, encoded as a positive integer.
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=h2lab localhost',
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    notBefore: new Date(Date.now() - BACKDATE_MS),
    notAfter: caCert.notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, crypto),
      new x509.SubjectAlternativeNameExtension(sans),
    ],
  }, crypto);
  return { keyPem: privatePem(keys.privateKey), certPem: cert.toString('pem') };
}

/**
 * The NameConstraints extension's value (RFC 5280 §4.2.1.10) permitting exactly `sans`, in DER
 * (@peculiar/x509 has no class for it): permittedSubtrees [0] of GeneralSubtree { dNSName [2]
 * (a name permits itself and its subdomains, so *.x.test becomes x.test) or iPAddress [7] (the
 * address, then an all-ones mask: that one address) }. Sorted, so one set has one encoding.
 * @param {San[]} sans
 */
function nameConstraintsDer(sans) {
  const subtrees = sans.map(({ type, value }) => der(0x30, type === 'dns'
    ? der(0x82, Buffer.from(value.replace(/^\*\./, ''), 'ascii'))
    : der(0x87, Buffer.concat([ipBytes(value), Buffer.alloc(net.isIPv4(value) ? 4 : 16, 0xff)]))));
  return der(0x30, der(0xa0, Buffer.concat(subtrees.sort(Buffer.compare))));
}

// One DER tag-length-value; lengths up to 64 KiB, far above any list of names.
/** @param {number} tag @param {Buffer} content */
function der(tag, content) {
  const n = content.length;
  if (n > 0xffff) throw new Error('too many SANs for one certificate');
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

// An address in canonicalIp's form (IPv6 compressed, hex groups only) as its 4 or 16 bytes.
/** @param {string} ip */
function ipBytes(ip) {
  if (net.isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.split('::');
  /** @param {string|undefined} part */
  const groups = (part) => (part ? part.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), 2 * i));
  return bytes;
}

export function generateKeys() {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** @param {CryptoKey} cryptoKey */
export function privatePem(cryptoKey) {
  // Node's types allow a Buffer for any format; a PEM export is text.
  return /** @type {string} */ (KeyObject.from(cryptoKey).export({ type: 'pkcs8', format: 'pem' }));
}

/** @param {X509Certificate} cert */
function isCurrent(cert) {
  const now = Date.now();
  return Date.parse(cert.validFrom) <= now && Date.parse(cert.validTo) - now > RENEW_BEFORE_MS;
}

// Node prints SANs as "DNS:a, IP Address:b" with IPv6 in OpenSSL's expanded upper-case form.
/** @param {X509Certificate} cert */
function sanKeysOf(cert) {
  if (!cert.subjectAltName) return [];
  return cert.subjectAltName.split(', ').map((entry) => {
    const [, kind, value] = /** @type {string[]} both there whenever kind is */ (/^([^:]+):(.*)$/.exec(entry) ?? []);
    if (kind === 'DNS') return sanKey({ type: 'dns', value: value.toLowerCase() });
    if (kind === 'IP Address' && net.isIP(value)) return sanKey({ type: 'ip', value: canonicalIp(value) });
    return entry; // any other kind never matches a wanted SAN, forcing regeneration
  });
}

/** @param {San} san */
function sanKey({ type, value }) {
  return `${type}:${value}`;
}

// The WHATWG URL parser compresses and lower-cases IPv6, giving one spelling per address.
/** @param {string} ip */
function canonicalIp(ip) {
  return net.isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** @param {string[]} a @param {string[]} b */
function sameSet(a, b) {
  const sortedA = [...new Set(a)].sort();
  const sortedB = [...new Set(b)].sort();
  return sortedA.length === sortedB.length && sortedA.every((v, i) => v === sortedB[i]);
}

/** @param {string} file @returns {Promise<string|null>} */
async function readOrNull(file) {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return null;
    throw err;
  }
}

/** @param {string} file @param {string} pem */
export async function writePrivate(file, pem) {
  await fs.writeFile(file, pem, { mode: 0o600 });
  // The mode option only applies when the file is created.
  await fs.chmod(file, 0o600);
}
