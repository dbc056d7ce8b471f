import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { beforeEach, describe, expect, it } from 'vitest';
import { deleteResult, listResults, loadResult, saveResult } from './store.js';

// Taken after importing store.js and before calling it.
const databasesAtImport = (await indexedDB.databases()).map((d) => d.name);

const preset = { id: 'wifi', label: 'WiFi' };

function result(id, startedAt) {
  return {
    id,
    startedAt,
    finishedAt: startedAt,
    settings: { requests: 2, preset: 'wifi' },
    environment: { userAgent: 'test', preset, calibration: null, servers: [] },
    runs: [{ server: 'h1', repeat: 1, totalMs: 5, valid: true, requests: [{ i: 0, error: null }, { i: 1, error: 'x' }] }],
    summary: { h1: { n: 1, median: 5 } },
    comparisons: [],
    floorMsByServer: null,
  };
}

beforeEach(async () => {
  for (const { id } of await listResults()) await deleteResult(id);
});

describe('history store', () => {
  it('opens the database on first use, not at import', async () => {
    expect(databasesAtImport).not.toContain('h2lab');
    expect((await indexedDB.databases()).map((d) => d.name)).toContain('h2lab');
  });

  it('saves and loads a whole result', async () => {
    const r = result('a', '2025-01-02T00:00:00.000Z');
    expect(await saveResult(r)).toBe('a');
    expect(await loadResult('a')).toEqual(r);
    expect(await loadResult('missing')).toBeUndefined();
  });

  it('lists light entries, newest first', async () => {
    await saveResult(result('old', '2025-01-01T00:00:00.000Z'));
    await saveResult(result('new', '2025-03-01T00:00:00.000Z'));
    await saveResult(result('mid', '2025-02-01T00:00:00.000Z'));
    const list = await listResults();
    expect(list.map((e) => e.id)).toEqual(['new', 'mid', 'old']);
    expect(list[0]).toEqual({
      id: 'new', startedAt: '2025-03-01T00:00:00.000Z', settings: { requests: 2, preset: 'wifi' },
      summary: { h1: { n: 1, median: 5 } }, comparisons: [], preset,
    });
  });

  it('replaces a result saved again under the same id', async () => {
    await saveResult(result('a', '2025-01-01T00:00:00.000Z'));
    await saveResult({ ...result('a', '2025-01-01T00:00:00.000Z'), summary: { h1: { n: 1, median: 7 } } });
    const list = await listResults();
    expect(list).toHaveLength(1);
    expect(list[0].summary.h1.median).toBe(7);
    expect((await loadResult('a')).summary.h1.median).toBe(7);
  });

  it('deletes a result and its entry', async () => {
    await saveResult(result('a', '2025-01-01T00:00:00.000Z'));
    await saveResult(result('b', '2025-01-02T00:00:00.000Z'));
    await deleteResult('a');
    expect(await loadResult('a')).toBeUndefined();
    expect((await listResults()).map((e) => e.id)).toEqual(['b']);
    await deleteResult('a'); // deleting twice is harmless
  });

  it('uses the documented database and store', async () => {
    await saveResult(result('c', '2025-01-01T00:00:00.000Z'));
    const raw = await openDB('h2lab');
    expect(raw.objectStoreNames.contains('results')).toBe(true);
    expect((await raw.get('results', 'c')).runs[0].requests).toHaveLength(2);
    raw.close();
  });
});
