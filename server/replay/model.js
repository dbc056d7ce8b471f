// A page model: bodies made up for a HAR that has none (most public HARs hold only timings,
// sizes, types and initiators), so that it replays as a page with its structure. Each exchange
// without a body gets one of its recorded size and type, and the dependency tree is reproduced:
// a document names its parser-found children as tags, a stylesheet brings its images, fonts and
// imports, a script issues its requests when it runs. Who a request's parent is comes from the
// recorded initiator; where there is none (or Chromium's "other"), from time: the last script
// that had ended before it started, else the document. What the model cannot reproduce (a
// script's own CPU time, timers, what a request's response decides) is in docs/replay.md.
import zlib from 'node:zlib';
import { mulberry32 } from '../../common/setup/seeds.js';

/** @typedef {import('./archive.js').Archive} Archive */
/** @typedef {import('./archive.js').Exchange} Exchange */

/** @typedef {'html'|'css'|'js'|'image'|'font'|'other'} Kind */

/**
 * What a response is, from its recorded type (and its path where the type says nothing).
 * @param {Exchange} e
 * @returns {Kind}
 */
export function kindOf(e) {
  const t = e.mimeType.toLowerCase();
  const ext = /\.([a-z0-9]+)$/.exec(new URL(e.url).pathname.toLowerCase())?.[1] ?? '';
  if (t.includes('html')) return 'html';
  if (t.includes('css') || (!t && ext === 'css')) return 'css';
  if (/javascript|ecmascript/.test(t) || (!t && /^m?js$/.test(ext))) return 'js';
  if (t.startsWith('image/') || (!t && /^(png|jpe?g|gif|webp|avif|svg|ico)$/.test(ext))) return 'image';
  if (/font|woff|ttf|otf/.test(t) || /^(woff2?|ttf|otf)$/.test(ext)) return 'font';
  return 'other';
}

/** Kinds whose body can ask for more. */
const parents = new Set(['html', 'css', 'js']);

/**
 * The tree: each exchange's parent (null for the page's document and any the model cannot place).
 * @param {Archive} archive
 * @param {Exchange} page  the page's document
 * @returns {Map<Exchange, Exchange|null>}
 */
export function parentsOf(archive, page) {
  const byUrl = new Map(archive.exchanges.map((e) => [e.url, e]));
  const scripts = archive.exchanges.filter((e) => kindOf(e) === 'js').map((e) => ({ e, endMs: e.startMs + Math.max(0, e.waitMs) }));
  // A redirect's target is reached through the redirect, not asked for again by its parent.
  const targets = new Set(archive.exchanges.filter((e) => e.status >= 300 && e.status < 400).map((e) => locationOf(e)).filter(Boolean));
  /** @type {Map<Exchange, Exchange|null>} */
  const parent = new Map([[page, null]]);
  for (const e of archive.exchanges) {
    if (e === page) continue;
    if (targets.has(e.url)) {
      parent.set(e, null);
      continue;
    }
    const named = e.initiator ? byUrl.get(e.initiator.split('#')[0]) : undefined;
    // A parent must host requests and have started first (a circle would never load).
    if (named && named !== e && parents.has(kindOf(named)) && named.startMs <= e.startMs) {
      parent.set(e, named);
      continue;
    }
    const before = scripts.filter((s) => s.e !== e && s.endMs <= e.startMs && s.e.startMs > page.startMs);
    parent.set(e, before.length ? before.reduce((a, b) => (b.endMs > a.endMs ? b : a)).e : page);
  }
  return parent;
}

/**
 * Where a redirect leads, absolute; null without a location.
 * @param {Exchange} e
 */
function locationOf(e) {
  const location = e.headers.find(([n]) => n === 'location')?.[1];
  return location && URL.canParse(location, e.url) ? new URL(location, e.url).href : null;
}

