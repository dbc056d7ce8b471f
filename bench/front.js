// `npm run bench:front`: what the fronts cost (Caddy, and nginx where one with HTTP/3 is found).
// Prints, side by side from one run, for 1 KiB and 100 KiB /option responses: the latency of one
// request at a time and the requests/s under a browser-sized load on the Node servers (h1,
// h2-node), on each front's family (caddy-h1 … nginx-h3) and on the hop alone (plain HTTP/1.1
// straight to the cleartext upstream a front forwards to), with the CPU time per 1,000 requests
// of the lab process and of the front. A front's total = the hop + its own TLS and protocol work.
// Load comes from h2load (Debian: nghttp2-client). Debian's h2load 1.52 is built without HTTP/3,
// so an HTTP/3 server's load comes from gtlsclient (ngtcp2-client), which opens all its streams at
// once: HTTP/3 gets a throughput figure and no latency one.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { readNumberArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { fronts as frontRegistry } from '../server/fronts/fronts.js';

const usage = `Usage: npm run bench:front -- [--rounds N] [--requests N] [--load-requests N]
  --rounds N          alternating rounds; the median is shown (default 3)
  --requests N        requests one at a time per latency measurement, after 500 untimed (default 3000)
  --load-requests N   requests per throughput measurement, after 1,000 untimed (default 20000)`;

const sizes = [
  { label: '1 KiB', mib: 1 / 1024 },
  { label: '100 KiB', mib: 100 / 1024 },
];

// As in bench:server: with taskset the lab gets core 0 (each front, its child, inherits it, so the
// server side has one core whichever server answers) and h2load core 1.
const pinned = availableParallelism() >= 2 && !spawnSync('taskset', ['-c', '0', 'true']).error;
const onCore = (core, argv) => (pinned ? ['taskset', ['-c', String(core), ...argv]] : [argv[0], argv.slice(1)]);
let ticksPerS; // clock ticks per second of /proc/<pid>/stat, from getconf CLK_TCK (in main)

/**
 * The rows for the fronts found: `base` is the Node server of the same protocol (HTTP/3 has none:
 * its family's HTTP/2); the hop is the first front's HTTP/1.1 upstream.
 * @param {string[]} found  front ids
 */
const rowsFor = (found) => [
  { id: 'hop', protocol: 'http/1.1', label: 'hop alone', upstreamOf: `${found[0]}-h1` },
  { id: 'h1', protocol: 'http/1.1' },
  ...found.map((f) => ({ id: `${f}-h1`, protocol: 'http/1.1', base: 'h1', front: f })),
  { id: 'h2-node', protocol: 'h2' },
  ...found.map((f) => ({ id: `${f}-h2`, protocol: 'h2', base: 'h2-node', front: f })),
  ...found.map((f) => ({ id: `${f}-h3`, protocol: 'h3', base: `${f}-h2`, front: f })),
];
// Under load, each protocol the way a browser uses it: six HTTP/1.1 connections, or one
// connection with 100 streams (HTTP/3: h3load below).
const loadOf = { 'http/1.1': ['-c', '6', '-m', '1'], h2: ['-c', '1', '-m', '100'] };
const protocolFlags = { 'http/1.1': ['--h1'], h2: ['--npn-list=h2'] };
const runLimitMs = 300_000; // a client that hangs (a TCP client on an HTTP/3 port does) fails the run

/** utime + stime of a process, in µs (/proc/<pid>/stat, fields 14 and 15). */
function procCpuUs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerS) * 1e6;
}

/** The pid of the process named `comm` whose parent is `ppid`. */
function childPidOf(ppid, comm) {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name === comm && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) return Number(pid);
    } catch {
      // a process that ended while we looked
    }
  }
  return null;
}

