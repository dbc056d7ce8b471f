// `npm run bench:announce`: the review's reproduction of the announcements (POST /api/dev-server,
// server/announce.js; npm run chrome's GET /api/devtools-channel) as a local process can abuse them. The lab runs as a
// child (test/robust/fixtures/lab-process.js); this process:
//  - listens on N ports and announces each as a dev server, --in-flight at a time, holding every
//    announcement the lab takes, as one process can: the answers by status and code, the lab's CPU
//    time, RSS and descriptors (idle, peak, after the announcements end), and GET /api/servers
//    timed every 50 ms by a process of its own, so that this one's load does not count (target:
//    under 50 ms); then the same requests to a route that does not exist, what any request costs;
//  - as root on Linux, offers a DevTools channel as npm run chrome does from a process running as
//    nobody (uid 65534), then asks the lab to apply a preset through it, as a page naming it does:
//    409 devtools-channel-unknown means nobody's offer reached nothing.
// Exits 1 when the lab held more than announceLimits.maxPerKind, the 99th percentile missed the
// target, or nobody's channel was taken.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { runCli } from '../cli/run.js';
import { readNumberArgs } from '../cli/options.js';
import { announceLimits } from '../server/config.js';
import { mb, rssPeak, spawnLab } from '../test/robust/fixtures/lab-child.js';

const usage = `Usage: npm run bench:announce -- [--announcements N] [--in-flight N]
  --announcements N  distinct listening ports announced (default 6,000, the review's)
  --in-flight N      announcements waiting for an answer at a time (default 50; N: all at once)`;

const numbers = {
  announcements: { min: 1, max: 8_000, integer: true, default: 6_000 },
  'in-flight': { min: 1, max: 8_000, integer: true, default: 50 },
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (n) => n.toLocaleString('en-US');
const nobody = 65534;
const probeTargetMs = 50;

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks; // utime, stime (fields 14, 15)
}
const fdsOf = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** Samples a process's descriptors every 20 ms; stop() returns the most seen. */
function fdPeak(pid) {
  let peak = fdsOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, fdsOf(pid))), 20);
  return { stop: () => (clearInterval(timer), peak) };
}

/** GET /api/servers every 50 ms from a process of its own; stop() resolves the times in ms. */
function startProbe(ui) {
  const script = `
    const times = [];
    let on = true;
    process.stdin.on('data', () => (on = false));
    (async () => {
      while (on) {
        const t = performance.now();
        await fetch(process.argv[1]).then((r) => r.arrayBuffer()).catch(() => {});
        times.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      console.log(JSON.stringify(times));
    })();`;
  const child = spawn(process.execPath, ['-e', script, `${ui}/api/servers`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text) => (out += text));
  return {
    async stop() {
      child.stdin.end('stop');
      await once(child, 'exit');
      return JSON.parse(out);
    },
  };
}

/** POST `path` held open; resolves { status, code, end() } once answered, or { status: 'error' }. */
function announce(ui, path) {
  return new Promise((resolve) => {
    const req = http.request(`${ui}${path}`, { method: 'POST', agent: false }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (body) => {
        let code;
        try {
          code = JSON.parse(body).code;
        } catch {
          code = undefined;
        }
        resolve({ status: res.statusCode, code, end: () => req.destroy() });
      });
    });
    req.on('error', (err) => resolve({ status: 'error', code: err.code, end: () => {} }));
    req.end();
  });
}

/**
 * Sends POST `pathOf(port)` for each of n listening ports, at most `inFlight` waiting for an answer
 * at a time, and holds every answer open until all came; then ends them. Returns what it measured.
 */