/** @param {string} url */
const quoted = (url) => JSON.stringify(url);
/** @param {string} url  for an HTML attribute */
const attr = (url) => url.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/**
 * A child as its parent's body asks for it (the fonts and images a stylesheet declares need an
 * element of the document that uses them: cssHooks).
 * @param {Kind} parentKind @param {Exchange} child @param {number} n  the child's number, for names
 */
function reference(parentKind, child, n) {
  const kind = kindOf(child);
  const url = child.url;
  const method = ['GET', 'HEAD', 'POST'].includes(child.method) ? child.method : 'GET';
  if (parentKind === 'html') {
    if (kind === 'css') return `<link rel="stylesheet" href="${attr(url)}">`;
    if (kind === 'js') return `<script src="${attr(url)}"></script>`;
    if (kind === 'image') return `<img src="${attr(url)}" alt="">`;
    if (kind === 'font') return `<link rel="preload" as="font" crossorigin href="${attr(url)}">`;
    if (kind === 'html') return `<iframe src="${attr(url)}"></iframe>`;
    return `<script>fetch(${quoted(url)}, { method: ${quoted(method)}, mode: 'no-cors' }).catch(() => {});</script>`;
  }
  if (parentKind === 'css') {
    if (kind === 'css') return `@import url(${quoted(url)});`;
    if (kind === 'font') return `@font-face { font-family: "h2lab-font-${n}"; src: url(${quoted(url)}); }`;
    return `.h2lab-bg-${n} { background-image: url(${quoted(url)}); }`;
  }
  if (kind === 'image') return `new Image().src = ${quoted(url)};`;
  if (kind === 'js' || kind === 'css') {
    const [tag, prop, extra] = kind === 'js' ? ['script', 'src', ''] : ['link', 'href', ", rel: 'stylesheet'"];
    return `document.head.append(Object.assign(document.createElement('${tag}'), { ${prop}: ${quoted(url)}${extra} }));`;
  }
  if (kind === 'font') return `new FontFace('h2lab-font-${n}', 'url(' + ${quoted(url)} + ')').load().catch(() => {});`;
  if (kind === 'html') return `document.body.append(Object.assign(document.createElement('iframe'), { src: ${quoted(url)} }));`;
  return `fetch(${quoted(url)}, { method: ${quoted(method)}, mode: 'no-cors' }).catch(() => {});`;
}

/**
 * `length` bytes of filler: letters and digits from a seeded generator, which compress about as
 * much as minified text does (gzip to roughly three quarters), never a run that compresses to nothing.
 * @param {number} length @param {number} seed
 */
function filler(length, seed) {
  const next = mulberry32(seed);
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const out = Buffer.alloc(Math.max(0, length));
  for (let i = 0; i < out.length; i++) out[i] = letters.charCodeAt(Math.floor(next() * letters.length));
  return out;
}

/**
 * A PNG of one pixel, of `size` bytes: the rest in an ancillary chunk decoders skip ("h2lA": its
 * lower-case first letter says ancillary, so the image still decodes and can paint).
 * @param {number} size @param {number} seed
 */
function png(size, seed) {
  /** @param {string} type @param {Buffer} data */
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]); // 1×1, 8-bit RGBA
  const parts = [Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.from([0, 0, 0, 0, 0])))];
  const end = chunk('IEND', Buffer.alloc(0));
  const used = parts.reduce((n, p) => n + p.length, 0) + end.length;
  const room = size - used - 12; // a padding chunk's own length, type and CRC
  return Buffer.concat([...parts, ...(room > 0 ? [chunk('h2lA', filler(room, seed))] : []), end]);
}

/**
 * The body of a text kind: its code, then a comment of filler up to the recorded size.
 * @param {Kind} kind @param {string} code @param {number} size @param {number} seed
 */
function textBody(kind, code, size, seed) {
  const [open, close] = kind === 'html' ? ['<!-- ', ' -->'] : kind === 'other' ? ['', ''] : ['/* ', ' */'];
  const head = Buffer.from(code);
  const room = size - head.length - open.length - close.length - 1;
  return room > 0 ? Buffer.concat([head, Buffer.from(`\n${open}`), filler(room, seed), Buffer.from(close)]) : head;
}

