// Run under launch.py by test/packet.test.js: Regular 4G's round trip as Chromium sees it. Warm
// size=0 first bytes from node:http2 over one connection, at Regular 4G and at no throttling in
// turn (the browser's and the server's own time, under the same load of the machine), with the
// emulator's counters of each. One JSON line.
import { parseConditions } from '../../server/path/conditions.js';
import { launchBrowser } from '../../runner/browsers/chromium.js';
import { originOf, report } from './lab-inside.js';

const rounds = 15;

await report({ preset: 'no-throttling' }, async (lab) => {
  const browser = await launchBrowser(lab, { packet: true });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${lab.uiOrigin}/api/servers`);
    const firstByte = (n) => page.evaluate(async (u) => {
      await (await fetch(u, { cache: 'no-store' })).arrayBuffer();
      const e = performance.getEntriesByName(u).at(-1);
      return e.responseStart - e.startTime;
    }, `${originOf(lab, 'h2-node')}/option?size=0&delay=0&i=${n}`);
    await firstByte(0); // the connection, opened unthrottled
    const out = { regular4g: [], unthrottled: [], bytesMs: [] };
    for (let i = 1; i <= rounds; i++) {
      const conditions = await lab.networks.packet.set(parseConditions({ preset: 'regular-4g' }, 'packet'));
      const before = await lab.networks.packet.counters();
      out.regular4g.push(await firstByte(2 * i));
      const after = await lab.networks.packet.counters();
      out.bytesMs.push(((after.up.deliveredBytes - before.up.deliveredBytes) / conditions.uploadBps + (after.down.deliveredBytes - before.down.deliveredBytes) / conditions.downloadBps) * 1000);
      out.rttMs = conditions.rttMs;
      await lab.networks.packet.set(parseConditions({ preset: 'no-throttling' }, 'packet'));
      out.unthrottled.push(await firstByte(2 * i + 1));
    }
    return out;
  } finally {
    await browser.close();
  }
});
