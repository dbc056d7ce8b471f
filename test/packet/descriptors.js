// Run under launch.py by test/packet.test.js: a lab on the server side (the Caddy family too,
// where Caddy is installed) and Chromium on the browser side, a fetch from every server done;
// then, for every process of the run (pid 1 of launch.py's namespace and all it started), the
// descriptors it holds of a TUN device or of the browser side's namespace, and the H2LAB_PACKET_*
// variables it was started with. Only the emulator may hold the devices; only the lab the
// namespace (close-on-exec, to start the browser there).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { parentOf, tree } from '../helpers/proc.js';
import { browserNetnsPath } from '../../server/packet/inside.js';
import { launchBrowser } from '../../runner/browsers/chromium.js';
import { report } from './lab-inside.js';

const linksOf = (pid) =>
  readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
    } catch {
      return []; // closed meanwhile
    }
  });

await report({ preset: 'regular-4g' }, async (lab) => {
  const browser = await launchBrowser(lab, { packet: true });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${lab.uiOrigin}/api/servers`);
    const protocols = [];
    for (const { origin } of lab.running) {
      protocols.push(await page.evaluate(async (url) => {
        await (await fetch(url, { cache: 'no-store' })).arrayBuffer();
        return performance.getEntriesByName(url).at(-1).nextHopProtocol;
      }, `${origin}/option?size=0.01`));
    }
    const netns = readlinkSync(browserNetnsPath());
    const self = Number(readlinkSync('/proc/self'));
    // A process that cannot be read is reported, never skipped: the test fails on it.
    const processes = tree(parentOf(self)).map((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 120);
        const links = linksOf(pid);
        const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter((v) => v.startsWith('H2LAB_PACKET'));
        return { pid, cmd, self: pid === self, tun: links.filter((l) => l === '/dev/net/tun').length, netns: links.filter((l) => l === netns).length, env };
      } catch (err) {
        return { pid, unreadable: err.message };
      }
    });
    return { protocols, processes };
  } finally {
    await browser.close();
  }
});
