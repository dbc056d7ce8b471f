// One self-contained HTML file to send a colleague: the summary (Markdown made HTML), every chart
// as a PNG inside the file, and the data it was made from, re-importable. It opens from file://
// and asks for nothing over the network: its Content-Security-Policy forbids every fetch; images
// are data: URLs, the one script (allowed by its hash) and the style are inline. It only formats
// results.
import { Marked } from 'marked';
import { escapeHtml } from '../setup/text.js';

/** The id of the <script type="application/json"> that carries the report's data. */
const dataId = 'h2lab-data';

// Inside <script> only "</script" and "<!--" could end or change it; \u003c is the same JSON.
/** @param {unknown} value */
const scriptSafeJson = (value) => JSON.stringify(value).replace(/</g, '\\u003c');

const style = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-variant-numeric: tabular-nums; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { color: #555; font-size: 0.9rem; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; }
.meta { color: #555; }
`;

// The page's one script: the data back as a file, for the lab's Import or any other tool.
const downloadScript = `
document.getElementById('download-data').addEventListener('click', () => {
  const text = document.getElementById('${dataId}').textContent;
  const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(new Blob([text], { type: 'application/json' })), download: document.getElementById('download-data').dataset.file });
  document.body.append(a);
  a.click();
  a.remove();
});
`;

// sha256 of downloadScript, as the Content-Security-Policy allows it (report-html.spec.js checks it
// against the script): a constant, because the page builds reports where no hash API is synchronous.
const downloadScriptHash = 'sha256-35pF7HS+bSp4Ce54MDKEusJ8iKL4SCXCNNSHc57oyVI=';

// The summaries write no links or images themselves: any in the Markdown come from a result's
// data (a label, a user agent), so they stay the text they were, except an http(s) link, which
// cannot run anything when clicked. Returning false renders a token as marked would.
const summaryMarked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    link: (token) => (/^https?:\/\//i.test(token.href) ? false : token.raw),
    image: (token) => token.raw,
  },
});

// A chart's PNG file is drawn at 2× (sharp on a high-density screen and when zoomed); a report's
// charts at 1×: a report is a file to send, and at 2× the quick classic suite's ten charts were
// 3.4 of its 3.7 MB.
export const fileChartScale = 2;
export const reportChartScale = 1;

/**
 * @param {{ title: string, markdown: string, charts: Array<{ title: string, pngBase64: string }>,
 *   data: object, dataFile: string, generatedAt?: string }} report title: the window's; markdown:
 *   the summary, from its # heading on (text in it is escaped: no HTML passes through); dataFile:
 *   the name the data downloads under
 * @returns {string} the HTML document
 */
export function reportHtml({ title, markdown, charts, data, dataFile, generatedAt = new Date().toISOString() }) {
  // Markdown syntax needs none of these characters, so escaping them first leaves the tables and
  // headings and lets no text from a result (a user agent, an error) become markup.
  const summary = summaryMarked.parse(escapeHtml(markdown));
  const figures = charts
    .map((c) => `<figure><img alt="${escapeHtml(c.title)}" src="data:image/png;base64,${c.pngBase64}"><figcaption>${escapeHtml(c.title)}</figcaption></figure>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src '${downloadScriptHash}'; base-uri 'none'; form-action 'none'">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<p class="meta">Report made by h2lab on ${escapeHtml(generatedAt)}. Everything is in this file: nothing is loaded from the network.
<button id="download-data" type="button" data-file="${escapeHtml(dataFile)}">Download the data (JSON)</button></p>
${summary}
${charts.length ? `<h2>Charts</h2>\n${figures}` : ''}
<script type="application/json" id="${dataId}">${scriptSafeJson(data)}</script>
<script>${downloadScript}</script>
</body>
</html>
`;
}

/**
 * The data inside a report made by reportHtml, for Import; throws when the HTML is not one.
 * @param {string} html
 */
export function reportData(html) {
  const open = `<script type="application/json" id="${dataId}">`;
  const start = html.indexOf(open);
  const end = start < 0 ? -1 : html.indexOf('</script>', start);
  if (end < 0) throw new Error('an HTML file, but not an h2lab report (it carries no data)');
  try {
    return JSON.parse(html.slice(start + open.length, end));
  } catch (err) {
    throw new Error(`an h2lab report whose data is damaged: ${/** @type {Error} */ (err).message}`, { cause: err }); // JSON.parse throws SyntaxErrors
  }
}
