// A synthetic but realistic result object (the schema of ../lab/result.js) for tests, demos and
// screenshots. A small deterministic model, not a measurement:
// - HTTP/1.1: six connections per host, each serving one request at a time, so requests queue
//   in the browser and their ends form a staircase; connection ids 1–6, 7–12, … per cold repeat.
// - HTTP/2: one connection, up to 100 streams at once (SETTINGS_MAX_CONCURRENT_STREAMS);
//   spdy pays more server time per request than node:http2.
// - Every response waits the server delay plus the preset's latency, and all bodies share one
//   pipe (the preset's download rate, or a localhost-like rate without throttling).
// Summaries, comparisons and floors come from the lab's own code (stats.js, floor.js).
import { floorMs } from '../lab/floor.js';
import { presetById } from '../../common/presets.js';
import { MiB, promisedProtocol, serverIds, serverLabels } from '../lab/result.js';
import { pageLoadModes, summarizeLoads } from '../lab/page-load.js';
import { mulberry32, summarizeResult } from '../lab/stats.js';

const ports = { h1: 8443, 'h2-spdy': 8444, 'h2-node': 8445 };
// Localhost-like behaviour without throttling (bytes/s shared by all bodies, ms of server time
// per request, serialised on the server's one thread).
const model = {
  h1: { pipeBps: 800e6, serverMs: 0.2, slots: 6, setupMs: 4 },
  'h2-spdy': { pipeBps: 250e6, serverMs: 0.2, slots: 100, setupMs: 4 },
  'h2-node': { pipeBps: 900e6, serverMs: 0.03, slots: 100, setupMs: 3 },
};

function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function simulateRun({ server, repeat, settings, preset, random, failures, invalid }) {
  const m = model[server];
  const throttled = preset && (preset.latencyMs > 0 || preset.downloadBps > 0);
  const latencyMs = throttled ? preset.latencyMs : 0.15;
  const pipeBps = throttled && preset.downloadBps > 0 ? preset.downloadBps : m.pipeBps;
  const sizeBytes = Math.floor(settings.sizeMiB * MiB);
  const transferMs = (sizeBytes / pipeBps) * 1000;
  const slots = Math.min(m.slots, settings.maxInFlight);
  const runFactor = 1 + 0.05 * Math.abs(gaussian(random)); // drift between repeats: only ever slower
  const protocol = promisedProtocol[server];
  const connections = server === 'h1' ? Math.min(6, settings.requests) : 1;
  const firstId = (repeat - 1) * connections + 1; // cold runs: fresh, serial ids

  const slotFree = new Array(slots).fill(m.setupMs * runFactor);
  const slotConn = Array.from({ length: slots }, (_, k) => firstId + (server === 'h1' ? k : 0));
  let pipeFree = 0;
  let cpuFree = 0;
  const failing = new Set();
  while (failing.size < Math.min(failures, settings.requests)) failing.add(Math.floor(random() * settings.requests));

  const requests = [];
  for (let i = 0; i < settings.requests; i++) {
    const startMs = i * 0.004; // the dispatch loop
    // Earliest free slot (connection for HTTP/1.1, stream for HTTP/2).
    let k = 0;
    for (let j = 1; j < slots; j++) if (slotFree[j] < slotFree[k]) k = j;
    const sent = Math.max(startMs, slotFree[k]);
    const jitter = () => runFactor * (1 + 0.06 * Math.abs(gaussian(random)));
    cpuFree = Math.max(cpuFree, sent + latencyMs / 2) + m.serverMs * jitter();
    const headers = cpuFree + settings.delayMs * jitter() + latencyMs / 2 + 0.05;
    const bodyStart = Math.max(headers, pipeFree);
    const endMs = bodyStart + transferMs * jitter() + 0.02;
    pipeFree = endMs;
    slotFree[k] = endMs;
    if (failing.has(i)) {
      requests.push({ i, startMs, ttfbMs: null, endMs: startMs + 2 + random() * 5, bytes: 0, protocol: '', connectionId: null, serverDelayMs: null, error: 'TypeError: Failed to fetch' });
      slotFree[k] = sent;
      continue;
    }
    requests.push({
      i,
      startMs,
      ttfbMs: headers - startMs,
      endMs,
      bytes: sizeBytes,
      protocol: invalid ? 'http/1.1' : protocol,
      connectionId: slotConn[k],
      serverDelayMs: settings.delayMs + random() * 0.3,
      error: null,
    });
  }
  const ok = requests.filter((r) => !r.error);
  const totalMs = Math.max(...requests.map((r) => r.endMs));
  return {
    server,
    protocol: invalid ? 'http/1.1' : protocol,
    repeat,
    totalMs,
    valid: !invalid,
    invalidReason: invalid ? `${ok.length} of ${requests.length} requests negotiated http/1.1, not ${protocol}` : null,
    failures: requests.length - ok.length,
    connections: new Set(ok.map((r) => r.connectionId)).size,
    requests,
  };
}

/**
 * @param {object} [o]
 * @param {number} [o.requests=100]
 * @param {number} [o.repeats=3]
 * @param {string|object|null} [o.preset=null]  a preset id or entry of ../lab/presets.js; null = No throttling
 * @param {number} [o.sizeMiB=0.1]
 * @param {number} [o.delayMs=10]
 * @param {number} [o.maxInFlight]  default min(requests, 1000)
 * @param {string[]} [o.servers]    default all three
 * @param {number} [o.failures=0]   failed requests per run (each server, each repeat)
 * @param {number} [o.invalidRuns=0]  runs of the first HTTP/2 server (its last repeats) that negotiated http/1.1
 * @param {number} [o.seed=1]
 * @param {string} [o.startedAt='2026-11-21T10:00:00.000Z']
 * @returns {import('../lab/result.js').Result}
 */