/** The lab with the families of the fronts found, in a process of its own (bench/serve.js --fronts). @param {string[]} found */
async function startLab(found) {
  const serve = new URL('./serve.js', import.meta.url).pathname;
  const child = spawn(...onCore(0, [process.execPath, serve, '--fronts', found.join(',')]), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  const first = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => null)]);
  if (!first) throw new Error(`the lab did not start: ${stderr.trim().split('\n').at(-1) ?? 'no message'}`);
  const [{ servers, fronts }] = first;
  const lab = {
    servers: Object.fromEntries(servers.map((s) => [s.id, s])),
    /** { requests, upstreamConnections } of a server: requests its handler saw, connections to its upstream. */
    async counters(id) {
      child.send('stats');
      const [{ stats, upstreamConnections }] = await once(child, 'message');
      return { requests: stats.find((s) => s.id === id).requests, upstreamConnections: upstreamConnections[id] ?? 0 };
    },
    async labCpuUs() {
      child.send('cpu');
      const [{ cpuUs }] = await once(child, 'message');
      return cpuUs;
    },
    /** @type {Record<string, number>} each front's pid */
    pids: {},
    /** @param {string} [front] */
    frontCpuUs: (front) => (front ? procCpuUs(lab.pids[front]) : 0),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.send('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000); // the fronts follow (setpriv --pdeathsig)
      await exited;
      clearTimeout(timer);
    },
  };
  for (const f of found) {
    if (fronts[f].status !== 'running') {
      await lab.close();
      throw new Error(`${f} is ${fronts[f].status}: ${fronts[f].reason}`);
    }
    // The front's binary names its process (through setpriv, which execs it).
    lab.pids[f] = childPidOf(child.pid, f);
    if (!lab.pids[f]) {
      await lab.close();
      throw new Error(`no ${f} process among the lab's children (pid ${child.pid})`);
    }
  }
  return lab;
}

/** Runs h2load; returns { reqPerS, ok, latenciesUs? }. Throws when a request failed. */
function h2load(row, url, flags, { log = false } = {}) {
  const logFile = log && path.join(fs.mkdtempSync(path.join(tmpdir(), 'h2lab-front-')), 'requests.tsv');
  try {
    // Flow-control windows as in bench:server, at least Chrome's.
    const argv = ['h2load', ...protocolFlags[row.protocol], '-t', '1', '-w', '23', '-W', '24', ...(logFile ? [`--log-file=${logFile}`] : []), ...flags, url];
    const out = execFileSync(...onCore(1, argv), { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], timeout: runLimitMs, killSignal: 'SIGKILL' });
    const reqPerS = Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(out)?.[1]);
    const [, total, ok] = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded/.exec(out) ?? [];
    const alpn = /Application protocol: (\S+)/.exec(out)?.[1];
    const status2xx = Number(/status codes: (\d+) 2xx/.exec(out)?.[1]);
    if (alpn !== row.protocol) throw new Error(`h2load spoke ${alpn ?? 'nothing'} to ${row.id} at ${url}, not ${row.protocol}`);
    if (Number(ok) !== Number(total) || status2xx !== Number(total)) {
      throw new Error(`${row.id}: ${ok} of ${total} requests succeeded, ${status2xx} with 2xx (h2load ${flags.join(' ')} ${url})`);
    }
    const latenciesUs = logFile && fs.readFileSync(logFile, 'utf8').trim().split('\n').map((line) => Number(line.split('\t')[2]));
    return { reqPerS, ok: Number(ok), latenciesUs };
  } finally {
    if (logFile) fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  }
}

/**
 * HTTP/3 load from gtlsclient: `n` requests over one connection, as many streams at once as the
 * front allows (quic-go: 100, nginx: 128), like h2load -c1 -m100. Requests/s over the client's wall time; the
 * lab's request counter checks that every request reached the handler.
 */
