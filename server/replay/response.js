// What a replayed response carries: the recorded status and headers minus those that belong to
// the recorded connection or would reach past the replay, and the body encoded for what this
// request accepts. HAR bodies are decoded (HAR 1.2: content.text is after Content-Encoding), so
// every encoding is made here (docs/notes/har-replay.md, section 5).
import zlib from 'node:zlib';

/** @typedef {import('./archive.js').Exchange} Exchange */

// Left out of every replayed response:
// - per connection, and forbidden in HTTP/2 and HTTP/3 (RFC 9113 8.2.2, RFC 9114 4.2);
// - made again here (length, encoding, date);
// - what would send the browser past the replay: alt-svc (the real site's HTTP/3 endpoint), the
//   reporting endpoints (nel, report-to, reporting-endpoints), expect-ct and key pins;
// - what a recording tool added (x-firefox-spdy).
const dropped = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'http2-settings',
  'content-length', 'content-encoding', 'date',
  'alt-svc', 'nel', 'report-to', 'reporting-endpoints', 'expect-ct', 'public-key-pins', 'public-key-pins-report-only',
  'x-firefox-spdy',
]);

// Encodings the replay can make, best first where the request leaves the choice. Node 20 has no
// zstd (zlib.zstdCompressSync arrived in Node 22.15): a response recorded as zstd is sent as br,
// and the result says how many were.
/** @type {Record<string, (body: Buffer) => Buffer>} */
const encoders = {
  br: (body) => zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
  gzip: (body) => zlib.gzipSync(body, { level: 6 }),
  deflate: (body) => zlib.deflateSync(body, { level: 6 }),
};

/**
 * The encodings a request accepts (q > 0), from its Accept-Encoding.
 * @param {string|undefined} header
 */
export function accepted(header) {
  const out = new Set();
  for (const part of String(header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
    if (name && (q === undefined || Number(q) > 0)) out.add(name);
  }
  return out;
}

/**
 * Which encoding to send: the recorded one where the request accepts it and the replay can make
 * it, else the best the request accepts, else none (identity). Only where the recording encoded.
 * @param {string} recorded  the recorded content-encoding, '' for none
 * @param {Set<string>} accepts
 * @returns {{ encoding: string, standIn: boolean }}  standIn: another than recorded
 */
export function chooseEncoding(recorded, accepts) {
  if (!recorded || recorded === 'identity') return { encoding: '', standIn: false };
  if (encoders[recorded] && accepts.has(recorded)) return { encoding: recorded, standIn: false };
  const other = Object.keys(encoders).find((e) => accepts.has(e)) ?? '';
  return { encoding: other, standIn: true };
}

/** @type {WeakMap<Buffer, Map<string, Buffer>>} a body encoded once per encoding, not per request */
const encodedCache = new WeakMap();

/**
 * @param {Buffer} body @param {string} encoding  '' for none
 */
function encoded(body, encoding) {
  if (!encoding) return body;
  let forBody = encodedCache.get(body);
  if (!forBody) encodedCache.set(body, (forBody = new Map()));
  let out = forBody.get(encoding);
  if (!out) forBody.set(encoding, (out = encoders[encoding](body)));
  return out;
}

/**
 * The status, headers and body to send for `exchange` to a request accepting `acceptEncoding`.
 * @param {Exchange} exchange
 * @param {Buffer} body  the decoded body (recorded, or a model's)
 * @param {string|undefined} acceptEncoding
 * @param {Date} [now]
 * @returns {{ status: number, headers: Record<string, string|string[]>, body: Buffer, encoding: string, standIn: boolean }}
 */
export function replayResponse(exchange, body, acceptEncoding, now = new Date()) {
  /** @type {Record<string, string|string[]>} */
  const headers = {};
  for (const [name, value] of exchange.headers) {
    if (name.startsWith(':') || dropped.has(name)) continue;
    const had = headers[name];
    headers[name] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  const recorded = exchange.headers.find(([name]) => name === 'content-encoding')?.[1].trim().toLowerCase() ?? '';
  const bodyless = exchange.method === 'HEAD' || exchange.status === 204 || exchange.status === 304 || exchange.status < 200;
  const { encoding, standIn } = bodyless || !body.length ? { encoding: '', standIn: false } : chooseEncoding(recorded, accepted(acceptEncoding));
  const out = bodyless ? Buffer.alloc(0) : encoded(body, encoding);
  if (encoding) headers['content-encoding'] = encoding;
  if (!bodyless) headers['content-length'] = String(out.length);
  headers.date = now.toUTCString();
  return { status: exchange.status, headers, body: out, encoding, standIn };
}
