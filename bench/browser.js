// `npm run bench:browser`: the lab's servers beside nginx, as a browser sees them. One headless
// Chromium page fetches the same bytes (100 × 0.1 MiB by default, warm connections, no cache,
// unique URLs) from a lab server and from nginx in turn, lab first in even rounds and nginx first
// in odd ones, and prints, side by side from one run, the median batch times and their ratio with
// a bootstrap interval: h1 against nginx's HTTP/1.1, h2-node (and, for information, h2-spdy)
// against nginx's HTTP/2. nginx (Debian: nginx) runs as this script's child with a generated
// configuration on free ports, the lab's certificate and the lab's response headers; the service
// the package installs is not used. The lab runs in a process of its own too, as it does for a
// person: in this one it shared its event loop with Playwright, whose handling of the browser's
// events for every fetch made this process use about 127 ms of CPU per h1 batch (nginx: 24 ms).
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { got, readArgs, readNumber, usageError } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { MiB, plainNumber } from '../common/setup/units.js';
import { certsDir } from '../server/config.js';
import { freePort } from '../server/fronts/ports.js';
import { findNginx, readBuild } from '../server/fronts/nginx.js';
import { payload } from '../server/http/payload.js';
import { createResponder } from '../server/http/respond.js';
import { launchBrowser, openLabPage } from '../runner/browsers/chromium.js';


const numbers = {
  rounds: { min: 2, max: 500, integer: true, default: 30 },
  // A server is compared in its steady state: the lab's JavaScript is compiled as it runs, and
  // after 3 batches its h1 still used 40–50 ms of CPU per batch, falling to 20–30 ms over the next
  // 40 (nginx: 10–20 ms from the first). Every connection is open after the first batch.
  'warm-up': { min: 1, max: 500, integer: true, default: 20 },
  requests: { min: 1, max: 1000, integer: true, default: 100 },
  size: { min: 0.001, max: 16, unit: 'MiB', default: 0.1 },
};

// Each lab server and the nginx server of its protocol; `target`: the ratio the issue asks for.
// The fronted families (Caddy's, nginx's, where the lab has them) for information: the same
// handler behind a front, so their CPU per batch is the lab's and the front's together.
const pairs = [
  { lab: 'h1', nginx: 'http/1.1', target: 1.05 },
  { lab: 'h2-node', nginx: 'h2', target: 1.05 },
  { lab: 'h2-spdy', nginx: 'h2' },
  { lab: 'caddy-h1', nginx: 'http/1.1' },
  { lab: 'caddy-h2', nginx: 'h2' },
  { lab: 'nginx-h1', nginx: 'http/1.1' },
  { lab: 'nginx-h2', nginx: 'h2' },
];
const pairIds = pairs.map((p) => p.lab);

const usage = `Usage: npm run bench:browser -- [--servers LIST] [--rounds N] [--warm-up N] [--requests N] [--size MiB]
  --servers LIST lab servers to set beside nginx, comma-separated (default: ${pairIds.join(',')})
  --rounds N     alternating rounds; each times every pair once, in turn (default 30)
  --warm-up N    untimed batches per server before the rounds (default 20)
  --requests N   parallel fetches per timed batch (default 100)
  --size MiB     body of each fetch in MiB (default 0.1)
nginx comes from NGINX_PATH, else PATH or /usr/sbin (Debian: apt-get install -y nginx).`;

/** @param {string[]} args */
function parse(args) {
  const values = readArgs(args, {
    servers: { type: 'string', default: pairIds.join(','), accepts: 'a comma-separated list of lab servers' },
    ...Object.fromEntries(Object.entries(numbers).map(([flag, b]) => [flag, { type: /** @type {const} */ ('string'), default: String(b.default) }])),
  });
  const servers = values.servers.split(',').filter(Boolean);
  const unknown = servers.find((id) => !pairIds.includes(id));
  if (unknown !== undefined || !servers.length) throw usageError('servers', `must be one or more of ${pairIds.join(', ')}, ${got(unknown ?? values.servers)}`);
  return { help: values.help ?? false, servers, ...Object.fromEntries(Object.entries(numbers).map(([flag, b]) => [flag, readNumber(flag, values[flag], b)])) };
}

