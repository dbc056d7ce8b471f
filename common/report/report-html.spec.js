import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reportData, reportHtml } from './report-html.js';
import { resultMarkdown } from './summary-markdown.js';
import { sampleResult } from '../../test/fixtures/sample-result.js';
import { summarizeResult } from '../stats/stats.js';

const hrefsOf = (html) => [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]);

const make = (markdown, data = { a: 1 }) => reportHtml({ title: 'T <x>', markdown, charts: [{ title: 'C "q"', pngBase64: 'iVBORw0KGgo=' }], data, dataFile: 'd.json', generatedAt: '2026-11-23' });

describe('reportHtml', () => {
  it('renders the Markdown tables and headings, and forbids every network fetch', () => {
    const html = make('# Head\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n');
    expect(html).toContain('<h1>Head</h1>');
    expect(html).toContain('<td>1</td>');
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'; img-src data:/);
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).toContain('<title>T &lt;x&gt;</title>');
    expect(html).toContain('alt="C &quot;q&quot;"');
  });

  it('lets no text of a result become markup', () => {
    const html = make('# R\n\n- Browser: <script>alert(1)</script> <img src=x onerror=alert(2)>\n');
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('renders links and images from the data as their text: only an http(s) link stays a link', () => {
    const html = make('# R\n\n- Browser: [x](javascript:alert(1)) [y](JaVaScript:alert(2)) [r][1] ![i](https://e.example/x.png) a@b.example [ok](https://h2lab.example/)\n\n[1]: data:text/html,hi\n');
    expect(hrefsOf(html)).toEqual(['https://h2lab.example/']);
    expect(html).toContain('[x](javascript:alert(1)) [y](JaVaScript:alert(2)) [r][1] ![i](https://e.example/x.png) a@b.example');
    expect(html.match(/<img /g)).toHaveLength(1); // the chart's
  });

  it('makes a report of a crafted result (a label, the user agent, a server\'s software) with no link that runs', () => {
    const result = sampleResult({ requests: 10, repeats: 2 });
    const link = '[click](javascript:fetch(1))';
    result.environment.userAgent = `Chrome ${link}`;
    result.environment.servers[0].software = `Node ${link}`;
    result.environment.servers[1].label = `![x](javascript:1) ${link}`;
    Object.assign(result, { stopped: true, stopReason: link });
    const html = make(resultMarkdown(result), result);
    expect(html).toContain('Browser: Chrome [click](javascript:fetch(1))');
    expect(hrefsOf(html)).toEqual([]);
    expect(html).not.toMatch(/<a |<img src="javascript/);
  });

  it('says a comparison of runs under loss seeds is paired, over how many pairs, and what pairing is', () => {
    const result = sampleResult({ requests: 2, repeats: 6 });
    const unpaired = resultMarkdown(result);
    expect(unpaired).not.toMatch(/paired/i);
    result.settings.lossSeed = 9;
    for (const run of result.runs) run.lossSeed = 100 + run.repeat;
    Object.assign(result, summarizeResult(result.runs));
    const pairs = result.comparisons[0].pairs;
    expect(pairs).toBeGreaterThan(0);
    const md = resultMarkdown(result);
    expect(md).toContain(`paired over ${pairs} pairs]`);
    expect(md).toContain('Paired: on a lossy path repeat i of every server lost packets from the same seed (base seed 9: --loss-seed)');
    result.environment.packet = { conditions: { preset: 'fast-4g', rttMs: 40, downloadBps: 1e6, uploadBps: 1e6, queueBytes: 1e5, loss: 2, burst: null } };
    expect(resultMarkdown(result)).toMatch(/^- packet network: .*loss 2 % each way; loss seed 9 \(--loss-seed 9 or the page's Loss seed draws the same losses again\)$/m);
  });

  it('allows its one inline script by hash, and no base URL or form target', () => {
    const html = make('# R');
    const [, script] = /<script>([\s\S]*?)<\/script>/.exec(html);
    const csp = /Content-Security-Policy" content="([^"]*)"/.exec(html)[1];
    expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["base-uri 'none'", "form-action 'none'"]));
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('carries its data back intact, also data that holds </script>', () => {
    const data = { userAgent: 'x</script><script>alert(1)</script>', n: [1, 2.5], nested: { ok: true } };
    const html = make('# R', data);
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data's and the download script's own ends
    expect(reportData(html)).toEqual(data);
  });

  it('says what is wrong with an HTML file that is not a report', () => {
    expect(() => reportData('<!doctype html><p>hi</p>')).toThrow(/not an h2lab report/);
    expect(() => reportData('<script type="application/json" id="h2lab-data">{oops</script>')).toThrow(/damaged/);
  });
});
