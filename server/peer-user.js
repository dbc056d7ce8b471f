// Which user the process at the other end of a TCP connection runs as, when that process is on
// this machine: Linux lists every socket of this network namespace, with its owner's uid, in
// /proc/net/tcp and /proc/net/tcp6. The peer's socket is the line whose local address is the
// connection's remote one and whose remote address is its local one.
import { open } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';

const established = '01'; // the st column: a peer that closed (TIME_WAIT's uid is 0) holds nothing

/**
 * An address's 4 or 16 bytes, IPv6 given as Node prints it (`::1`, `::ffff:127.0.0.1`).
 * @param {string} address
 */
function addressBytes(address) {
  if (net.isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  // The URL parser writes any IPv6 form as hex groups with one `::` at most.
  const text = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  const [head, tail] = text.split('::').map((part) => (part ? part.split(':') : []));
  const groups = tail ? [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail] : head;
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

/**
 * `address:port` as the kernel prints it there: each 32-bit word of the address in network order
 * read as a number of this machine's byte order (127.0.0.1 is 0100007F on x86), then the port.
 * @param {string} address @param {number} port
 */
function procAddress(address, port) {
  const bytes = addressBytes(address);
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const word = os.endianness() === 'LE' ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i);
    hex += word.toString(16).toUpperCase().padStart(8, '0');
  }
  return `${hex}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The line of the table at `path` holding `needle`, or null (no such line, or no such table). Read
 * a chunk at a time up to the line: a machine with many sockets has tables of megabytes (25,000
 * lines, 4 MB), which the lab should not hold whole.
 * @param {string} path @param {string} needle
 * @returns {Promise<string|null>}
 */
async function lineWith(path, needle) {
  let handle;
  try {
    handle = await open(path);
  } catch {
    return null; // no such table here (not Linux, or IPv6 off)
  }
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let partial = ''; // a line the last chunk cut
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      const text = partial + chunk.toString('latin1', 0, bytesRead);
      const end = bytesRead ? text.lastIndexOf('\n') + 1 : text.length;
      const at = text.slice(0, end).indexOf(needle);
      if (at >= 0) {
        const lineEnd = text.indexOf('\n', at);
        return text.slice(at, lineEnd < 0 ? undefined : lineEnd);
      }
      if (!bytesRead) return null;
      partial = text.slice(end);
    }
  } finally {
    await handle.close();
  }
}

/** @param {string} address */
const unmapped = (address) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/**
 * The uid of the process whose socket is `socket`'s peer, or null when the system does not say:
 * not Linux (no /proc/net/tcp), or a peer not on this machine, or gone.
 * @param {import('node:net').Socket} socket
 * @param {{ procNet?: string }} [where] the directory of the socket tables (tests point elsewhere)
 * @returns {Promise<number | null>}
 */
export async function peerUid(socket, { procNet = '/proc/net' } = {}) {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !localAddress) return null;
  const [peer, own] = [unmapped(remoteAddress), unmapped(localAddress)];
  // An IPv4 peer's socket is in tcp; or in tcp6 under IPv4-mapped addresses, if it opened an IPv6
  // socket to reach an IPv4 address.
  const tables = net.isIPv4(peer) && net.isIPv4(own)
    ? [['tcp', peer, own], ['tcp6', `::ffff:${peer}`, `::ffff:${own}`]]
    : [['tcp6', peer, own]];
  for (const [file, local, remote] of tables) {
    // A socket with both addresses has both ports.
    const line = await lineWith(`${procNet}/${file}`, ` ${procAddress(local, /** @type {number} */ (remotePort))} ${procAddress(remote, /** @type {number} */ (localPort))} `);
    // (sl) local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …, from the match
    const fields = line?.trim().split(/\s+/);
    if (fields?.[2] === established) return Number(fields[6]);
  }
  return null;
}

/**
 * Whether `socket`'s peer runs as the same user as the lab. False where the system does not say
 * (peerUid null): there the lab takes no announcement (server/announcement-gate.js).
 * @param {import('node:net').Socket} socket @param {{ procNet?: string }} [where]
 */
export async function isLabUser(socket, where) {
  const uid = await peerUid(socket, where);
  return uid !== null && uid === process.getuid?.();
}
