// Run under launch.py by test/packet.test.js: Fast 4G with 2 % loss each way; three 1 MiB bodies
// from node:http2 over one connection and one from HTTP/1.1, with the server side's TCP
// retransmission counter (/proc/net/snmp of this namespace) and the emulator's counters.
import { readFileSync } from 'node:fs';
import { fetchInFreshBrowser, originOf, report } from './lab-inside.js';

function retransSegs() {
  const [names, values] = readFileSync('/proc/net/snmp', 'utf8').split('\n').filter((l) => l.startsWith('Tcp:')).map((l) => l.split(/\s+/));
  return Number(values[names.indexOf('RetransSegs')]);
}

await report({ preset: 'fast-4g', loss: 2 }, async (lab) => {
  const before = { retransSegs: retransSegs(), ...(await lab.networks.packet.counters()) };
  const urls = [1, 2, 3].map((i) => `${originOf(lab, 'h2-node')}/option?size=1&delay=0&i=${i}`);
  const fetched = await fetchInFreshBrowser(lab, [...urls, `${originOf(lab, 'h1')}/option?size=1&delay=0&i=4`]);
  const after = { retransSegs: retransSegs(), ...(await lab.networks.packet.counters()) };
  return { before, after, protocols: fetched.map((f) => f.protocol) };
});
