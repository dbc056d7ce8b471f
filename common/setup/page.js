// The HTML page of the push / Early Hints / preload experiments. It discovers its scripts late
// (an inline script inserts them once the document has parsed, as apps that load code on demand
// do), so preload, 103 Early Hints and push each have something to win over a plain page.
import { escapeHtml } from './text.js';
import { plainNumber } from './units.js';

/** @param {{ index: number, sizeMiB: number, token: string }} asset */
export const assetUrl = ({ index, sizeMiB, token }) => `/asset/${index}?size=${plainNumber(sizeMiB)}&v=${token}`;

/** @param {string} url */
export const preloadLink = (url) => `<${url}>; rel=preload; as=script`;

/**
 * The asset URLs a page from pageHtml() inserts, read back out of its HTML ([] if none).
 * @param {string} html
 * @returns {string[]}
 */
export const assetUrlsIn = (html) => JSON.parse(/for \(const src of (\[.*?\])\)/.exec(html)?.[1] ?? '[]');

/** @param {{ urls: string[], preload: boolean, serverId: string }} page */
export function pageHtml({ urls, preload, serverId }) {
  const links = preload ? urls.map((u) => `<link rel="preload" as="script" href="${escapeHtml(u)}">`).join('\n') : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>h2lab page · ${urls.length} assets · ${serverId}</title>
${links}
</head>
<body>
<p>h2lab test page served by ${serverId}: ${urls.length} script assets, inserted after parsing.</p>
<script>
document.addEventListener('DOMContentLoaded', () => {
  for (const src of ${JSON.stringify(urls)}) {
    const script = document.createElement('script');
    script.src = src;
    script.async = false;
    document.body.append(script);
  }
});
// The lab that opened this window learns how the load went (timing entries carry no secrets;
// through JSON because their serverTiming objects cannot be cloned by postMessage).
addEventListener('load', () => setTimeout(() => {
  const plain = (entry) => JSON.parse(JSON.stringify(entry));
  const nav = plain(performance.getEntriesByType('navigation')[0]);
  const assets = performance.getEntriesByType('resource').filter((e) => e.name.includes('/asset/')).map(plain);
  window.opener?.postMessage({ h2labPageLoad: { url: location.href, nav, assets } }, '*');
}));
</script>
</body>
</html>
`;
}