const installHint = 'nginx not found: install it with apt-get install -y nginx (Debian; the benchmark starts its own, the service need not run) or set NGINX_PATH';
const startTimeoutMs = 10_000;
const stopTimeoutMs = 5_000;
const bootstrapResamples = 2_000;

const isFile = (file) => {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};


/**
 * nginx's configuration: one worker (the lab is one Node process), HTTP/1.1 and HTTP/2 over TLS
 * 1.2 or 1.3 as Node's defaults (nginx 1.22 leaves TLS 1.3 out by default) with the lab's certificate, /option answered from a file of the lab's payload bytes with the
 * lab's headers (nginx adds date, content-type and content-length itself, and server and
 * last-modified, which it cannot leave out), keep-alive as long as the lab's.
 */
function nginxConfig({ dir, ports, origin, bytes, user, http2On }) {
  const responder = createResponder({ serverId: 'nginx', stats: {}, allowOrigin: () => origin });
  const own = new Set(['date', 'content-type', 'content-length', 'x-connection-id']);
  const headers = Object.entries(responder.headers({ origin, connectionId: 0 }, 'application/octet-stream', bytes, 0))
    .filter(([name]) => !own.has(name))
    .map(([name, value]) => `add_header ${name} "${value}" always;`);
  const server = (port, http2) => `
    server {
      listen 127.0.0.1:${port} ssl${http2 && !http2On ? ' http2' : ''};${http2 && http2On ? '\n      http2 on;' : ''}
      ssl_protocols TLSv1.2 TLSv1.3;
      ssl_certificate ${path.join(certsDir, 'server.crt')};
      ssl_certificate_key ${path.join(certsDir, 'server.key')};
      root ${dir};
      location = /option {
        try_files /payload =404;
        ${headers.join('\n        ')}
        add_header x-connection-id $connection always;
      }
    }`;
  return `${user ? `user ${user};` : ''}
worker_processes 1;
pid ${path.join(dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  server_tokens off;
  etag off;
  max_ranges 0;
  types {}
  default_type application/octet-stream;
  keepalive_timeout 60s;
  keepalive_requests 1000000;
  client_body_temp_path ${path.join(dir, 'body')};
  proxy_temp_path ${path.join(dir, 'proxy')};
  fastcgi_temp_path ${path.join(dir, 'fastcgi')};
  uwsgi_temp_path ${path.join(dir, 'uwsgi')};
  scgi_temp_path ${path.join(dir, 'scgi')};
  ${server(ports['http/1.1'], false)}
  ${server(ports.h2, true)}
}
`;
}

/** nobody and its group, for nginx's `user` (it takes names; nobody's group is nogroup on Debian). */
function nobody() {
  const fields = (file) => fs.readFileSync(file, 'utf8').split('\n').map((line) => line.split(':'));
  const gid = fields('/etc/passwd').find(([name]) => name === 'nobody')?.[3];
  const group = fields('/etc/group').find((f) => f[2] === gid)?.[0];
  return group ? `nobody ${group}` : 'nobody';
}

