// Run under launch.py by test/packet.test.js: at Fast 4G, cold first bytes of three HTTP/2
// servers and of HTTP/3 in each of three fresh browsers, a warm size=0 first byte, cold 1 MiB
// bodies over TCP and over QUIC, and a warm 8 MiB body (after a 1 MiB one has opened TCP's
// window). One JSON line.
import { fetchInFreshBrowser, originOf, report } from './lab-inside.js';

const url = (lab, id, sizeMiB, n) => `${originOf(lab, id)}/option?size=${sizeMiB}&delay=0&i=${n}`;

await report({ preset: 'fast-4g' }, async (lab) => {
  const small = [];
  for (let b = 0; b < 3; b++) {
    small.push(...(await fetchInFreshBrowser(lab, [...['h2-node', 'h2-spdy', 'caddy-h2', 'caddy-h3'].map((id, i) => url(lab, id, 0, 10 * b + i)), url(lab, 'h2-node', 0, 10 * b + 9)])));
  }
  const warm = small.filter((_, i) => i % 5 === 4);
  const cold = small.filter((_, i) => i % 5 !== 4);
  const large = await fetchInFreshBrowser(lab, [url(lab, 'h2-node', 1, 100), url(lab, 'caddy-h3', 1, 101)]);
  const [, warmLarge] = await fetchInFreshBrowser(lab, [url(lab, 'h2-node', 1, 200), url(lab, 'h2-node', 8, 201)]);
  return { conditions: lab.networks.packet.get(), cold, warm, large, warmLarge };
}, { noCaddy: false });
