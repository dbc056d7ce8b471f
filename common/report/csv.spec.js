import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { summarizeResult } from '../stats/stats.js';
import { csv, requestsCsv, summaryFields, summaryRows } from './csv.js';

// As runner/output/report.js writes summary.csv, less its experiment and condition columns.
const summaryCsv = (result) => csv(summaryFields, summaryRows(result));

const nasty = 'TypeError: Failed to fetch, "x"\nnext';

function request(i, extra = {}) {
  return { i, startMs: i * 1.5, ttfbMs: 10.123456, endMs: 20 + i, bytes: 104857, protocol: 'h2', connectionId: 1, serverDelayMs: 10, error: null, ...extra };
}

function makeResult() {
  const runs = [
    { server: 'h2-node', protocol: 'h2', repeat: 1, totalMs: 60, valid: true, invalidReasons: [], failures: 1, connections: 1,
      requests: [request(0), request(1, { ttfbMs: null, endMs: null, bytes: 0, connectionId: null, error: nasty })] },
    { server: 'h1', protocol: 'http/1.1', repeat: 1, totalMs: 100, valid: true, invalidReasons: [], failures: 0, connections: 6,
      requests: [request(0, { protocol: 'http/1.1', connectionId: 3 })] },
    { server: 'h2-node', protocol: 'h2', repeat: 2, totalMs: 62, valid: true, invalidReasons: [], failures: 0, connections: 1, requests: [] },
    { server: 'h1', protocol: 'http/1.1', repeat: 2, totalMs: 104, valid: true, invalidReasons: [], failures: 0, connections: 6, requests: [] },
    { server: 'h2-node', protocol: 'h2', repeat: 3, totalMs: 900, valid: false, invalidReasons: [{ code: 'wrong-protocol', text: '1 of 1 requests negotiated http/1.1, not h2' }], failures: 0, connections: 1, requests: [] },
  ];
  return { id: 'run,1 "a"', startedAt: '2025-01-01T00:00:00.000Z', settings: { preset: 'slow-4g' }, runs, ...summarizeResult(runs) };
}

const parse = (text) => Papa.parse(text, { newline: '\r\n', skipEmptyLines: true });

describe('requestsCsv', () => {
  const text = requestsCsv(makeResult());
  const { data, errors } = parse(text);

  it('is RFC 4180 with the columns in order and CRLF line ends', () => {
    expect(errors).toEqual([]);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.startsWith('run_id,preset,network,server,protocol,repeat,request,start_ms,ttfb_ms,end_ms,bytes,connection_id,client_port,error,loss_seed\r\n')).toBe(true);
    const outsideQuotes = text.replace(/"(?:[^"]|"")*"/g, '');
    expect(outsideQuotes.split('\n').slice(0, -1).every((line) => line.endsWith('\r'))).toBe(true);
    expect(outsideQuotes.split('\r\n')).toHaveLength(5); // header, three records, '' after the last CRLF
    expect(data).toHaveLength(4);
  });

  it('writes one row per request, nulls empty and at most three decimals', () => {
    expect(data[1]).toEqual(['run,1 "a"', 'slow-4g', 'devtools', 'h2-node', 'h2', '1', '0', '0', '10.123', '20', '104857', '1', '', '', '']);
    expect(data[2]).toEqual(['run,1 "a"', 'slow-4g', 'devtools', 'h2-node', 'h2', '1', '1', '1.5', '', '', '0', '', '', nasty, '']);
    expect(data[3]).toEqual(['run,1 "a"', 'slow-4g', 'devtools', 'h1', 'http/1.1', '1', '0', '0', '10.123', '20', '104857', '3', '', '', '']);
  });

  it('round-trips commas, quotes and newlines through papaparse with a header', () => {
    const rows = Papa.parse(text, { header: true, skipEmptyLines: true }).data;
    expect(rows[1].error).toBe(nasty);
    expect(rows[1].run_id).toBe('run,1 "a"');
  });

  it('is only a header for a result without requests', () => {
    expect(requestsCsv({ ...makeResult(), runs: [] })).toBe(
      'run_id,preset,network,server,protocol,repeat,request,start_ms,ttfb_ms,end_ms,bytes,connection_id,client_port,error,loss_seed\r\n',
    );
  });
});

