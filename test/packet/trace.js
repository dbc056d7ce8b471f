// Run under launch.py by test/packet.test.js: the packet network's rate from a trace. At one
// slot of 1,504 bytes per millisecond (mahimahi's constant example, 12.03 Mbit/s) a warm 8 MiB
// body after a 1 MiB one has opened TCP's window; then, on the synthetic Fast 4G traces, a cold
// 1 MiB over HTTP/2 and over HTTP/3 and what the network records of the traces. One JSON line.
import { parseConditions } from '../../server/path/conditions.js';
import { fetchInFreshBrowser, originOf, report } from './lab-inside.js';

const url = (lab, id, sizeMiB, n) => `${originOf(lab, id)}/option?size=${sizeMiB}&delay=0&i=${n}`;

await report({ traceDown: 'constant-12mbit', traceUp: 'constant-12mbit' }, async (lab) => {
  const constant = lab.networks.packet.get();
  const [, warmLarge] = await fetchInFreshBrowser(lab, [url(lab, 'h2-node', 1, 1), url(lab, 'h2-node', 8, 2)]);
  const markov = await lab.networks.packet.set(parseConditions({ preset: 'fast-4g', traceDown: 'markov-fast-4g-down', traceUp: 'markov-fast-4g-up' }, 'packet', { traces: lab.traces }));
  const variable = await fetchInFreshBrowser(lab, [url(lab, 'caddy-h2', 1, 3), url(lab, 'caddy-h3', 1, 4)]);
  return { constant, warmLarge, markov, variable };
}, { noCaddy: false });
