// Where a Chrome's DevTools port says its browser can be driven (GET /json/version), read as an
// answer from a stranger: whatever listens on that port may be any local program. The lab follows
// no redirect, reads at most a few KiB, and accepts only a debugger URL on that same port of
// 127.0.0.1, so an answer can neither send the lab elsewhere nor make it read without end.
import { H2labError } from '../../common/setup/errors.js';
import { devtoolsLimits } from '../config.js';

const browserPath = /^\/devtools\/browser\/[\w-]{1,100}$/;

/** An answer came, and the lab will not use it (any other error: no answer came). */
export class RefusedAnswer extends H2labError {
  /** @param {string} message */
  constructor(message) {
    super('refused-answer', message);
  }
}

/**
 * The body of `res` as text, refusing (and abandoning) it past maxBytes.
 * @param {Response} res  a 200's, which has a body @param {number} maxBytes
 */
async function cappedText(res, maxBytes) {
  const tooLarge = () => new RefusedAnswer(`it answered more than ${maxBytes} bytes`);
  if (Number(res.headers.get('content-length')) > maxBytes) throw tooLarge();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  // Node's ReadableStream is async-iterable; the DOM lib's type does not say so.
  for await (const chunk of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (res.body))) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(); // leaving the loop cancels the rest of the body
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `value` when it is ws://127.0.0.1:<port>/devtools/browser/<id>, and nothing more; else throws.
 * @param {unknown} value @param {number} port
 * @returns {string}
 */
function checkedDebuggerUrl(value, port) {
  const url = typeof value === 'string' ? URL.parse(value) : null;
  const exact = url && url.href === value && url.protocol === 'ws:' && url.host === `127.0.0.1:${port}` && browserPath.test(url.pathname) && !url.search;
  if (!exact) throw new RefusedAnswer(`its webSocketDebuggerUrl ${JSON.stringify(value)?.slice(0, 200)} is not ws://127.0.0.1:${port}/devtools/browser/<id>`);
  return /** @type {string} `exact` holds only for a string */ (value);
}

/**
 * Asks the DevTools port for its browser; throws a RefusedAnswer saying what was wrong with the
 * answer, or fetch's error when none came.
 * @param {number} port
 * @returns {Promise<{ product: string, wsUrl: string }>}
 */
export async function browserEndpoint(port) {
  const res = await fetch(`http://127.0.0.1:${port}/json/version`, {
    redirect: 'manual',
    signal: AbortSignal.timeout(devtoolsLimits.answerTimeoutMs),
  });
  if (res.status >= 300 && res.status < 400) throw new RefusedAnswer(`it answered with a redirect (HTTP ${res.status}), which the lab does not follow`);
  if (res.status !== 200) throw new RefusedAnswer(`it answered HTTP ${res.status}`);
  const text = await cappedText(res, devtoolsLimits.versionAnswerMaxBytes);
  let version;
  try {
    version = JSON.parse(text);
  } catch {
    throw new RefusedAnswer('its answer is not JSON');
  }
  if (typeof version !== 'object' || version === null) throw new RefusedAnswer('its answer is not a JSON object');
  return {
    product: typeof version.Browser === 'string' ? version.Browser.slice(0, 100) : 'unknown browser',
    wsUrl: checkedDebuggerUrl(version.webSocketDebuggerUrl, port),
  };
}
