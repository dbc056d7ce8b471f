import { describe, expect, it } from 'vitest';
import { judgeExperiment } from '../stats/family.js';
import { acrossFamilies, acrossSentence } from './across-families.js';
import { summaryMarkdown } from './summary-markdown.js';

const run = (server, repeat, totalMs) => ({ server, repeat, totalMs, valid: true });
const repeats = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
/**
 * A point of 12 repeats in the Caddy and nginx families: each family's HTTP/2 takes `h2` and its
 * HTTP/3 `h3[family]` of its HTTP/1.1's time, each run within a few %.
 */
const point = (h2, h3) => ({
  id: 'p',
  settings: { servers: ['caddy-h1', 'caddy-h2', 'caddy-h3', 'nginx-h1', 'nginx-h2', 'nginx-h3'], repeats: 12 },
  environment: {},
  runs: ['caddy', 'nginx'].flatMap((f) => repeats.flatMap((k) => [
    run(`${f}-h1`, k, 1000 * (1 + k / 100)),
    run(`${f}-h2`, k, h2 * 1000 * (1 + ((k * 3) % 8) / 100)),
    run(`${f}-h3`, k, h3[f] * 1000 * (1 + ((k * 5) % 8) / 100)),
  ])),
});

describe('verdicts across implementations', () => {
  const judged = judgeExperiment([point(0.6, { caddy: 0.4, nginx: 0.4 }), point(0.6, { caddy: 0.4, nginx: 0.9 })]);
  const points = judged.map((result, i) => ({ label: `${i + 1}`, result: /** @type {any} */ (result) }));
  const rows = acrossFamilies(points);

  it('sets each protocol pair side by side in the families that measured it, in the registry order', () => {
    expect(rows.map((r) => `${r.label} ${r.pair}`)).toEqual([
      '1 HTTP/2 vs HTTP/1.1', '1 HTTP/3 vs HTTP/1.1', '1 HTTP/3 vs HTTP/2',
      '2 HTTP/2 vs HTTP/1.1', '2 HTTP/3 vs HTTP/1.1', '2 HTTP/3 vs HTTP/2',
    ]);
    for (const r of rows) expect(r.byFamily.map((f) => f.family)).toEqual(['caddy', 'nginx']);
  });

  it('says they agree where every family decided alike, and differ where two decided apart', () => {
    const at = (label, pair) => rows.find((r) => r.label === label && r.pair === pair);
    expect(at('1', 'HTTP/3 vs HTTP/2')).toMatchObject({ agreement: 'agree', text: 'agree: faster in Caddy (quic-go) and nginx' });
    expect(at('2', 'HTTP/3 vs HTTP/2')).toMatchObject({ agreement: 'differ', text: 'differ: faster in Caddy (quic-go), slower in nginx' });
    expect(acrossSentence(at('2', 'HTTP/3 vs HTTP/2'))).toMatch(/^2: HTTP\/3 vs HTTP\/2 across implementations: Caddy \(quic-go\) 0\.\d\d× faster, nginx 1\.\d\d× slower; differ: faster in Caddy \(quic-go\), slower in nginx\.$/);
  });

  it('leaves out a pair that one family alone measured, and the A/A control', () => {
    const caddyOnly = { ...points[0].result, comparisons: points[0].result.comparisons.filter((c) => c.server.startsWith('caddy-')) };
    expect(acrossFamilies([{ result: caddyOnly }])).toEqual([]);
  });

  it('is in summary.md after the findings, a family a column, a difference in bold', () => {
    const md = summaryMarkdown([{ id: 'e', title: 'E', paramLabel: 'Point', points }], 'about');
    const across = md.slice(md.indexOf('## Across implementations'), md.indexOf('## E'));
    expect(md.indexOf('## Findings')).toBeLessThan(md.indexOf('## Across implementations'));
    expect(across).toContain('| Point | pair | Caddy (quic-go) | nginx | across implementations |');
    expect(across).toMatch(/\| 2 \| HTTP\/3 vs HTTP\/2 \| 0\.\d\d× \[0\.\d\d–0\.\d\d\]: faster \| 1\.\d\d× \[1\.\d\d–1\.\d\d\]: slower \| \*\*differ: faster in Caddy \(quic-go\), slower in nginx\*\* \|/);
  });
});
