import { describe, expect, it } from 'vitest';
import { samplePageLoads, sampleResult } from '../../test/fixtures/sample-result.js';
import { parseResultJson, resultJsonParts } from './json.js';

const runsLast = ({ runs, ...rest }) => ({ ...rest, runs });

describe('resultJsonParts', () => {
  it('joins to the pretty JSON of the result with runs last, one piece per run', () => {
    const result = sampleResult({ repeats: 3 });
    const parts = resultJsonParts(result);
    expect(parts.join('')).toBe(JSON.stringify(runsLast(result), null, 2));
    expect(parts.length).toBeGreaterThan(result.runs.length);
    expect(parseResultJson(parts.join('')).runs).toEqual(result.runs);
  });

  it('handles no runs, an empty object and a result without runs', () => {
    for (const value of [{ id: 'x', runs: [] }, { runs: [{ a: [1, 2] }] }, { id: 'x' }, {}]) {
      const expected = 'runs' in value ? runsLast(value) : value;
      expect(resultJsonParts(value).join('')).toBe(JSON.stringify(expected, null, 2));
    }
  });
});

describe('parseResultJson', () => {
  it('refuses a result from before schema versions, and one from another schema, in one sentence', () => {
    const { schemaVersion: _, ...old } = sampleResult({ repeats: 1 });
    expect(() => parseResultJson(JSON.stringify(old))).toThrow(/before schema versions .*reads schema 3/);
    expect(() => parseResultJson(JSON.stringify({ ...old, schemaVersion: 4 }))).toThrow(/schema 4.*reads schemas 2 and 3.*\(a newer one\)/);
    expect(() => parseResultJson(JSON.stringify({ ...old, schemaVersion: 1 }))).toThrow(/schema 1.*reads schemas 2 and 3/);
    // Schema 2 is read still: its network through common/report/network-record.js.
    expect(parseResultJson(JSON.stringify({ ...old, schemaVersion: 2 })).schemaVersion).toBe(2);
  });

  it('refuses page loads and things that are not results', () => {
    expect(() => parseResultJson(JSON.stringify(samplePageLoads()))).toThrow(/page-loads result, not an experiment/);
    for (const text of ['[]', '{}', '42', 'null']) expect(() => parseResultJson(text)).toThrow(/not an h2lab result/);
  });
});
