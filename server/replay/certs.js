// The replay's own certificates: a CA made for the run (never the system's store, never the lab's
// name-constrained CA, which may sign only the lab's names) and leaves for the recorded hosts,
// trusted only by the throwaway profiles of the run (Chromium by the leaves' one SPKI). How many
// leaves is the coalescing setting: `host`, one per host, so no two origins can share a connection;
// `all`, one naming every host, so a browser may pool origins that resolve to one address onto one
// HTTP/2 or HTTP/3 connection, as it would for a site whose hosts share a certificate.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createCa, createLeaf, generateKeys, privatePem, sansOf, spkiHashOf, writePrivate } from '../certs.js';
import tls from 'node:tls';

/** @typedef {'host'|'all'} Coalescing */
export const coalescings = /** @type {const} */ (['host', 'all']);

// A run's CA lasts two days: long enough for the longest budget a command takes (168 h is the
// budget's bound, but a replay's CA is made afresh for every command).
const validityDays = 2;

/**
 * @typedef {object} ReplayCerts  written to `dir` (0700): ca.crt, replay.key (0600) and leaves/ (0700) with the leaves
 * @property {Coalescing} coalescing
 * @property {string} caPem
 * @property {string} caFile  its PEM file, which a Firefox profile's NSS database imports
 * @property {string} keyPem  every leaf's key
 * @property {string} keyFile
 * @property {string} spkiSha256  every leaf's SPKI, as Chromium's --ignore-certificate-errors-spki-list takes it
 * @property {Array<{ names: string[], certPem: string, certFile: string }>} leaves  `host`: one per
 *   host, in leaves/<host>.crt (the name nginx finds it by, server/fronts/nginx-config.js); `all`: one, in all.crt
 */

/**
 * @param {string[]} hosts  the recorded hosts (names, no ports)
 * @param {{ coalescing: Coalescing, dir: string }} o
 * @returns {Promise<ReplayCerts>}
 */
export async function makeReplayCerts(hosts, { coalescing, dir }) {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const names = [...new Set(hosts)];
  const ca = await createCa(null, { name: `CN=h2lab replay CA ${new Date().toISOString()}`, validityDays });
  const keys = await generateKeys();
  const groups = coalescing === 'all' ? [{ names, file: 'all.crt' }] : names.map((n) => ({ names: [n], file: `${n}.crt` }));
  // The leaves in a folder of their own, where nginx finds a host's by its name: a recorded host
  // named `ca` must not overwrite the CA's file, nor a handshake naming it be sent the CA.
  const leavesDir = path.join(dir, 'leaves');
  await fs.mkdir(leavesDir, { mode: 0o700 });
  const leaves = [];
  for (const g of groups) {
    const { certPem } = await createLeaf(ca, sansOf(g.names), keys);
    const certFile = path.join(leavesDir, g.file);
    await fs.writeFile(certFile, certPem, { mode: 0o600 });
    leaves.push({ names: g.names, certPem, certFile });
  }
  const keyPem = privatePem(keys.privateKey);
  const keyFile = path.join(dir, 'replay.key');
  await writePrivate(keyFile, keyPem);
  const caFile = path.join(dir, 'ca.crt');
  await fs.writeFile(caFile, ca.certPem, { mode: 0o600 });
  return { coalescing, caPem: ca.certPem, caFile, keyPem, keyFile, spkiSha256: spkiHashOf(leaves[0].certPem), leaves };
}

/**
 * The Node servers' TLS options for `certs`: each handshake gets the leaf its SNI names (the
 * first leaf where it names none of them, as a client without SNI would).
 * @param {ReplayCerts} certs
 * @returns {{ key: string, cert: string, SNICallback: (name: string, cb: (err: Error|null, ctx?: tls.SecureContext) => void) => void }}
 */
export function servedTls({ keyPem, leaves }) {
  const contexts = new Map(leaves.flatMap((l) => {
    const context = tls.createSecureContext({ key: keyPem, cert: l.certPem });
    return l.names.map((n) => [n, context]);
  }));
  const [first] = leaves;
  return { key: keyPem, cert: first.certPem, SNICallback: (name, cb) => cb(null, contexts.get(name.toLowerCase()) ?? contexts.get(first.names[0])) };
}
