// `npm run bench:server`: what the shared handler costs and how much memory the servers need.
// Prints, side by side from one run, requests/s for 1 KiB /option responses on every server and
// on a bare server of the same transport, and the peak RSS of the server process while a
// browser-sized load is served. Load comes from h2load (Debian: nghttp2-client).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { once } from 'node:events';
import { readNumberArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { baselineOf, servers as allServers } from '../common/setup/servers.js';

// The lab's own Node servers; the Caddy family (a front process) has bench/front.js.
const servers = allServers.filter((s) => !s.front);
const serverIds = servers.map((s) => s.id);

const usage = `Usage: npm run bench:server -- [--rounds N] [--requests N]
  --rounds N     alternating rounds per server and variant; the median is shown (default 3)
  --requests N   1 KiB requests per measurement, after 5,000 untimed (default 50000)`;

const kibMiB = 1024 / (1024 * 1024); // 1 KiB expressed in the endpoint's MiB

// With taskset and two or more cores, the server gets core 0 and h2load core 1, so the two do
// not take turns on one core (that alone moved results by ±15 % between runs).
const pinned = availableParallelism() >= 2 && !spawnSync('taskset', ['-c', '0', 'true']).error;
const onCore = (core, argv) => (pinned ? ['taskset', ['-c', String(core), ...argv]] : [argv[0], argv.slice(1)]);

async function startServers(bare) {
  const serve = new URL('./serve.js', import.meta.url).pathname;
  const child = spawn(...onCore(0, [process.execPath, serve, ...(bare ? ['--bare'] : [])]), { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const [{ servers: described }] = await once(child, 'message');
  return {
    servers: Object.fromEntries(described.map((s) => [s.id, s])),
    async cpuUs() {
      child.send('cpu');
      const [{ cpuUs }] = await once(child, 'message');
      return cpuUs;
    },
    async maxRssMB() {
      child.send('rss');
      const [{ maxRssKiB }] = await once(child, 'message');
      return maxRssKiB / 1024;
    },
    async close() {
      child.send('close');
      await once(child, 'exit');
    },
  };
}

/** Runs h2load; returns { reqPerS, ok, failed, errored }. */
function h2load(server, path, flags) {
  const h1 = server.protocol === 'http/1.1' ? ['--h1'] : [];
  // Flow-control windows of 8 MiB per stream and 16 MiB per connection, at least what Chrome
  // sets (6 and 15 MiB); spdy resets parallel large responses under the default 64 KiB.
  const out = execFileSync(...onCore(1, ['h2load', ...h1, '-w', '23', '-W', '24', ...flags, `${server.origin}${path}`]), {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const reqPerS = Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(out)?.[1]);
  const [, , ok, failed, errored] = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out) ?? [];
  return { reqPerS, ok: Number(ok), failed: Number(failed), errored: Number(errored) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

// On two cores h2load saturates before node:http2 does, so requests/s alone understates what
// the handler costs; the server's CPU time per request is the fairer yardstick for the target.
async function throughput({ rounds, requests }) {
  const samples = {};
  const add = (key, value) => (samples[key] ??= []).push(value);
  for (let round = 0; round < rounds; round++) {
    // Alternate the order so drift (thermal, other load) favours no variant.
    const variants = round % 2 ? [true, false] : [false, true];
    for (const bare of variants) {
      const lab = await startServers(bare);
      for (const id of round % 2 ? [...serverIds].reverse() : serverIds) {
        const server = lab.servers[id];
        const load = ['-t', '1', '-c', '10', ...(server.protocol === 'h2' ? ['-m', '10'] : [])];
        const path = `/option?size=${kibMiB}`;
        h2load(server, path, [...load, '-n', '5000']); // warm-up: connections, JIT
        const cpuBefore = await lab.cpuUs();
        const r = h2load(server, path, [...load, '-n', String(requests)]);
        const cpuUs = (await lab.cpuUs()) - cpuBefore;
        const variant = `${id} ${bare ? 'bare' : 'full'}`;
        add(`${variant} rps`, r.reqPerS);
        add(`${variant} cpu`, cpuUs / r.ok);
      }
      await lab.close();
    }
  }
  return serverIds.map((id) => {
    const m = (what) => median(samples[`${id} ${what}`]);
    // The same round's full and bare runs pair up; their spread shows the noise.
    const perRound = samples[`${id} full cpu`].map((full, i) => (full / samples[`${id} bare cpu`][i] - 1) * 100);
    return {
      costRangePct: [Math.min(...perRound), Math.max(...perRound)],
      id,
      fullReqPerS: m('full rps'),
      bareReqPerS: m('bare rps'),
      fullCpuUsPerReq: m('full cpu'),
      bareCpuUsPerReq: m('bare cpu'),
      handlerCostPct: (m('full cpu') / m('bare cpu') - 1) * 100,
    };
  });
}

async function peakRss() {
  const rows = [];
  // Each protocol the way a browser loads it: six HTTP/1.1 connections, or one HTTP/2 connection.
  const loadOf = {
    'http/1.1': { load: '3,750 × 1 MiB over 6 HTTP/1.1 connections', flags: ['-n', '3750', '-c', '6'] },
    h2: { load: '3,750 × 1 MiB over 1 HTTP/2 connection, 100 streams', flags: ['-n', '3750', '-c', '1', '-m', '100'] },
  };
  const scenarios = servers.map((s) => ({ id: s.id, ...loadOf[s.protocol] }));
  for (const s of scenarios) {
    const lab = await startServers(false); // a fresh process: its peak RSS is this load's
    const idleMB = await lab.maxRssMB();
    const started = performance.now();
    const r = h2load(lab.servers[s.id], '/option?size=1', ['-t', '1', ...s.flags]);
    rows.push({ id: s.id, load: s.load, idleMB, peakMB: await lab.maxRssMB(), seconds: (performance.now() - started) / 1000, ...r });
    await lab.close();
  }
  return rows;
}

async function main({ rounds, requests }) {
  if (spawnSync('h2load', ['--version']).error) throw new Error('h2load not found: install it with apt-get install -y nghttp2-client');
  console.log(
    `h2lab server benchmark · node ${process.version} · ${rounds} round(s) × ${requests} requests · ` +
      `h2load, 10 clients (HTTP/2: × 10 streams) · ${pinned ? 'server on core 0, h2load on core 1' : 'not pinned to cores'}\n`,
  );
  const tp = await throughput({ rounds, requests });
  console.log('1 KiB /option responses, median of rounds: requests/s and server CPU per request');
  console.log(
    `  ${'server'.padEnd(8)} ${'full req/s'.padStart(11)} ${'bare req/s'.padStart(11)} ${'full µs/req'.padStart(12)} ${'bare µs/req'.padStart(12)} ${'handler cost'.padStart(13)}  target ≤ 5 % (CPU)`,
  );
  for (const r of tp) {
    const verdict = r.handlerCostPct <= 5 ? 'met' : 'MISSED';
    console.log(
      `  ${r.id.padEnd(8)} ${r.fullReqPerS.toFixed(0).padStart(11)} ${r.bareReqPerS.toFixed(0).padStart(11)} ` +
        `${r.fullCpuUsPerReq.toFixed(1).padStart(12)} ${r.bareCpuUsPerReq.toFixed(1).padStart(12)} ${`${r.handlerCostPct.toFixed(1)} %`.padStart(13)}  ${verdict} (rounds: ${r.costRangePct.map((x) => x.toFixed(1)).join(' … ')} %)`,
    );
  }
  const rateOf = (id) => tp.find((r) => r.id === id).fullReqPerS;
  const relative = tp.filter((r) => baselineOf(r.id)).map((r) => `${r.id} ${(r.fullReqPerS / rateOf(baselineOf(r.id))).toFixed(2)}×`);
  console.log(`  requests/s relative to its family's HTTP/1.1 server (full): ${relative.join(' · ')}\n`);

  console.log('Peak RSS of the server process (fresh process per row), target ≤ 200 MB');
  for (const r of await peakRss()) {
    const verdict = r.peakMB <= 200 ? 'met' : 'MISSED';
    console.log(
      `  ${r.id.padEnd(8)} ${r.load.padEnd(52)} idle ${r.idleMB.toFixed(0).padStart(4)} MB · peak ${r.peakMB.toFixed(0).padStart(4)} MB · ` +
        `${r.ok}/3750 ok, ${r.failed + r.errored} failed · ${r.seconds.toFixed(1)} s  ${verdict}`,
    );
  }
}

const numbers = {
  rounds: { min: 1, max: 20, integer: true, default: 3 },
  requests: { min: 1000, max: 1_000_000, integer: true, default: 50_000 },
};
process.exitCode = await runCli({ name: 'bench:server', usage, parse: (args) => readNumberArgs(args, numbers), run: main });