describe('summaryCsv', () => {
  const result = makeResult();
  const rows = Papa.parse(summaryCsv(result), { header: true, skipEmptyLines: true }).data;

  it('has one row per server that ran, h1 first, and the documented columns', () => {
    expect(Object.keys(rows[0])).toEqual([
      'server', 'n', 'median_ms', 'mean_ms', 'p95_ms', 'min_ms', 'max_ms', 'sd_ms', 'ci95_lo_ms', 'ci95_hi_ms', 'ci_level',
      'ratio_to_h1', 'ratio_ci95_lo', 'ratio_ci95_hi', 'ratio_ci_level', 'verdict', 'failures', 'invalid_runs', 'server_cpu_ms', 'connections_per_run',
      'ratio_to_h2', 'ratio_to_h2_ci95_lo', 'ratio_to_h2_ci95_hi', 'ratio_to_h2_ci_level', 'verdict_to_h2',
      'ratio_pairs', 'ratio_to_h2_pairs',
      'repeats', 'max_repeats', 'stopped_by', 'verdict_level_required', 'verdict_to_h2_level_required', 'verdict_scope_comparisons',
      'detectable_ratio_lo', 'detectable_ratio_hi', 'detectable_ratio_to_h2_lo', 'detectable_ratio_to_h2_hi',
    ]);
    expect(rows.map((r) => r.server)).toEqual(['h1', 'h2-node']);
  });

  it('writes the summary, comparison, failures and invalid runs', () => {
    const [h1, h2] = rows;
    expect(h1).toMatchObject({ n: '2', median_ms: '102', mean_ms: '102', min_ms: '100', max_ms: '104', ratio_to_h1: '', verdict: '', failures: '0', invalid_runs: '0' });
    expect(h1.sd_ms).toBe(String(Math.round(Math.sqrt(8) * 1000) / 1000)); // 2.828
    expect(h2).toMatchObject({ n: '2', median_ms: '61', failures: '1', invalid_runs: '1' });
    const c = result.comparisons[0];
    expect(h2.ratio_to_h1).toBe(String(Math.round((61 / 102) * 1000) / 1000));
    expect(h2.ratio_ci95_lo).toBe(String(Math.round(c.ci95[0] * 1000) / 1000));
    expect(h2.verdict).toBe(c.verdict);
    expect(h2.ratio_to_h2).toBe('');
  });

  it('compares HTTP/3 with its family\'s HTTP/1.1 and HTTP/2 servers, each in its own columns', () => {
    const run = (server, protocol, repeat, totalMs) => ({ server, protocol, repeat, totalMs, valid: true, invalidReasons: [], failures: 0, connections: 1, requests: [] });
    // 6 runs a side: wholly apart, Brunner–Munzel's level reaches 95.1 % (4 against 4: 86.9 %).
    const runs = [1, 2, 3, 4, 5, 6].flatMap((k) => [run('caddy-h1', 'http/1.1', k, 200 + k), run('caddy-h2', 'h2', k, 100 + k), run('caddy-h3', 'h3', k, 50 + k)]);
    const family = { id: 'f', startedAt: '2025-01-01T00:00:00.000Z', settings: {}, runs, ...summarizeResult(runs) };
    const byServer = Object.fromEntries(Papa.parse(summaryCsv(family), { header: true, skipEmptyLines: true }).data.map((r) => [r.server, r]));
    expect(Object.keys(byServer)).toEqual(['caddy-h1', 'caddy-h2', 'caddy-h3']);
    expect(byServer['caddy-h3'].ratio_to_h1).toBe(String(Math.round((53.5 / 203.5) * 1000) / 1000));
    expect(byServer['caddy-h3'].ratio_to_h2).toBe(String(Math.round((53.5 / 103.5) * 1000) / 1000));
    expect(byServer['caddy-h3'].ratio_to_h2_ci_level).toBe('0.951');
    expect(byServer['caddy-h3'].verdict_to_h2).toBe('faster');
    expect(byServer['caddy-h2'].ratio_to_h2).toBe('');
    expect([byServer['caddy-h3'].ratio_pairs, byServer['caddy-h3'].ratio_to_h2_pairs]).toEqual(['', '']);
    expect(byServer['caddy-h3']).toMatchObject({ max_repeats: '', stopped_by: '', verdict_level_required: '0.95', verdict_to_h2_level_required: '0.95', verdict_scope_comparisons: '' });
    // What each comparison could have found, in its own columns: below 0.98 and above 1.02; none
    // where its runs cannot reach 95 % (HTTP/3 against HTTP/1.1 here reaches 93.9 %)
    const [h2h1, h3h1, h3h2] = family.comparisons;
    expect(h3h1.detectable).toBeNull();
    expect([byServer['caddy-h2'].detectable_ratio_lo, byServer['caddy-h3'].detectable_ratio_lo, byServer['caddy-h3'].detectable_ratio_to_h2_hi]).toEqual([String(Math.round(h2h1.detectable[0] * 1000) / 1000), '', String(Math.round(h3h2.detectable[1] * 1000) / 1000)]);
    expect(Number(byServer['caddy-h2'].detectable_ratio_lo)).toBeLessThan(0.98);
    expect(Number(byServer['caddy-h3'].detectable_ratio_to_h2_hi)).toBeGreaterThan(1.02);
  });

  it('says how many pairs a paired comparison used, and each request its run\'s loss seed', () => {
    const run = (server, protocol, repeat, totalMs) => ({ server, protocol, repeat, totalMs, lossSeed: 1000 + repeat, valid: true, invalidReasons: [], failures: 0, connections: 1, requests: [request(0, { protocol })] });
    // caddy-h1's repeat 6 has no partner: five pairs.
    const runs = [1, 2, 3, 4, 5, 6].flatMap((k) => [run('caddy-h1', 'http/1.1', k, 200 + k), ...(k < 6 ? [run('caddy-h2', 'h2', k, 100 + k)] : [])]);
    const lossy = { id: 'p', startedAt: '2025-01-01T00:00:00.000Z', settings: { network: 'packet' }, runs, ...summarizeResult(runs) };
    const byServer = Object.fromEntries(Papa.parse(summaryCsv(lossy), { header: true, skipEmptyLines: true }).data.map((r) => [r.server, r]));
    // 5 pairs reach 93.8 %, below the 95 % a verdict needs: no difference findable, the cell empty
    expect(byServer['caddy-h2']).toMatchObject({ ratio_pairs: '5', ratio_ci_level: '0.938', detectable_ratio_lo: '', detectable_ratio_hi: '' });
    const requests = Papa.parse(requestsCsv(lossy), { header: true, skipEmptyLines: true }).data;
    expect(requests.map((r) => r.loss_seed)).toEqual(runs.map((r) => String(r.lossSeed)));
  });

  it('says how many repeats a point took until decided, why it stopped, and the level its verdicts needed', () => {
    const run = (server, repeat, totalMs) => ({ server, protocol: 'h2', repeat, totalMs, valid: true, invalidReasons: [], failures: 0, connections: 1, requests: [] });
    const runs = [1, 2, 3, 4, 5, 6, 7, 8].flatMap((k) => [run('caddy-h1', k, 200 + k), run('caddy-h2', k, 100 + k)]);
    const point = { id: 'u', settings: { repeats: 8 }, runs, ...summarizeResult(runs, 0.975), untilDecided: { maxRepeats: 12, rounds: 2, stoppedBy: 'decided', requiredLevel: 0.975 } };
    const [row] = Papa.parse(summaryCsv(point), { header: true, skipEmptyLines: true }).data.filter((r) => r.server === 'caddy-h2');
    expect(row).toMatchObject({ repeats: '8', max_repeats: '12', stopped_by: 'decided', verdict_level_required: '0.975', verdict: 'faster' });
  });
});
