// CDP network emulation against a recording fake session: the exact calls and parameters the
// runner sends, and that every apply is followed by a clear.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { presetById } from '../common/setup/presets.js';
import { applyPreset, clearNetwork, withPreset } from '../common/setup/devtools-network.js';

/** Records [method, params] per send; a send for which `fails` is true rejects after recording. */
function recordingSession({ fails = () => false } = {}) {
  const calls = [];
  return {
    calls,
    async send(method, params) {
      calls.push([method, params]);
      if (fails(method, params)) throw new Error(`${method} failed`);
      return {};
    },
  };
}
const failsOn = (name) => ({ fails: (method) => method === name });
// Under 3g only the clear lifts the limits.
const failsToClear = { fails: (method, params) => params?.downloadThroughput === -1 };

const emulate = (offline, latency, downloadThroughput, uploadThroughput) => [
  'Network.emulateNetworkConditions',
  { offline, latency, downloadThroughput, uploadThroughput },
];
const cleared = emulate(false, 0, -1, -1);

describe('applyPreset', () => {
  const cases = [
    ['slow-4g', emulate(false, 562.5, 180_000, 84_375)],
    ['3g', emulate(false, 2_000, 50_000, 50_000)],
    ['no-throttling', emulate(false, 0, -1, -1)],
    ['offline', emulate(true, 0, 0, 0)],
  ];
  for (const [id, expected] of cases) {
    it(`enables the network domain, then emulates ${id}`, async () => {
      const session = recordingSession();
      await applyPreset(session, presetById(id));
      assert.deepEqual(session.calls, [['Network.enable', undefined], expected]);
    });
  }

  it('sends Network.enable once per session', async () => {
    const first = recordingSession();
    const second = recordingSession();
    await applyPreset(first, presetById('slow-4g'));
    await applyPreset(first, presetById('3g'));
    await withPreset(first, presetById('fast-4g'), async () => {});
    await applyPreset(second, presetById('3g'));
    assert.equal(first.calls.filter(([method]) => method === 'Network.enable').length, 1);
    assert.deepEqual(second.calls[0], ['Network.enable', undefined]);
  });

  it('tries Network.enable again when it failed the first time', async () => {
    const session = recordingSession(failsOn('Network.enable'));
    await assert.rejects(applyPreset(session, presetById('3g')), /Network.enable failed/);
    await assert.rejects(applyPreset(session, presetById('3g')), /Network.enable failed/);
    assert.deepEqual(session.calls.map(([method]) => method), ['Network.enable', 'Network.enable']);
  });
});

describe('clearNetwork', () => {
  it('lifts every limit and goes back online', async () => {
    const session = recordingSession();
    await clearNetwork(session);
    assert.deepEqual(session.calls, [cleared]);
  });
});

describe('withPreset', () => {
  it('applies, runs fn, clears and returns what fn returned', async () => {
    const session = recordingSession();
    const seen = [];
    const result = await withPreset(session, presetById('slow-4g'), async () => {
      seen.push(session.calls.length);
      return 42;
    });
    assert.equal(result, 42);
    assert.deepEqual(seen, [2], 'fn runs after enable and emulate, before the clear');
    assert.deepEqual(session.calls, [['Network.enable', undefined], emulate(false, 562.5, 180_000, 84_375), cleared]);
  });

  it('clears after fn throws and rethrows its error', async () => {
    const session = recordingSession();
    await assert.rejects(
      withPreset(session, presetById('3g'), async () => {
        throw new Error('run failed');
      }),
      /run failed/,
    );
    assert.deepEqual(session.calls.at(-1), cleared);
  });

  it("keeps fn's error when the clear fails too", async () => {
    const session = recordingSession(failsToClear);
    await assert.rejects(
      withPreset(session, presetById('3g'), async () => {
        throw new Error('run failed');
      }),
      /run failed/,
    );
    assert.deepEqual(session.calls.at(-1), cleared, 'the clear was tried');
  });

  it('reports a failed clear after fn succeeded', async () => {
    const session = recordingSession(failsToClear);
    await assert.rejects(withPreset(session, presetById('3g'), async () => 1), /Network.emulateNetworkConditions failed/);
    assert.deepEqual(session.calls.at(-1), cleared);
  });

  it('does not run fn when the preset could not be applied', async () => {
    const session = recordingSession(failsOn('Network.emulateNetworkConditions'));
    let ran = false;
    await assert.rejects(
      withPreset(session, presetById('3g'), async () => {
        ran = true;
      }),
      /emulateNetworkConditions failed/,
    );
    assert.equal(ran, false);
  });
});
