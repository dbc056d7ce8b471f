// startLab listens on every port and then lets go: an error a server has later (EMFILE on
// accept, say) reaches the process instead of a listener left behind by the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestLab } from './helpers/lab.js';

test("after startLab no server keeps a start-up 'error' listener: a later error surfaces", async () => {
  const lab = await startTestLab();
  try {
    const listening = lab.running.flatMap((r) => [[r.id, r.server], [`${r.id} twin`, r.relay]]);
    assert.ok(listening.length >= 4, 'servers and their twins');
    for (const [name, server] of listening) {
      assert.equal(server.listenerCount('error'), 0, `${name}: error listeners`);
      const later = new Error(`${name} failed after start`);
      assert.throws(() => server.emit('error', later), later, `${name}: the error is thrown, not swallowed`);
    }
  } finally {
    await lab.close();
  }
});