export function sampleResult({
  requests = 100,
  repeats = 3,
  preset = null,
  sizeMiB = 0.1,
  delayMs = 10,
  maxInFlight = Math.min(requests, 1000),
  servers = serverIds,
  failures = 0,
  invalidRuns = 0,
  seed = 1,
  startedAt = '2026-11-21T10:00:00.000Z',
} = {}) {
  const presetEntry = typeof preset === 'string' ? presetById(preset) : preset ?? presetById('no-throttling');
  if (!presetEntry) throw new RangeError(`unknown preset ${JSON.stringify(preset)}`);
  const settings = { requests, sizeMiB, delayMs, repeats, maxInFlight, servers: [...servers], connections: 'cold', preset: presetEntry.id };
  const random = mulberry32(seed);
  const firstH2 = servers.find((id) => id !== 'h1');

  const runs = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    const order = repeat % 2 ? servers : [...servers].reverse();
    for (const server of order) {
      const invalid = server === firstH2 && repeat > repeats - invalidRuns;
      runs.push(simulateRun({ server, repeat, settings, preset: presetEntry, random, failures, invalid }));
    }
  }

  const envServers = servers.map((id) => ({
    id,
    label: serverLabels[id],
    origin: `https://localhost:${ports[id]}`,
    port: ports[id],
    protocol: promisedProtocol[id],
    capabilities: {},
  }));
  const floors = Object.fromEntries(
    envServers.map((s) => [s.id, floorMs({ preset: presetEntry, requests, sizeBytes: Math.floor(sizeMiB * MiB), maxInFlight, protocol: s.protocol })]),
  );
  const duration = runs.reduce((t, r) => t + r.totalMs + 50, 0);
  return {
    id: `sample-${requests}-${repeats}-${presetEntry.id}-${seed}`,
    startedAt,
    finishedAt: new Date(Date.parse(startedAt) + duration).toISOString(),
    settings,
    environment: {
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
      preset: presetEntry,
      calibration: { rttMs: 0.3 + (presetEntry.latencyMs ?? 0), downloadBps: presetEntry.downloadBps > 0 ? presetEntry.downloadBps : 900e6, server: 'h2-node' },
      servers: envServers,
    },
    runs,
    stopped: false,
    ...summarizeResult(runs),
    floorMsByServer: Object.values(floors).some((v) => v === null) ? null : floors,
  };
}

/**
 * A synthetic page-load result (the shape runPageLoads in ../lab/page-load.js returns), from a
 * model of one cold load over a throttled link: handshakes, the think time, then the HTML, whose
 * inline script discovers the assets late; all asset bodies share the link. Preload finds them
 * as soon as the HTML arrives, Early Hints and an accepted push during the think time.
 * @param {object} [o]
 * @param {string} [o.server='h2-node']
 * @param {boolean} [o.pushRefused=true]  the browser refuses every push, as Chrome and Firefox do
 * @param {number} [o.rttMs=60]
 * @param {number} [o.downKiBps=1100]  KiB per second
 */
export function samplePageLoads({
  server = 'h2-node',
  assets = 4,
  assetKiB = 290,
  thinkMs = 300,
  repeats = 10,
  modes = pageLoadModes,
  pushRefused = true,
  rttMs = 60,
  downKiBps = 1100,
  seed = 1,
  startedAt = '2026-11-21T11:00:00.000Z',
} = {}) {
  const random = mulberry32(seed);
  const assetsMs = ((assets * assetKiB) / downKiBps) * 1000;
  const loads = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const mode of repeat % 2 ? modes : [...modes].reverse()) {
      const slow = () => 1 + 0.05 * Math.abs(gaussian(random));
      const pushed = mode === 'push' && !pushRefused && server !== 'h1';
      const early = (mode === 'hints' && server !== 'h1') || pushed;
      const documentHeadersMs = (2 * rttMs + thinkMs) * slow(); // TCP + TLS, then the think time
      const htmlMs = documentHeadersMs + rttMs / 2;
      const discoveredMs = htmlMs + (mode === 'preload' ? 2 : 40); // the inline script runs after parsing
      const assetsStartMs = early ? 2.5 * rttMs : discoveredMs + rttMs;
      const assetsEndMs = assetsStartMs + assetsMs * slow();
      loads.push({
        mode,
        repeat,
        loadMs: Math.max(assetsEndMs, discoveredMs) + 3,
        documentHeadersMs,
        hint103Ms: mode === 'hints' ? 2 * rttMs : null,
        assetsEndMs,
        earlyHintAssets: mode === 'hints' && server !== 'h1' ? assets : 0,
        protocol: server === 'h1' ? 'http/1.1' : 'h2',
        pushesSent: pushed ? assets : 0,
        pushesRefused: mode === 'push' && pushRefused && server !== 'h1' ? assets : 0,
      });
    }
  }
  return {
    startedAt,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    settings: { serverId: server, assets, assetKiB, thinkMs, repeats, modes: [...modes], server },
    loads,
    summary: summarizeLoads(loads, modes),
  };
}
