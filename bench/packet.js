// `node bench/packet.js`: what the packet network's emulator (server/packet/emulator.js) costs,
// without a browser: a TCP server on the server side sends without end to N connections from the
// browser side (a Node client entered there with nsenter) for S seconds, and the emulator's CPU
// time (its own process.cpuUsage(), over IPC) is divided by the wall time.
//  - WiFi (3,932,160 B/s down, 2 ms round trip) with six connections busy: % of one core (target < 25).
//  - 50 Mbit/s each way (6,250,000 B/s, 20 ms round trip), six connections: the rate received
//    (target: sustains 50 Mbit/s) and the CPU it takes.
// Runs itself again under server/packet/launch.py; exit 2 with one line where that cannot run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
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
  { label: '50 Mbit/s', conditions: { rttMs: 20, downloadBps: 6_250_000, uploadBps: 6_250_000 } },
];
const connections = 6;

// The client on the browser side: N connections, reading and counting for S seconds.
const client = `
const net = require('node:net');
const [port, n, seconds] = process.argv.slice(1).map(Number);
let bytes = 0, counting = false;
for (let i = 0; i < n; i++) net.connect({ host: '${serverSideAddress}', port }).on('data', (d) => counting && (bytes += d.length));
setTimeout(() => (counting = true), 1000); // past slow start
setTimeout(() => { console.log(bytes); process.exit(0); }, 1000 + seconds * 1000);
`;

async function measure(packet, port, seconds, conditions) {
  await packet.set(parseConditions(conditions, 'packet'));
  const [command, ...args] = onBrowserSide([process.execPath, '-e', client, String(port), String(connections), String(seconds)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 1000));
  const [cpu0, t0] = [await packet.cpuMs(), performance.now()];
  await once(child, 'exit');
  const [cpu1, t1] = [await packet.cpuMs(), performance.now()];
  return { cpuPercent: ((cpu1 - cpu0) / (t1 - t0)) * 100, mbitPerS: (Number(out) * 8) / seconds / 1e6 };
}

async function run({ seconds }) {
  if (!insidePacketNetwork()) {
    const missing = packetNetworkMissing();
    if (missing) throw Object.assign(new Error(missing), { exitCode: 2 });
    return rerunInside();
  }
  const chunk = Buffer.alloc(256 * 1024);
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const pump = () => { while (socket.write(chunk)); };
    socket.on('drain', pump).on('error', () => {});
    pump();
  });
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  const packet = await startPacketNetwork();
  try {
    for (const c of cases) {
      const m = await measure(packet, server.address().port, seconds, c.conditions);
      console.log(`${c.label.padEnd(10)} ${connections} connections, ${seconds} s: emulator CPU ${m.cpuPercent.toFixed(1)} % of one core, received ${m.mbitPerS.toFixed(1)} Mbit/s of TCP payload`);
    }
  } finally {
    await packet.close();
    server.close();
    for (const socket of sockets) socket.destroy(); // their clients are gone with the emulator
  }
  return 0;
}

process.exitCode = await runCli({ name: 'bench:packet', usage, parse, run });
