// The page shapes of the replay study: HARs without bodies (as most public HARs are) whose page
// models (server/replay/model.js) differ in one thing at a time, at the same bytes.
//   many-origins  a news-like page: 101 requests over 24 origins, ten third parties each with a
//                 loader, the script it loads, and two beacons and a pixel on a collector origin
//   one-origin    the same page, requests and bytes, every origin folded into the page's own
//                 (the third-party hypothesis: Trevisan et al. 2021)
//   few-large     10 requests over 2 origins, six images of 58 KiB
//   many-small    120 requests over the same 2 origins, 116 images of 3 KiB: the same bytes
// `npm run page-shapes` writes them; the study replays them (docs/results/README.md).
import { har, harEntry } from '../../server/replay/make-har.js';

const KiB = 1024;

/**
 * A request of a shape: its URL, type, size and who asks for it; `at` orders the requests.
 * @typedef {{ url: string, mimeType: string, size: number, initiator?: string, at: number }} Part
 */

/**
 * A page of parts as a HAR without bodies: each entry's initiator and start as recorded.
 * @param {string} pageUrl @param {Part[]} parts
 */
const pageHar = (pageUrl, parts) =>
  har(parts.map((p) => harEntry(p.url, { mimeType: p.mimeType, body: null, size: p.size, startMs: p.at, wait: 20, ...(p.initiator ? { initiator: { type: p.initiator.endsWith('.js') ? 'script' : 'parser', url: p.initiator } } : {}) })), pageUrl);

const types = { html: 'text/html', css: 'text/css', js: 'application/javascript', png: 'image/png', font: 'font/woff2', json: 'application/json' };

/** The news-like page of many origins. @returns {{ url: string, parts: Part[] }} */
function manyOrigins() {
  const page = 'https://www.news.example/';
  let at = 0;
  /** @type {Part[]} */
  const parts = [{ url: page, mimeType: types.html, size: 30 * KiB, at: at++ }];
  /** @param {string} url @param {keyof typeof types} type @param {number} size @param {string} [initiator] */
  const add = (url, type, size, initiator = page) => parts.push({ url, mimeType: types[type], size, initiator, at: at++ });
  for (const c of [1, 2]) {
    const css = `https://static.news.example/site-${c}.css`;
    add(css, 'css', 15 * KiB);
    for (const i of [1, 2, 3]) add(`https://static.news.example/bg-${c}-${i}.png`, 'png', 4 * KiB, css);
    add(`https://static.news.example/font-${c}.woff2`, 'font', 20 * KiB, css);
  }
  for (let i = 1; i <= 34; i++) add(`https://img.news.example/photo-${i}.png`, 'png', 3 * KiB);
  for (const s of [1, 2, 3]) {
    const js = `https://static.news.example/app-${s}.js`;
    add(js, 'js', 25 * KiB);
    add(`https://api.news.example/feed-${s}.json`, 'json', 3 * KiB, js);
  }
  for (let t = 1; t <= 10; t++) {
    const loader = `https://t${t}.example/loader.js`;
    add(loader, 'js', 6 * KiB);
    const lib = `https://t${t}.example/lib.js`;
    add(lib, 'js', 8 * KiB, loader);
    add(`https://collect.t${t}.example/beacon?e=view`, 'json', KiB, lib);
    add(`https://collect.t${t}.example/beacon?e=ready`, 'json', KiB, lib);
    add(`https://collect.t${t}.example/pixel.png`, 'png', 128, lib);
  }
  return { url: page, parts };
}

/**
 * The same page with every origin folded into the page's: each URL under /<its host>/ there.
 * @param {{ url: string, parts: Part[] }} shape
 */
function folded({ url, parts }) {
  const home = new URL(url).origin;
  /** @param {string} u */
  const fold = (u) => {
    const x = new URL(u);
    return x.origin === home ? u : `${home}/${x.hostname}${x.pathname}${x.search}`;
  };
  return { url, parts: parts.map((p) => ({ ...p, url: fold(p.url), ...(p.initiator ? { initiator: fold(p.initiator) } : {}) })) };
}

/**
 * A page of `images` images of `imageSize` on an image origin beside its own.
 * @param {number} images @param {number} imageSize
 */
function ofImages(images, imageSize) {
  const page = 'https://www.shop.example/';
  let at = 0;
  /** @type {Part[]} */
  const parts = [{ url: page, mimeType: types.html, size: 30 * KiB, at: at++ }];
  parts.push({ url: 'https://www.shop.example/site.css', mimeType: types.css, size: 30 * KiB, initiator: page, at: at++ });
  for (const s of [1, 2]) parts.push({ url: `https://www.shop.example/app-${s}.js`, mimeType: types.js, size: 30 * KiB, initiator: page, at: at++ });
  for (let i = 1; i <= images; i++) parts.push({ url: `https://img.shop.example/item-${i}.png`, mimeType: types.png, size: imageSize, initiator: page, at: at++ });
  return { url: page, parts };
}

/**
 * Every shape: its name, what it is and its HAR.
 * @returns {Array<{ name: string, description: string, har: ReturnType<typeof har> }>}
 */
export function pageShapes() {
  const news = manyOrigins();
  return [
    { name: 'many-origins', description: 'a news-like page: 101 requests over 24 origins, ten third parties', ...news },
    { name: 'one-origin', description: 'the same page, requests and bytes, every origin folded into one', ...folded(news) },
    { name: 'few-large', description: '10 requests over 2 origins: six images of 58 KiB', ...ofImages(6, 58 * KiB) },
    { name: 'many-small', description: '120 requests over the same 2 origins: 116 images of 3 KiB, the same bytes', ...ofImages(116, 3 * KiB) },
  ].map(({ name, description, url, parts }) => ({ name, description, har: pageHar(url, parts) }));
}
