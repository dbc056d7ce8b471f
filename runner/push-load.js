// One page load by a push-capable client (Node's http2), the way a browser would go about it:
// the assets are requested only once the HTML is in, except that pushed streams are used as
// they come and, with hints, the assets are requested as soon as the 103 names them.
import http2 from 'node:http2';
import { once } from 'node:events';
import { assetUrlsIn } from '../common/setup/page.js';
import { plainNumber } from '../common/setup/units.js';

// Browser-sized flow-control windows (Chrome: 6 MiB per stream, 15 MiB per connection); with
// HTTP/2's default 64 KiB, spdy resets parallel large responses (README, Limitations).
export const streamWindowBytes = 6 * 1024 * 1024;
export const connectionWindowBytes = 15 * 1024 * 1024;

/** @param {unknown} link  a Link header (one, or a list) */
const linkedAssets = (link) => [...String(link).matchAll(/<([^>]+)>;\s*rel=preload/g)].map((m) => m[1]);

/**
 * @param {import('node:http2').ClientHttp2Stream} stream
 * @returns {Promise<{ bytes: number, headers: import('node:http2').IncomingHttpHeaders|undefined }>}
 */
function read(stream) {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    /** @type {import('node:http2').IncomingHttpHeaders|undefined} */
    let headers;
    stream.on('response', (h) => (headers = h));
    stream.on('data', (/** @type {Buffer} */ c) => (bytes += c.length));
    stream.on('end', () => resolve({ bytes, headers }));
    stream.on('error', reject);
  });
}

/**
 * How the client gets the page's assets: requested after the HTML, pushed by the server, or
 * requested as soon as a 103 names them.
 * @typedef {'requested'|'push'|'hints'} LoadMode
 */

/**
 * @param {{ origin: string, ca: string, mode: LoadMode, assets: number, sizeMiB: number,
 *   delayMs: number, acceptPush?: boolean }} o acceptPush: SETTINGS_ENABLE_PUSH (default: in push mode)
 * @returns {Promise<{ htmlMs: number, allAssetsMs: number, firstAssetMs: number, pushed: number, resets: number, assets: number }>}
 *   firstAssetMs: when the first asset request was sent or the first push arrived
 */
export async function loadPage({ origin, ca, mode, assets, sizeMiB, delayMs, acceptPush = mode === 'push' }) {
  const session = http2.connect(origin, { ca, settings: { enablePush: acceptPush, initialWindowSize: streamWindowBytes } });
  session.on('error', () => {});
  await once(session, 'connect');
  session.setLocalWindowSize(connectionWindowBytes);
  let resets = 0;
  /** @type {Map<string, Promise<number>>} */
  const fetches = new Map(); // asset path → Promise of its completion time
  const start = performance.now();
  let firstAssetMs = Infinity;
  /** @param {string} path */
  const fetchAsset = (path) => {
    if (!fetches.has(path)) {
      firstAssetMs = Math.min(firstAssetMs, performance.now() - start);
      const stream = session.request({ ':path': path });
      fetches.set(path, read(stream).then(() => performance.now() - start, () => ((resets += 1), NaN)));
    }
    return /** @type {Promise<number>} */ (fetches.get(path)); // set just above
  };
  session.on('stream', (pushed, headers) => {
    firstAssetMs = Math.min(firstAssetMs, performance.now() - start);
    fetches.set(/** @type {string} */ (headers[':path']), read(pushed).then(() => performance.now() - start, () => ((resets += 1), NaN)));
  });
  try {
    const query = `assets=${assets}&size=${plainNumber(sizeMiB)}&delay=${plainNumber(delayMs)}&push=${mode === 'push' ? 1 : 0}&hints=${mode === 'hints' ? 1 : 0}`;
    const page = session.request({ ':path': `/page?${query}` });
    if (mode === 'hints') page.on('headers', (h) => h[':status'] === 103 && linkedAssets(h.link).forEach(fetchAsset));
    let html = '';
    page.setEncoding('utf8');
    page.on('data', (/** @type {string} */ c) => (html += c));
    await once(page, 'end');
    const htmlMs = performance.now() - start;
    const paths = assetUrlsIn(html);
    const pushed = paths.filter((p) => fetches.has(p)).length;
    const done = await Promise.all(paths.map(fetchAsset));
    return { htmlMs, allAssetsMs: Math.max(htmlMs, ...done), firstAssetMs, pushed: mode === 'push' ? pushed : 0, resets, assets: paths.length };
  } finally {
    session.destroy();
  }
}
