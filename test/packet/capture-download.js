// Run under launch.py by test/connections.test.js: three TCP downloads at once from a plain Node
// server on the server side to a Node client on the browser side, through the emulator at 40 ms
// of round trip and 2 % loss each way, captured (headers only) to `<argv[2]>.sent.pcapng` and
// `.received.pcapng`. Each connection speaks first from the client, as TLS does, then the server
// sends its bytes and closes. One JSON line: the capture's summary and the bytes each client read.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { serverSideAddress } from '../../server/packet/sides.js';
import { startPacketNetwork } from '../../server/packet/network.js';
import { onBrowserSide } from '../../server/packet/inside.js';
import { parseConditions } from '../../server/path/conditions.js';

const stem = process.argv[2];
const connections = 3;
const bytes = 2 * 1024 * 1024;
const rttMs = 40;

const client = `
const net = require('node:net');
const read = Array(${connections}).fill(0);
let left = ${connections};
for (let i = 0; i < ${connections}; i++) {
  const s = net.connect({ host: '${serverSideAddress}', port: Number(process.argv[1]) }, () => s.write('GET\\n'));
  s.on('data', (d) => (read[i] += d.length));
  s.on('close', () => { if (--left === 0) console.log(JSON.stringify(read)); });
}
`;

const packet = await startPacketNetwork();
const server = net.createServer((socket) => {
  socket.on('error', () => {});
  socket.once('data', () => socket.end(Buffer.alloc(bytes, 0x61)));
});
try {
  await packet.set(parseConditions({ rttMs, downloadBps: 2_500_000, uploadBps: 1_000_000, loss: 2 }, 'packet'));
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  await packet.capture.start(stem, false);
  const [command, ...args] = onBrowserSide([process.execPath, '-e', client, String(/** @type {net.AddressInfo} */ (server.address()).port)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  await once(child, 'exit');
  // The last FINs and ACKs cross the path (a few round trips) before the capture ends.
  await new Promise((resolve) => setTimeout(resolve, 10 * rttMs));
  const summary = await packet.capture.stop();
  process.stdout.write(`${JSON.stringify({ summary, read: JSON.parse(output) })}\n`);
} finally {
  server.close();
  await packet.close();
}
