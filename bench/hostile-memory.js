// `npm run bench:hostile`: the lab process's memory through a hostile sequence. The lab (all three
// Node servers, config.js's limits) runs as a child (bench/serve.js); this process attacks it
// phase by phase, server by server, and samples the child's RSS (/proc/<pid>/status) every 20 ms:
//  - rapid reset: 3,000 streams opened and reset in one write (HTTP/2 servers);
//  - floods: 20,000 SETTINGS and 20,000 PING frames (HTTP/2 servers);
//  - slowloris: 100 connections trickling a request's headers until the servers cut them;
//  - aborts, twice: 3,000 HTTP/2 streams or 1,000 HTTP/1.1 requests cut on their first body bytes;
//  - bulk: 1,000 × 1 MiB over one connection;
//  - stalled: clients that ask for 64 MiB bodies (50 HTTP/1.1 connections, or 3 HTTP/2
//    connections × 100 streams), never read, and disconnect 3 s later.
// Prints the idle RSS, each phase's peak and after per server, the whole sequence's peak and the
// RSS once the lab is quiet again (targets: peak ≤ 200 MB, after ≤ idle + 30 MB), and what the
// idle and after RSS are made of. With --malloc-trim, gdb then calls glibc's malloc_trim in the lab
// (a diagnostic the lab itself cannot do) and the split is printed again: what of "after" is memory
// glibc has freed but keeps.
import { fork, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import http2 from 'node:http2';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { readArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { serverById } from '../common/setup/servers.js';
import { certsDir } from '../server/config.js';
import { h1Agent, h2Session, inPool } from '../test/robust/fixtures/lab-child.js';
import { PREFACE, frame, getRequest, ping, rstStream, settings, type } from '../test/robust/raw.js';

const ca = readFileSync(path.join(certsDir, 'ca.crt'));
const targetPeakBytes = 200e6;
const targetAfterBytes = 30e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => (bytes / 1e6).toFixed(0);
const isH1 = (id) => serverById(id).protocol === 'http/1.1';
const usage = `Usage: npm run bench:hostile -- [--malloc-trim]
  --malloc-trim  after the sequence, call glibc's malloc_trim(0) in the lab through gdb and print
                 the RSS again (needs gdb and permission to attach to a child process)`;

async function startLab() {
  const child = fork(fileURLToPath(new URL('./serve.js', import.meta.url)), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: ['--no-deprecation'] });
  const [{ servers }] = await once(child, 'message');
  const ask = async (msg, key) => {
    child.send(msg);
    for (;;) {
      const [answer] = await once(child, 'message');
      if (answer[key]) return answer[key];
    }
  };
  return {
    pid: child.pid,
    // By address: a name lookup per connection would be part of every measurement.
    servers: Object.fromEntries(servers.filter((s) => s.available && !s.front).map((s) => [s.id, { ...s, origin: s.origin.replace('//localhost:', '//127.0.0.1:') }])),
    rss: () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024,
    open: async () => (await ask('stats', 'stats')).reduce((n, s) => n + s.openConnections, 0),
    /** The RSS in three parts: V8's heap, the C allocator's main heap, the rest (code, other mappings). */
    async parts() {
      const rss = this.rss();
      const v8Heap = await ask('v8heap', 'v8HeapBytes');
      const cHeap = /^[0-9a-f-]+ .*\[heap\]\n(?:.*\n)*?Rss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/smaps`, 'utf8'));
      const c = Number(cHeap?.[1] ?? 0) * 1024;
      return `${mb(rss)} MB (V8 heap ${mb(v8Heap)}, C heap ${mb(c)}, other ${mb(rss - v8Heap - c)})`;
    },
    async close() {
      const exited = once(child, 'exit');
      child.send('close');
      await exited;
    },
  };
}

function connect(lab, id) {
  const { hostname, port } = new URL(lab.servers[id].origin);
  const socket = tls.connect({ host: hostname, port, servername: 'localhost', ca, ALPNProtocols: [lab.servers[id].protocol] });
  socket.on('error', () => {});
  return once(socket, 'secureConnect').then(() => socket);
}

/** Resolves when the server closes the socket, or after ms. */
const closedWithin = (socket, ms) => Promise.race([once(socket, 'close'), sleep(ms)]).then(() => socket.destroy());

const phases = {
  async 'rapid reset'(lab, id) {
    if (isH1(id)) return false;
    const socket = await connect(lab, id);
    const parts = [PREFACE, settings()];
    for (let i = 0; i < 3_000; i++) parts.push(getRequest(1 + 2 * i, '/option?size=0.01'), rstStream(1 + 2 * i));
    socket.resume();
    socket.write(Buffer.concat(parts));
    await closedWithin(socket, 20_000);
  },
  async floods(lab, id) {
    if (isH1(id)) return false;
    await Promise.all([() => settings({ 3: 100 }), (i) => ping(i)].map(async (one) => {
      const socket = await connect(lab, id);
      socket.resume();
      socket.write(Buffer.concat([PREFACE, settings(), ...Array.from({ length: 20_000 }, (_, i) => one(i))]));
      await closedWithin(socket, 10_000);
    }));
  },
  async slowloris(lab, id) {
    const head = isH1(id) ? Buffer.from('GET /option?size=0 HTTP/1.1\r\nHost: localhost\r\nUser-Agent: slow\r\n\r\n') : getRequest(1, '/option?size=0', [['user-agent', 's'.repeat(40)]]);
    const sockets = await Promise.all(Array.from({ length: 100 }, () => connect(lab, id)));
    await Promise.all(sockets.map(async (socket) => {
      socket.resume();
      if (!isH1(id)) socket.write(Buffer.concat([PREFACE, settings()]));
      for (const byte of head) {
        if (socket.destroyed || socket.readyState !== 'open') break;
        socket.write(Buffer.from([byte]));
        await sleep(1_000);
      }
      socket.destroy();
    }));
  },
  async aborts(lab, id) {
    await abortStorm(lab, id);
    await abortStorm(lab, id);
  },
  async bulk(lab, id) {
    const { origin } = lab.servers[id];
    if (isH1(id)) {
      const agent = h1Agent(ca, 1);
      for (let i = 0; i < 1_000; i++) await h1Drain(agent, origin, '/option?size=1');
      agent.destroy();
      return;
    }
    const session = await h2Session(origin, ca);
    await inPool(1_000, 10, () => h2Drain(session, '/option?size=1'));
    session.close();
  },
  async stalled(lab, id) {
    const n = isH1(id) ? 50 : 3;
    const increment = Buffer.alloc(4);
    increment.writeUInt32BE(2 ** 31 - 1 - 65_535);
    const request = isH1(id)
      ? Buffer.from('GET /option?size=64 HTTP/1.1\r\nHost: localhost\r\n\r\n')
      : Buffer.concat([PREFACE, settings({ 4: 2 ** 31 - 1 }), frame(type.WINDOW_UPDATE, 0, 0, increment), ...Array.from({ length: 100 }, (_, i) => getRequest(1 + 2 * i, '/option?size=64'))]);
    const sockets = [];
    for (let i = 0; i < n; i++) {
      const socket = await connect(lab, id);
      socket.pause();
      socket.write(request);
      sockets.push(socket);
    }
    await sleep(3_000);
    for (const socket of sockets) socket.destroy();
  },
};

// Streams (or HTTP/1.1 requests) of 0.25 MiB cut on their first body bytes, as abort-storm.test.js does.
async function abortStorm(lab, id) {
  const { origin } = lab.servers[id];
  const requestPath = '/option?size=0.25';
  if (isH1(id)) {
    const agent = h1Agent(ca, 300);
    await inPool(1_000, 300, () => new Promise((resolve) => {
      const req = https.get(origin, { agent, path: requestPath }, (res) => {
        res.on('error', () => {});
        res.once('data', () => req.destroy());
      });
      req.on('error', () => {});
      req.on('close', resolve);
    }));
    agent.destroy();
    return;
  }
  // 500 cancels per session: both servers close a session after 1,000 resets (rapid reset).
  await inPool(6, 4, async () => {
    const session = await h2Session(origin, ca);
    await inPool(500, 100, () => new Promise((resolve) => {
      const stream = session.request({ ':path': requestPath }, { endStream: true });
      stream.once('data', () => stream.close(http2.constants.NGHTTP2_CANCEL));
      stream.on('error', () => {});
      stream.on('close', resolve);
    }));
    session.close();
  });
}

const h1Drain = (agent, origin, requestPath) => new Promise((resolve, reject) => {
  https.get(origin, { agent, path: requestPath }, (res) => res.resume().on('end', resolve).on('error', reject)).on('error', reject);
});
const h2Drain = (session, requestPath) => new Promise((resolve, reject) => {
  const stream = session.request({ ':path': requestPath }, { endStream: true });
  stream.resume().on('end', resolve).on('error', reject);
});

/** Ten requests of 0.1 MiB on one connection. */
async function warmUp(lab, id) {
  const { origin } = lab.servers[id];
  if (isH1(id)) {
    const agent = h1Agent(ca, 1);
    for (let i = 0; i < 10; i++) await h1Drain(agent, origin, '/option?size=0.1');
    agent.destroy();
    return;
  }
  const session = await h2Session(origin, ca);
  for (let i = 0; i < 10; i++) await h2Drain(session, '/option?size=0.1');
  session.close();
}

/**
 * Polls the lab until it has no connection open; resolves how many are left after `ms`. 12 s
 * covers headersTimeoutMs (10 s), after which the session clock ends an HTTP/2 connection the
 * server has given up on; one that made requests first stays up to idleTimeoutMs (60 s).
 */
async function quiet(lab, ms = 12_000) {
  const deadline = performance.now() + ms;
  let open;
  while ((open = await lab.open()) > 0 && performance.now() < deadline) await sleep(100);
  return open;
}

/** Calls malloc_trim(0) in the process: its result, or why gdb could not. */
function mallocTrim(pid) {
  const gdb = spawnSync('gdb', ['-p', String(pid), '-batch', '-ex', 'call (int) malloc_trim(0)'], { encoding: 'utf8', timeout: 60_000 });
  if (gdb.error) return { error: gdb.error.code === 'ENOENT' ? 'gdb is not installed (apt-get install -y gdb)' : gdb.error.message };
  const result = /^\$1 = (\d+)/m.exec(gdb.stdout);
  return result ? { released: result[1] === '1' } : { error: `gdb could not call it: ${gdb.stderr.trim().split('\n').at(-1)}` };
}

async function main({ 'malloc-trim': trim }) {
  const lab = await startLab();
  let peak = 0;
  let phasePeak = 0;
  const timer = setInterval(() => {
    const rss = lab.rss();
    peak = Math.max(peak, rss);
    phasePeak = Math.max(phasePeak, rss);
  }, 20);
  try {
    const started = lab.rss();
    // Warm: JIT, TLS contexts, the payload's views; then idle.
    for (const id of Object.keys(lab.servers)) await warmUp(lab, id);
    await quiet(lab);
    await sleep(2_000);
    const idle = lab.rss();
    const idleParts = await lab.parts();
    peak = idle;
    console.log(`h2lab hostile-memory · node ${process.version} · lab pid ${lab.pid}`);
    console.log(`RSS at start ${mb(started)} MB, idle after a warm-up ${mb(idle)} MB\n`);
    console.log(`${'phase'.padEnd(12)} ${'server'.padEnd(8)} ${'before'.padStart(7)} ${'peak'.padStart(6)} ${'rise'.padStart(5)} ${'after'.padStart(6)}  MB   time`);
    const rise = {};
    for (const [name, run] of Object.entries(phases)) {
      for (const id of Object.keys(lab.servers)) {
        const before = lab.rss();
        phasePeak = before;
        const t0 = performance.now();
        if ((await run(lab, id)) === false) continue;
        const left = await quiet(lab);
        const after = lab.rss();
        // A phase's rise is its own: the peak over the RSS it started from.
        if (phasePeak - before > (rise[id]?.bytes ?? -1)) rise[id] = { bytes: phasePeak - before, phase: name };
        console.log(`${name.padEnd(12)} ${id.padEnd(8)} ${mb(before).padStart(7)} ${mb(phasePeak).padStart(6)} ${mb(phasePeak - before).padStart(5)} ${mb(after).padStart(6)}      ${((performance.now() - t0) / 1000).toFixed(1)} s${left ? ` (${left} connection${left > 1 ? 's' : ''} still open)` : ''}`);
      }
    }
    // Back to idle: polled for up to 30 s once every connection is gone (one the session clock
    // holds goes within idleTimeoutMs).
    await quiet(lab, 65_000);
    const t0 = performance.now();
    let after = lab.rss();
    while (after > idle + targetAfterBytes && performance.now() - t0 < 30_000) {
      await sleep(500);
      after = lab.rss();
    }
    console.log(`\nwhole sequence: idle ${mb(idle)} MB, peak ${mb(peak)} MB (target ≤ ${mb(targetPeakBytes)}), after ${mb(after)} MB ${((performance.now() - t0) / 1000).toFixed(1)} s after the last phase (target ≤ idle + ${mb(targetAfterBytes)})`);
    // glibc's main heap keeps what it freed in the middle of the heap (only malloc_trim, which
    // Node does not call, would give it back); that is what a burst leaves behind.
    console.log(`RSS idle ${idleParts}, after ${await lab.parts()}`);
    if (trim) {
      const trimmed = mallocTrim(lab.pid);
      if (trimmed.error) console.log(`malloc_trim: ${trimmed.error}`);
      else console.log(`after malloc_trim(0) in the lab (gdb; ${trimmed.released ? 'memory released' : 'nothing to release'}): ${await lab.parts()}`);
    }
    console.log(`largest rise of a phase per server: ${Object.entries(rise).map(([id, r]) => `${id} +${mb(r.bytes)} MB (${r.phase})`).join(', ')}`);
    return peak <= targetPeakBytes && after <= idle + targetAfterBytes ? 0 : 1;
  } finally {
    clearInterval(timer);
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:hostile', usage, parse: (args) => readArgs(args, { 'malloc-trim': { type: 'boolean', default: false } }), run: main });