/**
 * The model of a recorded page: bodyOf(exchange) makes (once) the body of an exchange the HAR
 * holds none for; `made` counts what it made against what was recorded.
 * @param {Archive} archive
 * @param {string} pageUrl
 */
export function createPageModel(archive, pageUrl) {
  const page = archive.exchanges.find((e) => e.url === pageUrl) ?? archive.exchanges[0];
  const parent = page ? parentsOf(archive, page) : new Map();
  /** @type {Map<Exchange, Exchange[]>} */
  const children = new Map();
  for (const e of archive.exchanges) {
    const p = parent.get(e);
    if (p) children.set(p, [...(children.get(p) ?? []), e]);
  }
  for (const list of children.values()) list.sort((a, b) => a.startMs - b.startMs);
  const numberOf = new Map(archive.exchanges.map((e, i) => [e, i]));
  /** @type {Map<Exchange, Buffer>} */
  const bodies = new Map();
  const made = { bodies: 0, bytes: 0, recordedBytes: 0 };

  /** @param {Exchange} e @returns {string} */
  const codeOf = (e) => {
    const kind = kindOf(e);
    const refs = (children.get(e) ?? []).map((c) => reference(kind, c, /** @type {number} */ (numberOf.get(c))));
    if (kind === 'css') return refs.join('\n');
    if (kind === 'js') return refs.join('\n');
    // The document also carries the elements its stylesheets' images and fonts need to load, and
    // an icon of its own: the browser's /favicon.ico would be a request the page never made.
    const hooks = e === page ? cssHooks(children, numberOf) : '';
    return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${attr(new URL(e.url).hostname)}</title>\n${refs.join('\n')}\n</head><body>${hooks}<p>h2lab page model of ${attr(e.url)}</p></body></html>`;
  };

  return {
    made,
    /**
     * Its type where the recording names none, and a font's CORS permission (fonts are fetched in
     * CORS mode; a recording with headers holds its own).
     * @param {Exchange} e
     * @returns {[string, string][]}
     */
    headersOf(e) {
      const has = (/** @type {string} */ name) => e.headers.some(([n]) => n === name);
      return [
        ...(!has('content-type') && e.mimeType ? [/** @type {[string, string]} */ (['content-type', e.mimeType])] : []),
        ...(kindOf(e) === 'font' && !has('access-control-allow-origin') ? [/** @type {[string, string]} */ (['access-control-allow-origin', '*'])] : []),
      ];
    },
    /**
     * @param {Exchange} e
     * @returns {Buffer|null}  null for a body the recording has, or a response that has none
     */
    bodyOf(e) {
      if (e.body) return null;
      let body = bodies.get(e);
      if (!body) {
        const kind = kindOf(e);
        const seed = /** @type {number} */ (numberOf.get(e)) + 1;
        body = kind === 'image' ? png(e.size, seed) : parents.has(kind) ? textBody(kind, codeOf(e), e.size, seed) : filler(e.size, seed);
        bodies.set(e, body);
        made.bodies += 1;
        made.bytes += body.length;
        made.recordedBytes += e.size;
      }
      return body;
    },
  };
}

/**
 * Elements that use the images and fonts every stylesheet declares (.h2lab-bg-N, h2lab-font-N):
 * a background or a font loads only where an element uses it.
 * @param {Map<Exchange, Exchange[]>} children @param {Map<Exchange, number>} numberOf
 */
function cssHooks(children, numberOf) {
  const out = [];
  for (const [p, list] of children) {
    if (kindOf(p) !== 'css') continue;
    for (const c of list) {
      const n = numberOf.get(c);
      const kind = kindOf(c);
      if (kind === 'font') out.push(`<i style="font-family: 'h2lab-font-${n}'">a</i>`);
      else if (kind !== 'css') out.push(`<div class="h2lab-bg-${n}" style="width: 1px; height: 1px"></div>`);
    }
  }
  return out.join('');
}