/** The lab on free ports with the fronts it finds, in a child process that ends with this one: what its describe() says, certs and close(). */
async function startLabProcess() {
  const script = `
    import { freePorts, startLab } from ${JSON.stringify(new URL('../server/lab.js', import.meta.url).href)};
    const lab = await startLab({ ...freePorts });
    process.send(lab.describe());
    process.on('disconnect', () => lab.close().finally(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [described] = await Promise.race([once(child, 'message'), once(child, 'exit').then(([code]) => Promise.reject(new Error(`the lab exited while starting (${code})`)))]);
  return {
    ...described,
    pid: child.pid,
    certs: { spkiSha256: described.certificate.spkiSha256 },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * nginx on two free ports, in a process group of its own (stop() takes master and worker alike);
 * setpriv --pdeathsig has the kernel stop the master when this script dies, and the master its worker.
 */
async function startNginx({ bin, origin, bytes }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-nginx-'));
  const ports = { 'http/1.1': await freePort(0, '127.0.0.1'), h2: await freePort(0, '127.0.0.1') };
  // Started by root, nginx's worker runs as nobody, which must be able to read the payload.
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'payload'), Buffer.concat([payload(bytes)].flat()), { mode: 0o644 });
  const conf = path.join(dir, 'nginx.conf');
  // nginx 1.25.1 replaced `listen … http2` (deprecated since) by `http2 on`.
  const [major, minor, patch] = (readBuild(spawnSync(bin, ['-V'], { encoding: 'utf8' }).stderr).version ?? '0.0.0').split('.').map(Number);
  const http2On = major > 1 || minor > 25 || (minor === 25 && patch >= 1);
  fs.writeFileSync(conf, nginxConfig({ dir, ports, origin, bytes, user: process.getuid?.() === 0 ? nobody() : null, http2On }));
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(isFile);
  const argv = [...(setpriv ? [setpriv, '--pdeathsig', 'SIGTERM'] : []), bin, '-p', dir, '-c', conf, '-e', 'stderr', '-g', 'daemon off;'];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (log += text));
  const killGroup = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', killGroup);
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(killGroup, stopTimeoutMs);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', killGroup);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + startTimeoutMs;
  while (!(await accepts(ports['http/1.1'])) || !(await accepts(ports.h2))) {
    if (!running() || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${log.trim().split('\n').at(-1) || 'no message'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const version = /nginx\/(\S+)/.exec(spawnSync(bin, ['-v'], { encoding: 'utf8' }).stderr)?.[1] ?? '?';
  return { version, pid: child.pid, origins: Object.fromEntries(Object.entries(ports).map(([p, port]) => [p, `https://localhost:${port}`])), stop };
}

/**
 * In the page: `requests` parallel fetches of unique URLs, each body read to its end as a Blob,
 * as the lab's engine does; the batch's time from the first dispatch to the last body's end.
 * Every response must be a 200 of the expected length over the expected protocol.
 */
async function timedBatch({ origin, query, requests, bytes, protocol }) {
  performance.clearResourceTimings();
  const base = `${origin}/option?${query}&i=`;
  const t0 = performance.now();
  let last = t0;
  const failures = [];
  await Promise.all(
    Array.from({ length: requests }, async (_, i) => {
      try {
        const res = await fetch(base + i, { cache: 'no-store' });
        const size = (await res.blob()).size;
        if (res.status !== 200 || size !== bytes) failures.push(`HTTP ${res.status}, ${size} bytes`);
      } catch (err) {
        failures.push(`${err.name}: ${err.message}`);
      }
      last = Math.max(last, performance.now());
    }),
  );
  const protocols = new Set(performance.getEntriesByType('resource').filter((e) => e.name.startsWith(base)).map((e) => e.nextHopProtocol));
  if (protocols.size !== 1 || !protocols.has(protocol)) failures.push(`spoke ${[...protocols].join(', ') || 'nothing'}, not ${protocol}`);
  return { totalMs: last - t0, failures };
}

const ticksPerSecond = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 10 ms on Linux

/** CPU ticks (user + system) used so far by this process and its children, from /proc. */
function cpuTicksOf(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const own = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat(5))
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
    return children.reduce((sum, child) => sum + cpuTicksOf(child), own);
  } catch {
    return 0; // not on Linux, or gone: counted as nothing
  }
}
const cpuMsOf = (pid) => (cpuTicksOf(pid) * 1000) / ticksPerSecond;

