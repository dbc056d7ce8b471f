// `npm run bench:link`: what the lab link costs, printed side by side from one run.
//  - Overhead in Chromium at "no throttling" (pass-through): 100 × 0.1 MiB, warm, the same page
//    fetching each server directly and through its twin port, in alternating rounds; the link's
//    median over direct per server (target ≤ 1.10×).
//  - CPU of the link alone at Fast 4G with 6 HTTP/1.1 connections busy downloading: the link runs
//    in a child process of its own (the same createLink the lab uses) in front of the lab's h1
//    server, and its CPU time is divided by the wall time (target < 20 % of one core). The same
//    at WiFi and at no throttling, for scale.
import { fork } from 'node:child_process';
import https from 'node:https';
import { once } from 'node:events';
import { median } from 'simple-statistics';
import { presetById } from '../common/setup/presets.js';
import { runCli } from '../cli/run.js';
import { freePorts, startLab } from '../server/lab.js';
import { launchBrowser, openLabPage } from '../runner/browsers/chromium.js';
import { readNumberArgs } from '../cli/options.js';

const usage = `Usage: npm run bench:link -- [--rounds N] [--seconds S]
  --rounds N    alternating direct/link rounds of 100 × 0.1 MiB × 5 repeats in Chromium (default 4)
  --seconds S   how long each CPU measurement keeps 6 connections busy (default 10)`;

const numbers = {
  rounds: { min: 1, max: 20, integer: true, default: 4 },
  seconds: { min: 1, max: 120, default: 10 },
};
const parse = (args) => readNumberArgs(args, numbers);

async function browserOverhead(lab, rounds) {
  const browser = await launchBrowser(lab, { viewport: { width: 1280, height: 900 } });
  try {
    const page = await openLabPage(browser.context, lab.uiOrigin, { networks: ['devtools', 'link'] });
    const totals = { devtools: {}, link: {} };
    for (let round = 0; round < rounds; round++) {
      for (const network of round % 2 ? ['link', 'devtools'] : ['devtools', 'link']) {
        const result = await page.evaluate((s) => window.h2lab.run(s), { requests: 100, sizeMiB: 0.1, delayMs: 0, repeats: 5, connections: 'warm', network });
        for (const serverRun of result.runs.filter((r) => r.valid)) (totals[network][serverRun.server] ??= []).push(serverRun.totalMs);
      }
    }
    console.log(`Overhead at no throttling, Chromium, 100 × 0.1 MiB warm, ${rounds} rounds × 5 repeats (median total, ms):`);
    console.log(`  ${'server'.padEnd(9)} ${'direct'.padStart(8)} ${'link'.padStart(8)} ${'link/direct'.padStart(12)}   (target ≤ 1.10×)`);
    for (const server of Object.keys(totals.devtools)) {
      const [d, l] = [median(totals.devtools[server]), median(totals.link[server])];
      console.log(`  ${server.padEnd(9)} ${d.toFixed(1).padStart(8)} ${l.toFixed(1).padStart(8)} ${`${(l / d).toFixed(3)}×`.padStart(12)}`);
    }
  } finally {
    await browser.close();
  }
}

/** A link in its own process (bench/link-process.js), so its CPU time is its own. */
async function linkProcess(targetPort, presetId) {
  const child = fork(new URL('./link-process.js', import.meta.url), [String(targetPort), presetId], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = await once(child, 'message');
  const ask = async () => {
    child.send('cpu');
    const [cpuUsage] = await once(child, 'message');
    return cpuUsage;
  };
  return { port, ask, close: () => child.kill() };
}

/** Keeps `connections` keep-alive HTTP/1.1 connections downloading 1 MiB bodies for `seconds`. */
async function busyDownloads(port, ca, connections, seconds) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: connections, ca });
  const until = performance.now() + seconds * 1000;
  let bytes = 0;
  const get = () =>
    new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', servername: 'localhost', port, path: '/option?size=1', agent }, (res) => {
          res.on('data', (c) => (bytes += c.length));
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < until) await get();
  }));
  agent.destroy();
  return bytes;
}

async function linkCpu(lab, seconds) {
  const { port: h1Port } = lab.running.find((r) => r.protocol === 'http/1.1');
  console.log(`\nCPU of the link alone (its own process), 6 HTTP/1.1 connections downloading 1 MiB bodies for ≥ ${seconds} s:`);
  console.log(`  ${'preset'.padEnd(14)} ${'throughput'.padStart(14)} ${'CPU / wall'.padStart(11)}   (target at Fast 4G < 20 % of one core)`);
  for (const id of ['fast-4g', 'wifi', 'no-throttling']) {
    const link = await linkProcess(h1Port, id);
    try {
      const before = await link.ask();
      const bytes = await busyDownloads(link.port, lab.certs.ca, 6, seconds);
      const after = await link.ask();
      const cpuMs = (after.user + after.system - before.user - before.system) / 1000;
      const wallMs = after.wallMs - before.wallMs;
      const rate = `${((bytes / wallMs) * 1000 / 1e6).toFixed(2)} MB/s`;
      console.log(`  ${presetById(id).label.padEnd(14)} ${rate.padStart(14)} ${`${((cpuMs / wallMs) * 100).toFixed(1)} %`.padStart(11)}`);
    } finally {
      link.close();
    }
  }
}

async function run({ rounds, seconds }) {
  const lab = await startLab(freePorts);
  try {
    console.log(`h2lab link benchmark · node ${process.version}\n`);
    await browserOverhead(lab, rounds);
    await linkCpu(lab, seconds);
  } finally {
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:link', usage, parse, run });
