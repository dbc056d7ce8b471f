// `npm run bench:link-flood`: the lab link's HTTP/3 twin port against a local flood, on loopback.
// The lab, with the Caddy family, runs as a child (test/robust/fixtures/lab-process.js); this
// process floods caddy-h3's twin port, as test/robust/link-flood.test.js does, and prints:
//  - a stream of 1-byte datagrams from one port at the link's largest round trip (no bandwidth
//    limit): the lab's RSS idle, at the peak and after (target: the peak within 100 MB of idle),
//    and the datagrams the link carried and dropped;
//  - 20,000 one-byte datagrams from as many source ports: the lab's descriptor limit (ulimit -n),
//    its descriptors idle and at the peak, the flows at the peak, and, probed after every 1,000
//    datagrams and once after, the slowest answer of the UI and of every server, directly and
//    through its twin port (HTTP/3 from Chromium, the others on a new TLS connection each;
//    target: within 1 s).
// It starts Chromium: run it under the browser lock when other browser jobs may run.
import { runCli } from '../cli/run.js';
import { readNumberArgs } from '../cli/options.js';
import { linkLimits } from '../server/config.js';
import { pathBounds } from '../common/setup/path-limits.js';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { h1Agent, h1Get, h2Get, h2Session, mb, rssPeak, spawnLab } from '../test/robust/fixtures/lab-child.js';
import { datagramsFromNewPorts, datagramsFromOnePort } from '../test/robust/fixtures/udp-flood.js';

const usage = `Usage: npm run bench:link-flood -- [--datagrams N] [--stream N] [--rtt-ms MS]
  --datagrams N  1-byte datagrams from distinct source ports (default 20,000)
  --stream N     1-byte datagrams from one port at the round trip below (default 400,000)
  --rtt-ms MS    the round trip of the stream (default the link's largest, pathBounds.maxRttMs)`;