/** The browser this script launched (with its renderer, network and GPU processes below it): a child of this process, or null. */
function browserPid() {
  try {
    const children = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(' ');
    return children.find((pid) => /^(chromium|chrome)/.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8'))) ?? null;
  } catch {
    return null; // not on Linux: no browser column
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

/** A 95 % percentile-bootstrap interval of median(lab) / median(nginx), resampling rounds (pairs) together; seeded. */
function ratioInterval(lab, nginx) {
  let seed = 0x9e3779b9;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const ratios = [];
  for (let k = 0; k < bootstrapResamples; k++) {
    const picks = Array.from(lab, () => Math.floor(random() * lab.length));
    ratios.push(median(picks.map((i) => lab[i])) / median(picks.map((i) => nginx[i])));
  }
  ratios.sort((a, b) => a - b);
  return [ratios[Math.floor(0.025 * bootstrapResamples)], ratios[Math.ceil(0.975 * bootstrapResamples) - 1]];
}

/** Which TLS version and cipher each origin negotiated, as DevTools reports them. */
async function tlsOf(context, page, warm) {
  const cdp = await context.newCDPSession(page);
  const seen = new Map();
  cdp.on('Network.responseReceived', ({ response: r }) => {
    const origin = new URL(r.url).origin;
    if (r.securityDetails && !seen.has(origin)) seen.set(origin, `${r.securityDetails.protocol} ${r.securityDetails.cipher}`);
  });
  await cdp.send('Network.enable');
  await warm();
  await cdp.send('Network.disable'); // not while timing
  await cdp.detach();
  return seen;
}

async function run({ servers, rounds, 'warm-up': warmUp, requests, size }) {
  const bin = findNginx();
  if (!bin) throw new Error(installHint);
  const bytes = Math.floor(size * MiB);
  const lab = await startLabProcess();
  // A fronted family the lab has not (no Caddy, no nginx with HTTP/3) is left out in one line.
  const chosen = pairs.filter((p) => servers.includes(p.lab));
  const here = chosen.filter((p) => lab.servers.some((s) => s.id === p.lab && s.available));
  for (const p of chosen.filter((one) => !here.includes(one))) console.log(`${p.lab} left out: not running in this lab`);
  let nginx = null;
  let browser = null;
  try {
    nginx = await startNginx({ bin, origin: lab.ui, bytes });
    browser = await launchBrowser(lab);
    const page = await openLabPage(browser.context, lab.ui, { servers: here.map((p) => p.lab) });
    const labOrigin = Object.fromEntries(lab.servers.map((s) => [s.id, s.origin]));
    const protocolOf = Object.fromEntries(lab.servers.map((s) => [s.id, s.protocol]));
    const targets = here.flatMap((p) => [
      { key: p.lab, origin: labOrigin[p.lab], protocol: protocolOf[p.lab], pid: lab.pid },
      { key: `nginx ${p.nginx}`, origin: nginx.origins[p.nginx], protocol: p.nginx, pid: nginx.pid },
    ]);
    // A batch leaves 10 MiB of Blobs behind. Left to the renderer's own collection, their release
    // came every few batches at a fixed place in the round, and the batch there took 300–450 ms
    // longer: in one run every odd round's nginx h2 batch (2026-11-28, 520–1,300 ms batches). A
    // collection before each timed batch, outside its time, starts every batch alike.
    const collector = await browser.context.newCDPSession(page);
    const batch = async (t, tag) => {
      await collector.send('HeapProfiler.collectGarbage');
      const query = `size=${plainNumber(size)}&delay=0&run=${tag}`;
      const r = await page.evaluate(timedBatch, { origin: t.origin, query, requests, bytes, protocol: t.protocol });
      if (r.failures.length) throw new Error(`${t.key}: ${r.failures.length} of ${requests} fetches failed (${r.failures[0]})`);
      return r.totalMs;
    };
    // Warm: every connection open (HTTP/1.1's six) and the code paths hot on both sides.
    const tls = await tlsOf(browser.context, page, async () => {
      for (const t of targets) await batch(t, 'warm');
    });
    for (let k = 0; k < warmUp - 1; k++) for (const t of targets) await batch(t, `warm${k}`);

    const version = browser.context.browser()?.version() ?? 'Chromium';
    console.log(
      `h2lab browser benchmark · ${version} (headless) · node ${process.version} · nginx ${nginx.version} (1 worker) · ` +
        `${os.availableParallelism()} cores\n${requests} × ${plainNumber(size)} MiB per batch, warm, cache: no-store, unique URLs; ` +
        `${warmUp} untimed batches per server, then ${rounds} rounds, lab and nginx alternating (lab first in even rounds)`,
    );
    for (const t of targets) console.log(`  ${t.key.padEnd(14)} ${t.origin.padEnd(24)} ${tls.get(new URL(t.origin).origin) ?? '?'}`);

    const totals = Object.fromEntries(here.map((p) => [p.lab, { lab: [], nginx: [] }]));
    // The server's CPU time in its batches: the browser, its network service and the server share
    // the cores, so what a server spends per request is time the page waits.
    const cpuMs = Object.fromEntries(here.map((p) => [p.lab, { lab: 0, nginx: 0 }]));
    // The browser's too: what a server's way of sending costs the page (frames, records, order).
    const chromium = browserPid();
    const browserMs = Object.fromEntries(here.map((p) => [p.lab, { lab: 0, nginx: 0 }]));
    for (let round = 0; round < rounds; round++) {
      for (const p of here) {
        const [labT, nginxT] = targets.filter((t) => t.key === p.lab || t.key === `nginx ${p.nginx}`);
        const order = round % 2 ? [['nginx', nginxT], ['lab', labT]] : [['lab', labT], ['nginx', nginxT]];
        for (const [side, t] of order) {
          const cpuBefore = cpuMsOf(t.pid);
          const browserBefore = chromium ? cpuMsOf(chromium) : 0;
          totals[p.lab][side].push(await batch(t, `r${round}`));
          cpuMs[p.lab][side] += cpuMsOf(t.pid) - cpuBefore;
          browserMs[p.lab][side] += chromium ? cpuMsOf(chromium) - browserBefore : 0;
        }
      }
    }

    console.log(`\nMedian batch time (ms) and lab / nginx with a 95 % bootstrap interval over rounds`);
    console.log(`  ${'lab server'.padEnd(9)} ${'lab'.padStart(8)} ${'nginx'.padStart(8)}  ${'ratio'.padStart(6)}  interval     server CPU/batch (lab, nginx)  browser CPU/batch (lab, nginx)  target`);
    for (const p of here) {
      const { lab: l, nginx: n } = totals[p.lab];
      const ratio = median(l) / median(n);
      const [lo, hi] = ratioInterval(l, n);
      const target = p.target ? `≤ ${p.target.toFixed(2)}× ${ratio <= p.target ? 'met' : 'MISSED'}` : '(information)';
      console.log(
        `  ${p.lab.padEnd(9)} ${median(l).toFixed(1).padStart(8)} ${median(n).toFixed(1).padStart(8)}  ${`${ratio.toFixed(2)}×`.padStart(6)}  ` +
          `${lo.toFixed(2)}–${hi.toFixed(2)}×   ${`${(cpuMs[p.lab].lab / rounds).toFixed(0)} ms, ${(cpuMs[p.lab].nginx / rounds).toFixed(0)} ms`.padEnd(29)}  ${(chromium ? `${(browserMs[p.lab].lab / rounds).toFixed(0)} ms, ${(browserMs[p.lab].nginx / rounds).toFixed(0)} ms` : 'n/a').padEnd(30)}  ${target}  vs nginx ${p.nginx}`,
      );
    }
    console.log('A fronted server (caddy-*, nginx-*) pays the lab\'s CPU and its front\'s, a child of the lab process; "nginx" is the static nginx beside the lab.');
  } finally {
    await browser?.close();
    await nginx?.stop();
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:browser', usage, parse, run });
