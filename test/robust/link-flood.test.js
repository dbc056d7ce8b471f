// The lab link's HTTP/3 twin port against a local flood (loopback only), with the lab and the Caddy
// family in a process of their own: a stream of 1-byte datagrams at the link's largest round
// trip, then 20,000 one-byte datagrams from as many source ports. The link's queue and its flows
// stay within their bounds, the lab's memory and descriptors with them, and the UI and every
// server (directly and through its twin port; HTTP/3 with gtlsclient) answer. `npm run
// bench:link-flood` prints the figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { linkLimits } from '../../server/config.js';
import { pathBounds } from '../../common/setup/path-limits.js';
import { caddyMissing } from '../helpers/caddy.js';
import { h3Get, h3Missing } from '../helpers/h3.js';
import { assertServesOption, mb, rssPeak, spawnLab } from './fixtures/lab-child.js';
import { datagramsFromNewPorts, datagramsFromOnePort } from './fixtures/udp-flood.js';

// A queue full of 1-byte pieces costs ~26 MB per direction (config.js queuedPieceBytes); without
// the count, the same stream took the lab from 76 to 496 MB.
const memorySlackBytes = 100e6;

let lab;
before(async () => {
  if (!caddyMissing) lab = await spawnLab({ caddy: true });
});
after(() => lab?.close());

const twinPort = () => Number(new URL(lab.servers['caddy-h3'].linkOrigin).port);
const h3Stats = async () => (await lab.measure()).udpRelays['caddy-h3'];

async function putLink(body) {
  const res = await fetch(`${lab.ui}/api/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.text());
}

/** The UI answers, and every server, directly and through its twin port (HTTP/3 where gtlsclient is). */
async function assertLabAnswers() {
  const res = await fetch(`${lab.ui}/api/servers`);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const tcp = Object.entries(lab.servers).filter(([, s]) => s.protocol !== 'h3');
  await assertServesOption({ ca: lab.ca, servers: Object.fromEntries(tcp) });
  await assertServesOption({ ca: lab.ca, servers: Object.fromEntries(tcp.map(([id, s]) => [id, { origin: s.linkOrigin }])) });
  if (h3Missing) return;
  for (const origin of [lab.servers['caddy-h3'].origin, lab.servers['caddy-h3'].linkOrigin]) {
    assert.equal((await h3Get('127.0.0.1', Number(new URL(origin).port), '/option?size=0.01')).status, 200, origin);
  }
}

test('1-byte datagrams at the largest round trip: the link drops what its queue cannot hold, and the lab stays within 100 MB of idle', { skip: caddyMissing, timeout: 120_000 }, async () => {
  await putLink({ rttMs: pathBounds.maxRttMs, downloadBps: pathBounds.maxBps, uploadBps: pathBounds.maxBps });
  try {
    const idle = await lab.measure();
    const peak = rssPeak(lab.pid);
    await datagramsFromOnePort(twinPort(), 400_000);
    const peakBytes = peak.stop();
    const stats = await h3Stats();
    assert.ok(stats.droppedUp > 0, `the queue filled: ${stats.datagramsUp} datagrams on the link, ${stats.droppedUp} dropped`);
    assert.ok(peakBytes - idle.rssBytes < memorySlackBytes, `RSS ${mb(idle.rssBytes)} MB idle, ${mb(peakBytes)} MB at the peak`);
  } finally {
    await putLink({ preset: 'no-throttling' });
  }
  await assertLabAnswers();
});

test('20,000 one-byte datagrams from distinct source ports: the flows stay within their bound, descriptors with them, and the UI and every server answer throughout', { skip: caddyMissing, timeout: 180_000 }, async () => {
  const idle = await lab.measure();
  let peak = { flows: 0, fds: 0 };
  await datagramsFromNewPorts(twinPort(), 20_000, {
    async between(sent) {
      if (sent % 5_000) return;
      const m = await lab.measure();
      peak = { flows: Math.max(peak.flows, m.udpRelays['caddy-h3'].flows), fds: Math.max(peak.fds, m.fds) };
      await assertLabAnswers();
    },
  });
  const read = (await h3Stats()).datagramsUp - idle.udpRelays['caddy-h3'].datagramsUp;
  assert.ok(read >= 15_000, `the relay read ${read} of the 20,000 (the kernel drops what overflows its buffer)`);
  assert.equal(peak.flows, linkLimits.maxUdpFlowsPerRelay, 'the flows reached their bound and stayed there');
  // The flows' sockets and the connections that checked the servers, nothing more.
  assert.ok(peak.fds <= idle.fds + linkLimits.maxUdpFlowsPerRelay + 64, `${peak.fds} descriptors at the peak, ${idle.fds} idle, limit ${idle.fdLimit}`);
  assert.equal((await h3Stats()).flowsRefused, 0, 'no flow was answered, so each new one closed the oldest');
});