async function h3load(lab, row, url, n) {
  const before = (await lab.counters(row.id)).requests;
  const started = performance.now();
  const argv = ['gtlsclient', '-q', '--exit-on-all-streams-close', '--timeout=10s', '-n', String(n), '127.0.0.1', new URL(url).port, url];
  execFileSync(...onCore(1, argv), { stdio: 'ignore', timeout: runLimitMs, killSignal: 'SIGKILL' });
  const seconds = (performance.now() - started) / 1000;
  const served = (await lab.counters(row.id)).requests - before;
  if (served !== n) throw new Error(`${row.id}: the handler saw ${served} of ${n} requests (gtlsclient -n ${n} ${url})`);
  return { reqPerS: n / seconds, ok: n };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** One measurement of a row (h2load; gtlsclient for HTTP/3), with the lab's and its front's CPU around it; null if it has none. */
async function measure(lab, row, size, mode, { requests, loadRequests }) {
  const upstreamOf = row.upstreamOf ?? row.id;
  const server = lab.servers[upstreamOf];
  const origin = row.id === 'hop' ? `http://127.0.0.1:${server.upstreamPort}` : server.origin;
  const url = `${origin}/option?size=${size.mib}`;
  const flags = mode === 'latency' ? ['-c', '1', '-m', '1'] : loadOf[row.protocol];
  if (row.protocol === 'h3' && mode === 'latency') return null; // no client sends HTTP/3 requests one at a time
  const run = (n, o) => (row.protocol === 'h3' ? h3load(lab, row, url, n) : h2load(row, url, [...flags, '-n', String(n)], o));
  await run(mode === 'latency' ? 500 : 1000); // warm-up: JIT, the front's upstream pool
  const n = mode === 'latency' ? requests : loadRequests;
  const [lab0, front0, conns0] = [await lab.labCpuUs(), lab.frontCpuUs(row.front), (await lab.counters(upstreamOf)).upstreamConnections];
  const r = await run(n, { log: mode === 'latency' });
  const [lab1, front1, conns1] = [await lab.labCpuUs(), lab.frontCpuUs(row.front), (await lab.counters(upstreamOf)).upstreamConnections];
  // CPU in µs per request, which is ms per 1,000 requests.
  const sample = { reqPerS: r.reqPerS, labMs: (lab1 - lab0) / r.ok, frontMs: (front1 - front0) / r.ok, connsPer1k: ((conns1 - conns0) / r.ok) * 1000 };
  if (r.latenciesUs) {
    const sorted = r.latenciesUs.sort((a, b) => a - b);
    Object.assign(sample, { mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) });
  }
  return sample;
}

const fmt = (x, digits = 0) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (x, base) => `${(x / base).toFixed(2)}×`;

function printBlock(title, mode, results) {
  console.log(title);
  const byId = Object.fromEntries(results.map((r) => [r.id, r]));
  const cols =
    mode === 'latency'
      ? ['mean µs', 'p50 µs', 'p99 µs', 'p50 − hop', 'p50 vs', 'lab CPU', 'front CPU', 'CPU vs']
      : ['req/s', 'req/s vs', 'lab CPU', 'front CPU', 'CPU vs', 'upstream conns'];
  const widths = mode === 'latency' ? [8, 8, 8, 11, 17, 9, 10, 17] : [8, 17, 9, 10, 17, 15];
  console.log(`  ${'server'.padEnd(9)} ${cols.map((c, i) => c.padStart(widths[i])).join(' ')}`);
  for (const r of results) {
    if (r.missing) {
      console.log(`  ${(r.label ?? r.id).padEnd(9)} ${'—'.padStart(widths[0])}  (no HTTP/3 client here sends one request at a time)`);
      continue;
    }
    const base = r.base && byId[r.base];
    const cpu = r.labMs + r.frontMs;
    const vs = (x, y) => (base ? `${ratio(x, y)} ${r.base}` : '');
    const cells =
      mode === 'latency'
        ? [fmt(r.mean), fmt(r.p50), fmt(r.p99), r.front ? `+${fmt(r.p50 - byId.hop.p50)}` : '', vs(r.p50, base?.p50)]
        : [fmt(r.reqPerS), vs(r.reqPerS, base?.reqPerS)];
    cells.push(fmt(r.labMs, 1), r.front ? fmt(r.frontMs, 1) : '', vs(cpu, base && base.labMs + base.frontMs));
    if (mode === 'load') cells.push(r.id === 'hop' || r.front ? fmt(r.connsPer1k, 1) : '');
    console.log(`  ${(r.label ?? r.id).padEnd(9)} ${cells.map((c, i) => c.padStart(widths[i])).join(' ')}`);
  }
  console.log('');
}