async function flood(lab, n, inFlight, pathOf) {
  const listeners = [];
  for (let i = 0; i < n; i++) listeners.push(net.createServer((socket) => socket.destroy()).listen(0, '127.0.0.1'));
  await Promise.all(listeners.map((server) => once(server, 'listening')));
  const idle = await lab.measure();
  const probe = startProbe(lab.ui);
  await sleep(500);
  const cpu0 = cpuSeconds(lab.pid);
  const rss = rssPeak(lab.pid);
  const fds = fdPeak(lab.pid);
  const t0 = performance.now();
  const answers = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, async () => {
    while (next < n) answers.push(await announce(lab.ui, pathOf(listeners[next++].address().port)));
  }));
  const seconds = (performance.now() - t0) / 1000;
  await sleep(1_000);
  const cpu = cpuSeconds(lab.pid) - cpu0;
  const [peakRss, peakFds, times] = [rss.stop(), fds.stop(), await probe.stop()];
  answers.forEach((a) => a.end());
  listeners.forEach((server) => server.close());
  await sleep(1_000);
  const after = await lab.measure();
  const byAnswer = {};
  for (const { status, code } of answers) byAnswer[`${status}${code ? ` ${code}` : ''}`] = (byAnswer[`${status}${code ? ` ${code}` : ''}`] ?? 0) + 1;
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Infinity;
  console.log(`  answers: ${Object.entries(byAnswer).map(([what, k]) => `${count(k)} × ${what}`).join(', ')}, all in ${seconds.toFixed(1)} s`);
  console.log(`  lab CPU ${cpu.toFixed(1)} s; RSS idle ${mb(idle.rssBytes)} MB, peak ${mb(peakRss)} MB, after ${mb(after.rssBytes)} MB; descriptors idle ${idle.fds}, peak ${count(peakFds)}, after ${after.fds}`);
  console.log(`  GET /api/servers meanwhile: ${times.length} probes, median ${at(0.5).toFixed(1)} ms, 99th percentile ${at(0.99).toFixed(1)} ms, slowest ${at(1).toFixed(1)} ms (target < ${probeTargetMs})`);
  return { held: answers.filter((a) => a.status === 200).length, p99: at(0.99) };
}
/** As nobody: offers a DevTools channel (a WebSocket's GET) and holds it; resolves { status, code, kill() }. */
async function offerAsNobody(ui, channel) {
  const script = `
    const headers = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    require('node:http').request(process.argv[1], { headers }, (res) => {
      res.setEncoding('utf8');
      res.once('data', (body) => console.log(JSON.stringify({ status: res.statusCode, code: JSON.parse(body).code })));
    }).on('upgrade', () => console.log(JSON.stringify({ status: 101 }))).on('error', (err) => console.log(JSON.stringify({ status: 'error', code: err.code }))).end();`;
  const child = spawn(process.execPath, ['-e', script, `${ui}/api/devtools-channel?devtools=${channel}`], { uid: nobody, gid: nobody, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout.setEncoding('utf8'), 'data');
  return { ...JSON.parse(line), kill: () => child.kill() };
}

async function nobodyPhase(lab) {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    console.log('\nAn announcement as nobody: skipped (needs root on Linux).');
    return true;
  }
  const channel = 'e'.repeat(32);
  const held = await offerAsNobody(lab.ui, channel);
  const res = await fetch(`${lab.ui}/api/emulation`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ devtoolsChannel: channel, pageUrl: `${lab.ui}/?devtools=${channel}`, preset: 'slow-4g' }),
  });
  const { code } = await res.json();
  held.kill();
  console.log(`\nA DevTools channel offered as npm run chrome does, by a process running as nobody (uid ${nobody}): ${held.status} ${held.code ?? ''}`);
  console.log(`  then PUT /api/emulation through it (a page at ?devtools=${channel}): ${res.status} ${code}${code === 'devtools-channel-unknown' ? ' (nothing reached)' : ' (taken)'}`);
  return code === 'devtools-channel-unknown';
}

async function run({ announcements, 'in-flight': inFlight }) {
  const lab = await spawnLab();
  try {
    console.log(`h2lab announce-flood · node ${process.version} · lab pid ${lab.pid}\n`);
    console.log(`${count(announcements)} distinct listening ports announced as dev servers (POST /api/dev-server) by this one process, ${count(inFlight)} at a time, each answer held open:`);
    const { held, p99 } = await flood(lab, announcements, inFlight, (port) => `/api/dev-server?port=${port}`);
    console.log(`\nThe same requests to a route that does not exist (404): what any request costs the lab:`);
    await flood(lab, announcements, inFlight, (port) => `/api/no-such-route?port=${port}`);
    const floodOk = held <= announceLimits.maxPerKind && p99 < probeTargetMs;
    const nobodyOk = await nobodyPhase(lab);
    return floodOk && nobodyOk ? 0 : 1;
  } finally {
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:announce', usage, parse: (args) => readNumberArgs(args, numbers), run });
