// `node bench/packet.js`: what the packet network's emulator (server/packet/emulator.js) costs,
// without a browser: a TCP server on the server side sends without end to N connections from the
// browser side (a Node client entered there with nsenter) for S seconds, and the emulator's CPU
// time (its own process.cpuUsage(), over IPC) is divided by the wall time.
//  - WiFi (3,932,160 B/s down, 2 ms round trip) with six connections busy: % of one core (target ≤ 10);
//    then again with a capture of every packet's headers running (target: at most 15 % more).
//  - 50 Mbit/s each way (6,250,000 B/s, 20 ms round trip), six connections: the rate received
//    and the CPU it takes.
//  - 200 Mbit/s each way (25,000,000 B/s, 20 ms round trip), six connections: the rate received
//    (target: the link's rate; TCP/IP headers take 52 of each 1,500 bytes, so 193 Mbit/s of
//    payload is all of it) and the CPU it takes; then again with six more connections sending up
//    at once, the rate received each way.
// Runs itself again under server/packet/launch.py; exit 2 with one line where that cannot run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../cli/run.js';
import { readNumberArgs } from '../cli/options.js';
import { serverSideAddress } from '../server/packet/sides.js';
import { parseConditions } from '../server/path/conditions.js';
import { packetNetworkMissing, rerunInside } from '../server/packet/launcher.js';
import { insidePacketNetwork, onBrowserSide } from '../server/packet/inside.js';
import { startPacketNetwork } from '../server/packet/network.js';

const usage = `Usage: node bench/packet.js [--seconds S]
  --seconds S   how long each measurement keeps six connections busy (default 10)`;
const parse = (args) => readNumberArgs(args, { seconds: { min: 1, max: 120, default: 10 } });

const cases = [
  { label: 'WiFi', conditions: { preset: 'wifi' } },
  // The same with a capture of packet headers running (server/packet/capture.js): target ≤ 15 % more CPU.
  { label: 'WiFi+pcap', conditions: { preset: 'wifi' }, capture: true },
  { label: '50 Mbit/s', conditions: { rttMs: 20, downloadBps: 6_250_000, uploadBps: 6_250_000 } },
  { label: '200 Mbit/s', conditions: { rttMs: 20, downloadBps: 25_000_000, uploadBps: 25_000_000 } },
  { label: '200 Mbit/s', conditions: { rttMs: 20, downloadBps: 25_000_000, uploadBps: 25_000_000 }, upload: true },
];
const connections = 6;

// The client on the browser side: N connections, reading and counting for S seconds; with an
// upload port, N more that send without end.
const client = `
const net = require('node:net');
const [port, n, seconds, uploadPort] = process.argv.slice(1).map(Number);
let bytes = 0, counting = false;
for (let i = 0; i < n; i++) net.connect({ host: '${serverSideAddress}', port }).on('data', (d) => counting && (bytes += d.length));
const chunk = Buffer.alloc(256 * 1024);
for (let i = 0; uploadPort && i < n; i++) {
  const socket = net.connect({ host: '${serverSideAddress}', port: uploadPort });
  const pump = () => { while (socket.write(chunk)); };
  socket.on('connect', pump).on('drain', pump);
}
setTimeout(() => (counting = true), 1000); // past slow start
setTimeout(() => { console.log(bytes); process.exit(0); }, 1000 + seconds * 1000);
`;

async function measure(packet, servers, seconds, { conditions, upload, capture }) {
  await packet.set(parseConditions(conditions, 'packet'));
  const captureDir = capture ? mkdtempSync(path.join(os.tmpdir(), 'h2lab-bench-capture-')) : null;
  if (captureDir) await packet.capture.start(path.join(captureDir, 'bench'), false);
  const ports = [servers.down.address().port, connections, seconds, upload ? servers.up.address().port : 0];
  const [command, ...args] = onBrowserSide([process.execPath, '-e', client, ...ports.map(String)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 1000));
  const [cpu0, up0, link0, t0] = [await packet.cpuMs(), servers.received(), await packet.counters(), performance.now()];
  await once(child, 'exit');
  const [cpu1, up1, link1, t1] = [await packet.cpuMs(), servers.received(), await packet.counters(), performance.now()];
  if (captureDir) {
    await packet.capture.stop();
    rmSync(captureDir, { recursive: true });
  }
  const mbitPerS = (bytes, ms) => (bytes * 8) / (ms / 1000) / 1e6;
  return {
    cpuPercent: ((cpu1 - cpu0) / (t1 - t0)) * 100,
    down: mbitPerS(Number(out), seconds * 1000),
    up: upload ? mbitPerS(up1 - up0, t1 - t0) : null,
    // What the path delivered, whole IP packets: the unit its rate is set in.
    linkDown: mbitPerS(link1.down.deliveredBytes - link0.down.deliveredBytes, t1 - t0),
    linkUp: mbitPerS(link1.up.deliveredBytes - link0.up.deliveredBytes, t1 - t0),
  };
}

/** The server side: `down` sends without end to whoever connects, `up` counts what it receives. */
async function startServers() {
  const chunk = Buffer.alloc(256 * 1024);
  const sockets = new Set();
  let received = 0;
  const down = net.createServer((socket) => {
    sockets.add(socket);
    const pump = () => { while (socket.write(chunk)); };
    socket.on('drain', pump).on('error', () => {});
    pump();
  });
  const up = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d) => (received += d.length)).on('error', () => {});
  });
  for (const server of [down, up]) server.listen(0, '0.0.0.0');
  await Promise.all([once(down, 'listening'), once(up, 'listening')]);
  return {
    down,
    up,
    received: () => received,
    close() {
      down.close();
      up.close();
      for (const socket of sockets) socket.destroy(); // their clients are gone with the emulator
    },
  };
}

async function run({ seconds }) {
  if (!insidePacketNetwork()) {
    const missing = packetNetworkMissing();
    if (missing) throw Object.assign(new Error(missing), { exitCode: 2 });
    return rerunInside();
  }
  const servers = await startServers();
  const packet = await startPacketNetwork();
  try {
    for (const c of cases) {
      const m = await measure(packet, servers, seconds, c);
      const busy = c.upload ? `${connections} + ${connections} connections` : `${connections} connections`;
      const received = c.upload ? `${m.down.toFixed(1)} Mbit/s of TCP payload down, ${m.up.toFixed(1)} up` : `${m.down.toFixed(1)} Mbit/s of TCP payload`;
      const carried = c.upload ? `${m.linkDown.toFixed(1)} down, ${m.linkUp.toFixed(1)} up` : m.linkDown.toFixed(1);
      console.log(`${c.label.padEnd(10)} ${busy}, ${seconds} s: emulator CPU ${m.cpuPercent.toFixed(1)} % of one core, received ${received} (the path delivered ${carried} Mbit/s of IP packets)`);
    }
  } finally {
    await packet.close();
    servers.close();
  }
  return 0;
}

process.exitCode = await runCli({ name: 'bench:packet', usage, parse, run });
