// Run under launch.py by test/packet-hostile.test.js: a hostile process on the browser side
// (hostile-side.py, root of the namespace with raw sockets) against the emulator, with a lab on
// the server side. Prints one JSON line.
//
//   node test/packet/hostile.js corpus            the review's corpus (corpus.js) on the browser
//       side's device, at Fast 4G: what the kernel let through, the emulator's counters for it,
//       and whether the emulator and the lab still answer
//   node test/packet/hostile.js flood SECONDS     UDP to a closed port on the server side, as fast
//       as the hostile process can send, at the conditions that keep the most packets in the
//       emulator (floodConditions): the emulator's RSS (/proc) through it, and the lab's answers
//       to GET /api/servers through the flooded device and on the server side, during and after
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { hostileCorpus, ipv4 } from './corpus.js';
import { onBrowserSide } from '../../server/packet/inside.js';
import { emulatorHostPid } from '../helpers/proc.js';

/**
 * Starts `argv` on the browser side (server/packet/inside.js). It starts before the lab, while this
 * process still holds the TUN descriptors: hostile-side.py closes every inherited one at once.
 */
function spawnOnBrowserSide(argv) {
  const [command, ...args] = onBrowserSide(argv);
  return spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
}

/** hostile-side.py's JSON lines, one answer per request, in order. */
function speaker(child) {
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  let failed = null;
  const fail = (why) => {
    failed = new Error(`hostile-side.py: ${why}`);
    for (const { reject } of waiting.splice(0)) reject(failed);
  };
  lines.on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.on('exit', (code, signal) => fail(`exited (${signal ?? `code ${code}`})`));
  child.on('error', (err) => fail(err.message));
  const next = () => new Promise((resolve, reject) => (failed ? reject(failed) : waiting.push({ resolve, reject })));
  const ready = next();
  return {
    ready,
    ask(request) {
      const answer = next();
      child.stdin.write(`${JSON.stringify(request)}\n`);
      return answer;
    },
    close() {
      child.stdin.end();
      return once(child, 'exit');
    },
  };
}

const hostile = speaker(spawnOnBrowserSide(['python3', fileURLToPath(new URL('./hostile-side.py', import.meta.url))]));
const { closedPort, quietCounters, startPacketLab } = await import('./lab-inside.js');

const [mode, secondsArg, conditionsArg] = process.argv.slice(2);
// The flood at the conditions that hold the most packets in the emulator: the longest round trip
// (each packet stays 1.5 s on the link), the largest queue, and an upload rate at which the
// queue's bookkeeping bound (pathLimits.maxInFlightBytes: each piece its bytes + 512) is what
// stops it, ~31,000 pieces, rather than its byte limit.
const floodConditions = { rttMs: 3_000, downloadBps: 1_000_000, uploadBps: 1_000, queueBytes: 64 * 1024 * 1024, ...JSON.parse(conditionsArg ?? '{}') };
const sampleMs = 100;
const getEveryMs = 250;

// Every packet the shaper took: delivered, lost, dropped at the full queue, refused by the
// receiving device (the corpus's packets of version 0 and 15), or still on the link.
const shapedOf = (c) => c.delivered + c.droppedByLoss + c.droppedByQueue + c.droppedByReceiver + c.onLink;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** { rss, hwm } in bytes: the resident set now and its peak since the process started. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]) * 1024;
  return { rss: kB('VmRSS'), hwm: kB('VmHWM') };
}

/** GET /api/servers on the server side (loopback: the lab itself, not the path). */
async function getOnServerSide(uiPort) {
  const start = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${uiPort}/api/servers`, { signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - start };
  } catch (err) {
    return { status: null, ms: performance.now() - start, error: err.message };
  }
}

const summary = (gets) => {
  const ms = gets.filter((g) => g.status === 200).map((g) => g.ms).sort((a, b) => a - b);
  return { count: gets.length, ok: ms.length, failed: gets.filter((g) => g.status !== 200), medianMs: ms[Math.floor(ms.length / 2)] ?? null, maxMs: ms.at(-1) ?? null };
};

async function emulatorState(lab) {
  return { failure: lab.networks.packet.failure?.() ?? null, cpuMs: await lab.networks.packet.cpuMs() };
}

async function corpus(lab, uiPort) {
  const packets = hostileCorpus(uiPort);
  const before = await lab.networks.packet.counters();
  const { results } = await hostile.ask({ op: 'send', packets: packets.map(({ name, packet, raw }) => ({ name, hex: packet.toString('hex'), raw })) });
  const after = await quietCounters(lab);
  const ui = new Map(packets.map((p) => [p.name, p.ui]));
  const crossed = results.filter((r) => r.sent);
  return {
    refused: results.filter((r) => !r.sent),
    expected: { unshaped: crossed.filter((r) => ui.get(r.name)).length, shaped: crossed.filter((r) => !ui.get(r.name)).length },
    counted: { unshaped: after.up.unshaped - before.up.unshaped, shaped: shapedOf(after.up) - shapedOf(before.up) },
    sent: crossed.length,
    uiThroughDevice: await hostile.ask({ op: 'get', uiPort }),
    uiOnServerSide: await getOnServerSide(uiPort),
    emulator: await emulatorState(lab),
  };
}

async function flood(lab, uiPort, seconds) {
  const pid = emulatorHostPid();
  const packet = ipv4({ protocol: 17, source: 40000, destination: await closedPort() });
  const before = await lab.networks.packet.counters();
  const idle = memoryOf(pid);
  const rss = [];
  const serverSide = [];
  let flooding = true;
  const sampler = (async () => {
    for (let t = 0; flooding; t += sampleMs) {
      rss.push(memoryOf(pid).rss);
      if (t % getEveryMs === 0) getOnServerSide(uiPort).then((g) => serverSide.push(g));
      await sleep(sampleMs);
    }
  })();
  const answer = await hostile.ask({ op: 'flood', seconds, hex: packet.toString('hex'), uiPort, everyMs: getEveryMs });
  flooding = false;
  await sampler;
  const at = memoryOf(pid);
  await sleep(2_000);
  const after = await lab.networks.packet.counters();
  const { gets, ...sent } = answer;
  return {
    conditions: floodConditions,
    packetBytes: packet.length,
    flood: sent,
    emulatorRss: { idle: idle.rss, peakSampled: Math.max(...rss), hwm: at.hwm, end: at.rss, twoSecondsLater: memoryOf(pid).rss, everySecond: rss.filter((_, i) => i % (1000 / sampleMs) === 0) },
    carried: { shaped: shapedOf(after.up) - shapedOf(before.up), droppedByQueue: after.up.droppedByQueue - before.up.droppedByQueue, onLink: after.up.onLink, unshaped: after.up.unshaped - before.up.unshaped },
    uiThroughDevice: summary(gets),
    uiOnServerSide: summary(serverSide),
    afterThroughDevice: await hostile.ask({ op: 'get', uiPort }),
    afterOnServerSide: await getOnServerSide(uiPort),
    emulator: await emulatorState(lab),
  };
}

try {
  await hostile.ready;
  const lab = await startPacketLab(mode === 'flood' ? floodConditions : { preset: 'fast-4g' });
  try {
    const uiPort = Number(new URL(lab.uiOrigin).port);
    const out = mode === 'flood' ? await flood(lab, uiPort, Number(secondsArg ?? 10)) : await corpus(lab, uiPort);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await lab.close();
  }
} finally {
  await hostile.close();
}
