// What the packet tests' helper scripts share (each runs under server/packet/launch.py, started
// by test/packet.test.js, and prints one JSON line): a lab on the server side and Chromium
// fetches on the browser side, each fetch with Resource Timing and the emulator's counters.
import dgram from 'node:dgram';
import { once } from 'node:events';
import { freePorts, startLab } from '../../server/lab.js';
import { parseConditions } from '../../server/path/conditions.js';
import { launchBrowser } from '../../runner/browsers/chromium.js';

export async function startPacketLab(conditions, options = {}) {
  const lab = await startLab({ ...freePorts, host: '0.0.0.0', packet: true, ...options });
  await lab.networks.packet.set(parseConditions(conditions, 'packet', { traces: lab.traces }));
  return lab;
}

export const originOf = (lab, id) => lab.running.find((r) => r.id === id).origin;

const minus = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - b[k]]));

/**
 * Fetches the URLs one after another in a fresh browser (every origin's first request is cold).
 * @returns {Promise<{ url, protocol, firstByteMs, bodyMs, requestToFirstByteMs, up, down }[]>} up, down:
 *   the emulator's counters during that fetch alone
 */
export async function fetchInFreshBrowser(lab, urls) {
  const browser = await launchBrowser(lab, { packet: true });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${lab.uiOrigin}/api/servers`); // the UI's origin (unshaped), which the servers allow
    const out = [];
    for (const url of urls) {
      const before = await lab.networks.packet.counters();
      const timing = await page.evaluate(async (u) => {
        const res = await fetch(u, { cache: 'no-store' });
        await res.arrayBuffer();
        const e = performance.getEntriesByName(u).at(-1);
        return { protocol: e.nextHopProtocol, firstByteMs: e.responseStart - e.startTime, bodyMs: e.responseEnd - e.responseStart, requestToFirstByteMs: e.responseStart - e.requestStart };
      }, url);
      const after = await lab.networks.packet.counters();
      out.push({ url, ...timing, up: minus(after.up, before.up), down: minus(after.down, before.down) });
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** Runs `body(lab)` on a packet lab and prints what it resolves as one JSON line. */
export async function report(conditions, body, options) {
  const lab = await startPacketLab(conditions, options);
  try {
    process.stdout.write(`${JSON.stringify(await body(lab))}\n`);
  } finally {
    await lab.close();
  }
}

/** A UDP port on the server side that nothing listens on (bound once, then closed). */
export async function closedPort() {
  const socket = dgram.createSocket('udp4');
  socket.bind(0, '0.0.0.0');
  await once(socket, 'listening');
  const { port } = socket.address();
  socket.close();
  return port;
}

/** The emulator's counters once nothing it took is still on its link (a few one-way delays at most). */
export async function quietCounters(lab) {
  let counters;
  for (let i = 0; i < 50; i++) {
    counters = await lab.networks.packet.counters();
    if (!counters.up.onLink && !counters.down.onLink) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return counters;
}
