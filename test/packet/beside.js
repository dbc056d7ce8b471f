// Run under launch.py by test/packet.test.js, twice at once: one packet network beside another,
// each at the preset its argument names. TCP connects from the browser side to the HTTP/1.1
// server (one round trip each) and the emulator's counters: each network must carry its own
// traffic at its own round trip.
import { execFileSync } from 'node:child_process';
import { onBrowserSide } from '../../server/packet/inside.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { report } from './lab-inside.js';

const rounds = 5;
const connector = `
const net = require('node:net');
const times = [];
(function next() {
  if (times.length === ${rounds}) return console.log(JSON.stringify(times));
  const t0 = performance.now();
  const s = net.connect({ host: '${serverSideAddress}', port: Number(process.argv[1]) }, () => { times.push(performance.now() - t0); s.destroy(); setTimeout(next, 50); });
})();
`;

await report({ preset: process.argv[2] }, async (lab) => {
  const port = lab.running.find((r) => r.id === 'h1').port;
  const argv = onBrowserSide([process.execPath, '-e', connector, String(port)]);
  const connectMs = JSON.parse(execFileSync(argv[0], argv.slice(1), { encoding: 'utf8' }));
  return { connectMs, counters: await lab.networks.packet.counters() };
}, { noCaddy: true });
