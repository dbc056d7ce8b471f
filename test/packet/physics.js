// Run under server/packet/launch.py by test/packet.test.js: a lab on the server side at Fast 4G
// and a headless Chromium on the browser side; prints what Chromium's Resource Timing measured
// (ms) and the emulator's counters as one JSON line. Each cold measurement is the first request
// of a fresh browser to its origin, so no connection of an earlier one can serve it.
import { freePorts, startLab } from '../../server/lab.js';
import { parseNetworkConditions } from '../../server/packet/conditions.js';
import { launchBrowser } from '../../runner/browser.js';

const MiB = 1024 * 1024;
const lab = await startLab({ ...freePorts, host: '0.0.0.0', packet: true });
const origin = (id) => lab.running.find((r) => r.id === id).origin;

/** Fetches each URL in turn in a fresh browser; Resource Timing of each, in ms. */
async function inFreshBrowser(urls) {
  const browser = await launchBrowser(lab, { packet: true });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${lab.uiOrigin}/api/servers`); // the UI's origin (unshaped), which the servers allow
    return await page.evaluate(async (list) => {
      const out = [];
      for (const url of list) {
        const res = await fetch(url, { cache: 'no-store' });
        await res.arrayBuffer();
        const e = performance.getEntriesByName(url).at(-1);
        out.push({ url, protocol: e.nextHopProtocol, firstByteMs: e.responseStart - e.startTime, bodyMs: e.responseEnd - e.responseStart, requestToFirstByteMs: e.responseStart - e.requestStart });
      }
      return out;
    }, urls);
  } finally {
    await browser.close();
  }
}

try {
  await lab.packet.set(parseNetworkConditions({ preset: process.argv[2] ?? 'fast-4g' }));
  const q = (size, n) => `/option?size=${size}&delay=0&i=${n}`;
  const small = await inFreshBrowser([origin('h2-node') + q(0, 1), origin('caddy-h3') + q(0, 2), origin('h2-node') + q(0, 3)]);
  const large = await inFreshBrowser([origin('h2-node') + q(1, 4), origin('caddy-h3') + q(1, 5)]);
  process.stdout.write(`${JSON.stringify({ coldH2: small[0], coldH3: small[1], warmH2: small[2], largeH2: large[0], largeH3: large[1], bytes: MiB, counters: await lab.packet.counters() })}\n`);
} finally {
  await lab.close();
}
