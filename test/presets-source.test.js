// The presets table against an independent copy of DevTools' numbers: puppeteer-core's
// PredefinedNetworkConditions (download/upload in bytes per second, latency in ms). Puppeteer
// still uses DevTools' former names for two of them, so the mapping is spelled out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PredefinedNetworkConditions } from 'puppeteer-core';
import { presetById } from '../common/setup/presets.js';

// puppeteer name → our id. 'Slow 3G' is what DevTools now calls 3G; 'Fast 3G' was renamed
// Slow 4G, and puppeteer keeps both names for it (crbug.com/342406608).
const ourIdOf = {
  'Slow 3G': '3g',
  'Fast 3G': 'slow-4g',
  'Slow 4G': 'slow-4g',
  'Fast 4G': 'fast-4g',
};

describe('presets.js against puppeteer-core PredefinedNetworkConditions', () => {
  it('puppeteer has exactly the presets mapped here (a new one needs a row in the table)', () => {
    assert.deepEqual(Object.keys(PredefinedNetworkConditions).sort(), Object.keys(ourIdOf).sort());
  });

  for (const [name, id] of Object.entries(ourIdOf)) {
    it(`puppeteer's '${name}' is our ${id}: download, upload and latency`, () => {
      const theirs = PredefinedNetworkConditions[name];
      const ours = presetById(id);
      assert.deepEqual(
        { downloadBps: ours.downloadBps, uploadBps: ours.uploadBps, latencyMs: ours.latencyMs },
        { downloadBps: theirs.download, uploadBps: theirs.upload, latencyMs: theirs.latency },
      );
    });
  }

  it("our former names are puppeteer's names for the same numbers", () => {
    for (const id of ['3g', 'slow-4g']) {
      const { formerly } = presetById(id);
      assert.equal(ourIdOf[formerly], id, `${id} was called ${formerly}`);
    }
  });
});
