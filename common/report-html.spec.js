import { describe, expect, it } from 'vitest';
import { reportData, reportHtml } from './report-html.js';

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
