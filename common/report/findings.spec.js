import { describe, expect, it } from 'vitest';
import { judgeExperiment } from '../stats/family.js';
import { detectableCell, detectableText, findings } from './findings.js';
import { reportHtml } from './report-html.js';
import { summaryMarkdown } from './summary-markdown.js';

const run = (server, repeat, totalMs) => ({ server, repeat, totalMs, valid: true });
/** A point of 12 repeats: caddy-h2 takes `h2` and caddy-h3 `h3` of caddy-h1's time, each run within a few %. */
const point = (h2, h3) => ({
  id: 'p',
  settings: { servers: ['caddy-h1', 'caddy-h2', 'caddy-h3'], repeats: 12 },
  environment: {},
  runs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].flatMap((k) => [
    run('caddy-h1', k, 1000 * (1 + k / 100)),
    run('caddy-h2', k, h2 * 1000 * (1 + ((k * 3) % 8) / 100)),
    run('caddy-h3', k, h3 * 1000 * (1 + ((k * 5) % 8) / 50)),
  ]),
});

describe('findings', () => {
  const points = judgeExperiment([point(0.6, 0.6), point(0.6, 1.0)]).map((result, i) => ({ label: `${10 * (i + 1)} ms`, result: /** @type {any} */ (result) }));
  const lines = findings(points, 'Delay');

  it('says each decided comparison with its ratio, interval, level and scope, then the undecided ones', () => {
    const decided = lines.filter((l) => !l.includes('Undecided'));
    expect(decided.length).toBeGreaterThan(0);
    expect(decided[0]).toMatch(/^Delay 10 ms: HTTP\/2 \(Caddy\) took 0\.\d\d× HTTP\/1\.1 \(Caddy\)'s time \[0\.\d\d–0\.\d\d\], \d\d\.\d % level: faster, 5 % across the 6 comparisons of this experiment\.$/);
    // Decided first, the undecided after them.
    const firstOpen = lines.findIndex((l) => l.includes('Undecided'));
    expect(firstOpen).toBeGreaterThan(0);
    expect(lines.slice(firstOpen).every((l) => l.includes('Undecided'))).toBe(true);
  });

  it('gives every undecided comparison what its runs could have found, at the level it needed', () => {
    const open = lines.filter((l) => l.includes('Undecided'));
    expect(open.length).toBeGreaterThan(0);
    for (const line of open) expect(line).toMatch(/with 80 % power these runs would have found a ratio below 0\.\d\d× or above 1\.\d\d× at the \d\d\.\d % its step of Holm's ladder needed\.$/);
  });

  it('says one server in one line, with no comparison', () => {
    const [alone] = judgeExperiment([{ ...point(1, 1), settings: { servers: ['caddy-h1'], repeats: 12 }, runs: point(1, 1).runs.filter((r) => r.server === 'caddy-h1') }]);
    expect(findings([{ result: /** @type {any} */ (alone) }])).toEqual(['HTTP/1.1 (Caddy) alone: median 1065 ms; no comparison, so no verdict.']);
  });

  it('says where the runs cannot reach the level at any difference, and nothing for results saved before', () => {
    expect(detectableText(/** @type {any} */ ({ detectable: null, requiredLevel: 0.975, ci95: [0.9, 1.1] }))).toBe('these runs cannot reach the 97.5 % a verdict needed at any difference: more repeats can');
    // A look that spends nothing needs 100 %, which no interval reaches: said as what it is.
    expect(detectableText(/** @type {any} */ ({ detectable: null, requiredLevel: 1, ci95: [0.9, 1.1] }))).toBe('these runs could decide nothing at this look, which spends none of the rate: more repeats can');
    expect(detectableCell(/** @type {any} */ ({ detectable: null }))).toMatch(/no difference findable/);
    expect(detectableCell(/** @type {any} */ ({}))).toBe('');
  });

  it('names the loss set in summary.md, random and in bursts, beside what the emulator counted', () => {
    const direction = { delivered: 900, droppedByLoss: 20, droppedByQueue: 0 };
    const conditions = { preset: 'fast-4g', rttMs: 40, downloadBps: 1e6, uploadBps: 1e6, queueBytes: 1e5, loss: 0, burst: { p: 0.51, r: 25 } };
    const environment = { calibration: { rttMs: 170, downloadBps: 4e5 }, packet: { conditions, counters: { down: direction, up: direction } } };
    const bursty = [{ ...points[0], result: { ...points[0].result, environment } }];
    const md = summaryMarkdown([{ id: 'x', title: 'Bursts', paramLabel: 'Delay', points: bursty }], 'Chromium 156 on a test');
    expect(md).toContain('RTT 170.0 ms, 0.40 MB/s down · loss set 0 %, bursts 0.51 % → bad, 25 % → good · packets delivered 900 down / 900 up, lost 20 / 20');
  });

  it('opens summary.md, before its tables', () => {
    const md = summaryMarkdown([{ id: 'x', title: 'Delay sweep', paramLabel: 'Delay', points }], 'Chromium 156 on a test');
    const at = md.indexOf('## Findings');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(md.indexOf('| Delay |'));
    expect(md.slice(at)).toContain(`- ${lines[0]}`);
    // the undecided cells of the table say what they could have found
    expect(md).toMatch(/no clear difference \([^)]*\), could find < 0\.\d\d× or > 1\.\d\d× \(80 % power\)/);
    // report.html renders that Markdown: the findings come before its first table
    const html = reportHtml({ title: 't', markdown: md, charts: [], data: {}, dataFile: 'd.json' });
    expect(html.indexOf('<h2>Findings</h2>')).toBeGreaterThan(0);
    expect(html.indexOf('<h2>Findings</h2>')).toBeLessThan(html.indexOf('<table>'));
  });
});
