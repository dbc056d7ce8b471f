// Which user the process at the other end of a TCP connection runs as, when that process is on
// this machine: Linux lists every socket of this network namespace, with its owner's uid, in
// /proc/net/tcp and /proc/net/tcp6. The peer's socket is the line whose local address is the
// connection's remote one and whose remote address is its local one. The gates that take only the
// lab user's (announcements: server/announcement-gate.js; trace uploads: server/ui.js) ask
// createPeerIdentifier, which reads the tables for many connections at once.
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
 * Calls `onLine` with each line of the table at `path` until it returns true or the table ends (no
 * such table: no lines). Read a chunk at a time: a machine with many sockets has tables of
 * megabytes (25,000 lines, 4 MB), which the lab should not hold whole, and a read that stops once
 * every peer is found costs the kernel only the lines up to them.
 * @param {string} path @param {(line: string) => boolean} onLine
 */
async function eachLine(path, onLine) {
  let handle;
  try {
    handle = await open(path);
  } catch {
    return; // no such table here (not Linux, or IPv6 off)
  }
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let partial = ''; // a line the last chunk cut
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      const lines = (partial + chunk.toString('latin1', 0, bytesRead)).split('\n');
      partial = bytesRead ? /** @type {string} split gives one string at least */ (lines.pop()) : '';
      if (lines.some(onLine) || !bytesRead) return;
    }
  } finally {
    await handle.close();
  }
}

/** @param {string} address */
const unmapped = (address) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/**
 * The uid of the process whose socket is each socket's peer, or null where the system does not
 * say: not Linux (no /proc/net/tcp), or a peer not on this machine, or gone. One read of each
 * table answers every socket.
 * @param {Array<Pick<import('node:net').Socket, 'remoteAddress' | 'remotePort' | 'localAddress' | 'localPort'>>} sockets
 * @param {{ procNet?: string }} [where] the directory of the socket tables (tests point elsewhere)
 * @returns {Promise<Array<number | null>>}
 */
export async function peerUids(sockets, { procNet = '/proc/net' } = {}) {
  /** @type {Array<number | null>} */
  const uids = sockets.map(() => null);
  // table → `local remote` as the table prints the peer's socket → the sockets it is the peer of
  /** @type {Record<string, Map<string, number[]>>} */
  const wanted = { tcp: new Map(), tcp6: new Map() };
  sockets.forEach(({ remoteAddress, remotePort, localAddress, localPort }, i) => {
    if (!remoteAddress || !localAddress) return;
    const [peer, own] = [unmapped(remoteAddress), unmapped(localAddress)];
    // An IPv4 peer's socket is in tcp; or in tcp6 under IPv4-mapped addresses, if it opened an IPv6
    // socket to reach an IPv4 address.
    const tables = net.isIPv4(peer) && net.isIPv4(own)
      ? [['tcp', peer, own], ['tcp6', `::ffff:${peer}`, `::ffff:${own}`]]
      : [['tcp6', peer, own]];
    for (const [file, local, remote] of tables) {
      // A socket with both addresses has both ports.
      const key = `${procAddress(local, /** @type {number} */ (remotePort))} ${procAddress(remote, /** @type {number} */ (localPort))}`;
      wanted[file].set(key, [...(wanted[file].get(key) ?? []), i]);
    }
  });
  for (const [file, keys] of Object.entries(wanted)) {
    if (!keys.size) continue;
    await eachLine(`${procNet}/${file}`, (line) => {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …
      const fields = line.trim().split(/\s+/, 8);
      const key = `${fields[1]} ${fields[2]}`;
      const found = keys.get(key);
      if (!found || fields[3] !== established) return false;
      for (const i of found) uids[i] = Number(fields[7]);
      keys.delete(key);
      return keys.size === 0;
    });
  }
  return uids;
}

/**
 * The uid of the process whose socket is `socket`'s peer, or null when the system does not say.
 * @param {Pick<import('node:net').Socket, 'remoteAddress' | 'remotePort' | 'localAddress' | 'localPort'>} socket
 * @param {{ procNet?: string }} [where]
 * @returns {Promise<number | null>}
 */
export async function peerUid(socket, where) {
  return (await peerUids([socket], where))[0];
}

/**
 * Tells whose each connection is, for many connections at a rate the lab can afford: a read of the
 * socket tables costs 3–60 ms of CPU (peerCheckLimits), so reads come at most `readsPerSecond`
 * after a burst of `burst`, and each answers every connection waiting for it. A flood of
 * connections costs the lab no more reads, and delays anyone's answer by one read's interval at
 * most: no user's flood refuses another user's connection.
 * @param {{ readsPerSecond: number, burst: number }} limits
 */
export function createPeerIdentifier({ readsPerSecond, burst }) {
  /** @type {Array<{ socket: import('node:net').Socket, resolve: (uid: number | null) => void }>} */
  let waiting = [];
  let reads = burst; // a token bucket
  let refilledAt = performance.now();
  let busy = false; // a read under way, or one timed
  const next = () => {
    if (busy || !waiting.length) return;
    const now = performance.now();
    reads = Math.min(burst, reads + ((now - refilledAt) / 1000) * readsPerSecond);
    refilledAt = now;
    busy = true;
    if (reads < 1) return setTimeout(() => { busy = false; next(); }, ((1 - reads) / readsPerSecond) * 1000);
    reads -= 1;
    const batch = waiting;
    waiting = [];
    peerUids(batch.map((w) => w.socket))
      .catch(() => batch.map(() => null)) // a table that fails to read says nothing
      .then((uids) => {
        batch.forEach((w, i) => w.resolve(uids[i]));
        busy = false;
        next();
      });
  };
  /** @param {import('node:net').Socket} socket @returns {Promise<number | null>} */
  const uidOf = (socket) => new Promise((resolve) => {
    waiting.push({ socket, resolve });
    next();
  });
  return {
    /**
     * Why `req` is not the lab's own user's, or null when it is: from a process of the lab's user,
     * and not through a proxy. A proxy's socket is its own user's, whoever sent it the request
     * (Vite's dev proxy is the lab user's): a request a proxy says it forwards is nobody's the lab
     * can name. Said before the socket tables are read, at no cost.
     * @param {import('node:http').IncomingMessage} req
     * @returns {Promise<string | null>}
     */
    async whyNotLabUser(req) {
      const proxied = forwardingHeader(req.headers);
      if (proxied) return `it came through a proxy (${proxied}), past which the lab cannot see who sent it`;
      const uid = await uidOf(/** @type {import('node:net').Socket} */ (req.socket));
      if (uid === process.getuid?.()) return null;
      if (uid !== null) return `this connection comes from another user (uid ${uid})`;
      // Elsewhere than Linux the lab cannot tell who connects, and says so.
      return process.platform === 'linux' ? 'this connection comes from another machine, or its process is gone' : `on ${process.platform} the lab cannot tell which user connects`;
    },
  };
}

/**
 * The header by which a proxy says it forwarded a request, if any: RFC 7239's Forwarded, the de
 * facto X-Forwarded-* (Vite's dev proxy adds them: vite.config.js sets xfwd), and Via.
 * @param {import('node:http').IncomingHttpHeaders} headers
 */
const forwardingHeader = (headers) => Object.keys(headers).find((name) => name === 'forwarded' || name === 'via' || name.startsWith('x-forwarded-'));
