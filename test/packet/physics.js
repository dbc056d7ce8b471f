// Run under launch.py by test/packet.test.js: at Fast 4G, cold first bytes of three HTTP/2
// servers and of HTTP/3 in each of three fresh browsers, a warm size=0 first byte, cold 1 MiB
// bodies over TCP and over QUIC, and a warm 8 MiB body (after a 1 MiB one has opened TCP's
// window); warm size=0 first bytes at Regular 4G and at no throttling (the browser's and the
// server's own time). One JSON line.
import { parseNetworkConditions } from '../../server/packet/conditions.js';
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
  const conditions = lab.packet.get();
  await lab.packet.set(parseNetworkConditions({ preset: 'regular-4g' }));
  const warmFirstBytes = async (n) => (await fetchInFreshBrowser(lab, [0, 1, 2, 3, 4, 5].map((i) => url(lab, 'h2-node', 0, n + i)))).slice(1);
  const regular4g = await warmFirstBytes(300);
  const regular4gConditions = lab.packet.get();
  await lab.packet.set(parseNetworkConditions({ preset: 'no-throttling' }));
  return { conditions, cold, warm, large, warmLarge, regular4g, regular4gConditions, unthrottled: await warmFirstBytes(400) };
}, { noCaddy: false });
