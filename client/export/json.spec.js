import { describe, expect, it } from 'vitest';
import { sampleResult } from '../charts/sample-result.js';
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