async function main({ rounds, requests, 'load-requests': loadRequests }) {
  if (spawnSync('h2load', ['--version']).error) throw new Error('h2load not found: install it with apt-get install -y nghttp2-client');
  if (spawnSync('gtlsclient', ['--help']).error) throw new Error('gtlsclient (the HTTP/3 client) not found: install it with apt-get install -y ngtcp2-client');
  // Each front whose binary is there and fit (nginx: 1.25 or later with HTTP/3); one line for each left out.
  const found = [];
  for (const f of frontRegistry) {
    const bin = f.find(process.env);
    const unfit = bin ? await f.version(bin).then(() => null, (err) => err.message) : f.installHint;
    if (unfit) console.log(`${f.title} left out: ${unfit}`);
    else found.push(f);
  }
  if (!found.length) throw new Error('no front to measure');
  ticksPerS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const lab = await startLab(found.map((f) => f.id));
  const rows = rowsFor(found.map((f) => f.id));
  try {
    const versions = found.map((f) => lab.servers[`${f.id}-h1`].software.split(' → ')[0]).join(' · ');
    console.log(
      `h2lab front benchmark · node ${process.version} · ${versions} · ${rounds} round(s) · ` +
        `${pinned ? 'lab and fronts on core 0, h2load on core 1' : 'not pinned to cores'} · CPU in ms per 1,000 requests (fronts: /proc, ${ticksPerS} ticks/s)\n`,
    );
    const samples = {};
    const blocks = sizes.flatMap((size) => ['latency', 'load'].map((mode) => ({ size, mode })));
    for (let round = 0; round < rounds; round++) {
      for (const { size, mode } of blocks) {
        // Alternate the order so drift (thermal, other load) favours no row.
        for (const row of round % 2 ? [...rows].reverse() : rows) {
          ((samples[`${size.label} ${mode}`] ??= {})[row.id] ??= []).push(await measure(lab, row, size, mode, { requests, loadRequests }));
        }
      }
    }
    for (const { size, mode } of blocks) {
      const results = rows.map((row) => {
        const s = samples[`${size.label} ${mode}`][row.id];
        if (s.includes(null)) return { ...row, missing: true };
        const m = (key) => median(s.map((x) => x[key]));
        return { ...row, ...Object.fromEntries(['reqPerS', 'labMs', 'frontMs', 'connsPer1k', 'mean', 'p50', 'p99'].map((k) => [k, m(k)])) };
      });
      const title =
        mode === 'latency'
          ? `${size.label}, one request at a time (h2load -c1 -m1, ${fmt(requests)} requests): latency, median of rounds`
          : `${size.label}, under load (${fmt(loadRequests)} requests; HTTP/1.1: -c6 -m1; h2: -c1 -m100; h3: gtlsclient, 1 connection, 100 streams): throughput, median of rounds`;
      printBlock(title, mode, results);
    }
    console.log(
      `hop alone: plain HTTP/1.1 to the cleartext upstream of ${rows[0].upstreamOf}, no TLS, no front. "p50 − hop": what the front adds to it.\n` +
        'Latency ratios use the median: the mean follows a few slow requests (p99) and moved most between runs.\n' +
        'CPU vs: (lab + front) CPU per request against the named server. h3 has no Node server: compared with its family\'s h2.\n' +
        'upstream conns: TCP connections opened to the cleartext upstream per 1,000 requests (hop: the client\'s own).',
    );
  } finally {
    await lab.close();
  }
}

const numbers = {
  rounds: { min: 1, max: 20, integer: true, default: 3 },
  requests: { min: 100, max: 1_000_000, integer: true, default: 3000 },
  'load-requests': { min: 100, max: 1_000_000, integer: true, default: 20_000 },
};
process.exitCode = await runCli({ name: 'bench:front', usage, parse: (args) => readNumberArgs(args, numbers), run: main });
