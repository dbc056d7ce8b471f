// The lab collects a burst's garbage once it is over (server/idle-gc.js): while no connection is
// open, at /api/reset, and when its last connection goes; never while a run's connections are open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import tls from 'node:tls';
import v8 from 'node:v8';
import { setImmediate as turn, setTimeout as sleep } from 'node:timers/promises';
import { startIdleCollector } from '../server/idle-gc.js';
import { freePorts, startLab } from '../server/lab.js';
import { MiB } from '../common/setup/units.js';
import { memoryLimits } from '../server/config.js';

const heapUsed = () => v8.getHeapStatistics().used_heap_size;
// V8's own heap growth (0: its default), so that only the collector under test frees the bursts.
const quietV8 = { ...memoryLimits, heapGrowingPercent: 0 };

/** ~60 MB of objects kept alive long enough to reach the old generation, dropped on return. */
async function burst() {
  const kept = [];
  for (let round = 0; round < 6; round++) {
    kept.push(Array.from({ length: 100_000 }, (_, i) => ({ i, text: `${round}:${i}:${'x'.repeat(40)}` })));
    await sleep(10); // scavenges in between promote what is still held
  }
}

test('after a burst, a lab with no connection gives the heap back within a few checks, never while one is open; reset collects at once', async () => {
  const limits = { ...quietV8, idleCheckIntervalMs: 100, heapGrowthBytes: 16 * MiB, settleQuietChecks: 60 };
  let busy = true; // a connection open: nothing may be collected
  const collector = startIdleCollector({ quiet: () => !busy, limits });
  try {
    await burst();
    const grown = heapUsed();
    await sleep(500);
    assert.ok(heapUsed() > grown - 10 * MiB, `collected while a connection was open: heap ${(grown / MiB).toFixed(0)} → ${(heapUsed() / MiB).toFixed(0)} MiB`);
    busy = false;
    await sleep(500);
    assert.ok(heapUsed() < grown - 30 * MiB, `heap ${(grown / MiB).toFixed(0)} → ${(heapUsed() / MiB).toFixed(0)} MiB after 0.5 s quiet`);
    busy = true;
    await burst();
    assert.equal(collector.collectIfGrown(), true, 'the burst grew the heap past the threshold');
    assert.equal(collector.collectIfGrown(), false, 'nothing grew since');
  } finally {
    collector.stop();
  }
});

test('a storm of cut responses is collected while its connections are still open', async () => {
  const limits = { ...quietV8, idleCheckIntervalMs: 100, heapGrowthBytes: 16 * MiB, settleQuietChecks: 60 };
  let stormy = false;
  const collector = startIdleCollector({ quiet: () => false, storm: () => stormy, limits });
  try {
    await burst();
    const grown = heapUsed();
    await sleep(300);
    assert.ok(heapUsed() > grown - 10 * MiB, 'no storm, connections open: nothing collected');
    stormy = true;
    await sleep(300);
    assert.ok(heapUsed() < grown - 30 * MiB, `heap ${(grown / MiB).toFixed(0)} → ${(heapUsed() / MiB).toFixed(0)} MiB in the storm`);
  } finally {
    collector.stop();
  }
});

test('the lab collects as its last connection goes, without waiting for a quiet second', async () => {
  const lab = await startLab({ ...freePorts, noCaddy: true, noNginx: true });
  try {
    const { origin, protocol } = lab.describe().servers.find((s) => s.id === 'h1');
    const { hostname, port } = new URL(origin);
    const socket = tls.connect({ host: hostname, port, servername: 'localhost', rejectUnauthorized: false, ALPNProtocols: [protocol] });
    await once(socket, 'secureConnect');
    // A connection is open through the burst, so the idle check cannot collect before the
    // assertion: only the last connection's going can.
    await burst();
    const grown = heapUsed();
    socket.destroy();
    while (lab.stats().some((s) => s.openConnections > 0)) await turn();
    await turn(); // the collection runs on the turn after the close
    assert.ok(heapUsed() < grown - 30 * MiB, `heap ${(grown / MiB).toFixed(0)} → ${(heapUsed() / MiB).toFixed(0)} MiB once the connection went`);
  } finally {
    await lab.close();
  }
});
