// Run under launch.py by test/packet.test.js: a connected UDP socket on the browser side sends
// datagrams in quick succession to a closed port on the server side, through the emulator at no
// throttling, and counts the ECONNREFUSED it is told (one per ICMP port unreachable that reached
// it), with the server side's ICMP counters (/proc/net/snmp of this namespace). One JSON line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { serverSideAddress } from '../../server/packet/sides.js';
import { startPacketNetwork } from '../../server/packet/network.js';
import { onBrowserSide } from '../../server/packet/inside.js';
import { closedPort } from './lab-inside.js';

const datagrams = 30;
const gapMs = 10; // 30 datagrams in 300 ms, as several holds' closing datagrams within a second
const settleMs = 200; // the last ICMP's way back (at no throttling, well under a millisecond)

// Each datagram's error is read before the next is sent (10 ms later), so none overwrites another.
const sender = `
const socket = require('node:dgram').createSocket('udp4');
let refused = 0;
const count = (err) => { if (err?.code === 'ECONNREFUSED') refused += 1; };
socket.on('error', count);
socket.connect(Number(process.argv[1]), '${serverSideAddress}', async () => {
  for (let i = 0; i < ${datagrams}; i++) {
    socket.send(Buffer.from('h2lab'), count);
    await new Promise((resolve) => setTimeout(resolve, ${gapMs}));
  }
  setTimeout(() => { console.log(JSON.stringify({ sent: ${datagrams}, refused })); socket.close(); }, ${settleMs});
});
`;

function icmpCounters() {
  const [names, values] = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((l) => l.startsWith('Icmp:')).map((l) => l.split(/\s+/));
  const read = (name) => Number(values[names.indexOf(name)]);
  return { outDestUnreachs: read('OutDestUnreachs'), outRateLimitHost: read('OutRateLimitHost'), outRateLimitGlobal: read('OutRateLimitGlobal') };
}

const packet = await startPacketNetwork();
try {
  const port = await closedPort();
  const [command, ...args] = onBrowserSide([process.execPath, '-e', sender, String(port)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  await once(child, 'exit');
  process.stdout.write(`${JSON.stringify({ ...JSON.parse(output), server: icmpCounters(), counters: await packet.counters() })}\n`);
} finally {
  await packet.close();
}