const numbers = {
  datagrams: { min: 1_000, max: 40_000, integer: true, default: 20_000 },
  stream: { min: 1_000, max: 2_000_000, integer: true, default: 400_000 },
  'rtt-ms': { min: 0, max: 60_000, default: pathBounds.maxRttMs },
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const probeTimeoutMs = 10_000; // a lab out of descriptors never answers: say so and go on

async function putLink(lab, body) {
  const res = await fetch(`${lab.ui}/api/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`PUT /api/networks/link ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
}

async function streamPhase(lab, { stream, rttMs }) {
  await putLink(lab, { rttMs, downloadBps: pathBounds.maxBps, uploadBps: pathBounds.maxBps });
  const port = Number(new URL(lab.servers['caddy-h3'].linkOrigin).port);
  const idle = await lab.measure();
  const peak = rssPeak(lab.pid);
  const t0 = performance.now();
  await datagramsFromOnePort(port, stream);
  const seconds = (performance.now() - t0) / 1000;
  await sleep(rttMs / 2 + 1_000); // the queue drains
  const peakBytes = peak.stop();
  const after = await lab.measure();
  const s = after.udpRelays['caddy-h3'];
  console.log(`1-byte datagrams from one port at a ${rttMs} ms round trip: ${stream.toLocaleString('en-US')} sent in ${seconds.toFixed(1)} s`);
  console.log(`  link: ${s.datagramsUp.toLocaleString('en-US')} carried, ${s.droppedUp.toLocaleString('en-US')} dropped at the queue (the rest the kernel dropped)`);
  console.log(`  lab RSS: idle ${mb(idle.rssBytes)} MB, peak ${mb(peakBytes)} MB (+${mb(peakBytes - idle.rssBytes)}; target ≤ +100), after ${mb(after.rssBytes)} MB`);
  await putLink(lab, { preset: 'no-throttling' });
  return peakBytes - idle.rssBytes <= 100e6;
}

/** Probes: name → async () => void, each a request that must answer 200. */
function probes(lab, page) {
  const list = { UI: async () => ok((await fetch(`${lab.ui}/api/servers`)).status) };
  for (const [id, s] of Object.entries(lab.servers)) {
    for (const [via, origin] of [['direct', s.origin], ['twin port', s.linkOrigin]]) {
      list[`${id} ${via}`] = s.protocol === 'h3' ? () => viaChromium(page, origin) : () => viaNode(lab, s.protocol, origin);
    }
  }
  return list;
}

const ok = (status) => {
  if (status !== 200) throw new Error(`status ${status}`);
};

async function viaNode(lab, protocol, origin) {
  if (protocol === 'http/1.1') {
    const agent = h1Agent(lab.ca, 1);
    return h1Get(agent, origin, '/option?size=0').then((r) => ok(r.status)).finally(() => agent.destroy());
  }
  const session = await h2Session(origin, lab.ca);
  return h2Get(session, '/option?size=0').then((r) => ok(r.status)).finally(() => session.close());
}

const viaChromium = async (page, origin) => ok(await page.evaluate(async (url) => (await fetch(url, { cache: 'no-store' })).status, `${origin}/option?size=0`));

async function floodPhase(lab, page, datagrams) {
  const idle = await lab.measure();
  const port = Number(new URL(lab.servers['caddy-h3'].linkOrigin).port);
  const list = probes(lab, page);
  const slowest = Object.fromEntries(Object.keys(list).map((name) => [name, 0]));
  const failed = {};
  let peak = { flows: 0, fds: idle.fds };
  const t0 = performance.now();
  const probeAll = async () => {
    const m = await lab.measure();
    peak = { flows: Math.max(peak.flows, m.udpRelays['caddy-h3'].flows), fds: Math.max(peak.fds, m.fds) };
    await Promise.all(Object.entries(list).map(async ([name, probe]) => {
      const start = performance.now();
      let timer;
      const late = new Promise((resolve, reject) => (timer = setTimeout(reject, probeTimeoutMs, new Error(`no answer in ${probeTimeoutMs / 1000} s`))));
      await Promise.race([probe(), late]).catch((err) => (failed[name] = err.message)).finally(() => clearTimeout(timer));
      slowest[name] = Math.max(slowest[name], performance.now() - start);
    }));
  };
  await datagramsFromNewPorts(port, datagrams, { between: (sent) => sent % 1_000 || probeAll() });
  await probeAll(); // once more, with every datagram read
  const seconds = (performance.now() - t0) / 1000;
  const s = (await lab.measure()).udpRelays['caddy-h3'];
  console.log(`\n${datagrams.toLocaleString('en-US')} one-byte datagrams from distinct source ports in ${seconds.toFixed(1)} s (probed every 1,000 and after):`);
  const read = (c) => c.datagramsUp + c.droppedUp + (c.flowsRefused ?? 0);
  const before = idle.udpRelays['caddy-h3'];
  console.log(`  the relay read ${(read(s) - read(before)).toLocaleString('en-US')} (with Chromium's); flows refused: ${s.flowsRefused ?? '(not counted)'}`);
  console.log(`  lab descriptors: limit (ulimit -n) ${idle.fdLimit.toLocaleString('en-US')}, idle ${idle.fds}, peak ${peak.fds}; flows at the peak ${peak.flows} (bound ${linkLimits.maxUdpFlowsPerRelay} per twin port)`);
  console.log(`  slowest answer while it lasted (target ≤ 1,000 ms):`);
  for (const [name, ms] of Object.entries(slowest)) console.log(`    ${name.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms${failed[name] ? `  FAILED: ${failed[name]}` : ''}`);
  await sleep(linkLimits.udpUnansweredIdleMs + 1_000);
  console.log(`  flows ${((linkLimits.udpUnansweredIdleMs + 1_000) / 1000).toFixed(0)} s later: ${(await lab.measure()).udpRelays['caddy-h3'].flows}`);
  return !Object.keys(failed).length && Object.values(slowest).every((ms) => ms <= 1_000);
}

async function run({ datagrams, stream, 'rtt-ms': rttMs }) {
  const lab = await spawnLab({ caddy: true });
  let browser;
  try {
    if (!lab.servers['caddy-h3']) throw new Error('caddy-h3 is not available: install Caddy (apt-get install caddy)');
    console.log(`h2lab link-flood · node ${process.version} · lab pid ${lab.pid}\n`);
    const streamOk = await streamPhase(lab, { stream, rttMs });
    browser = await launchBrowser({ certs: { spkiSha256: lab.spkiSha256 }, servers: Object.values(lab.servers) });
    const page = await browser.context.newPage();
    await page.goto(lab.ui);
    const floodOk = await floodPhase(lab, page, datagrams);
    return streamOk && floodOk ? 0 : 1;
  } finally {
    await browser?.close();
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:link-flood', usage, parse: (args) => readNumberArgs(args, numbers), run });
