// HAR 1.2 the lab writes itself: the page shapes of the replay study (runner/replay/shapes.js)
// and the tests' pages, in the shape the exporters write (docs/notes/har-replay.md, section 5).

/**
 * One entry.
 * @param {string} url
 * @param {object} [o]
 * @param {string} [o.method]
 * @param {number} [o.status]
 * @param {string} [o.mimeType]
 * @param {string|Buffer|null} [o.body]  null: no body in the HAR
 * @param {[string, string][]} [o.headers]  response headers
 * @param {[string, string][]} [o.requestHeaders]
 * @param {string} [o.httpVersion]
 * @param {number} [o.startMs]
 * @param {number} [o.wait]
 * @param {any} [o.initiator]
 * @param {number} [o.size]  content.size, if not the body's
 * @param {number} [o.connect]  timings.connect (a new connection), ssl included
 * @param {number} [o.ssl]
 * @param {string} [o.serverIp]  serverIPAddress: the address that answered it
 */
export function harEntry(url, { method = 'GET', status = 200, mimeType = 'text/html', body = '', headers = [], requestHeaders = [], httpVersion = 'HTTP/2.0', startMs = 0, wait = 10, initiator, size, connect = -1, ssl = -1, serverIp } = {}) {
  const bytes = body == null ? null : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const binary = bytes && Buffer.isBuffer(body);
  return {
    startedDateTime: new Date(Date.UTC(2026, 10, 28) + startMs).toISOString(),
    time: wait + 5,
    request: { method, url, httpVersion, cookies: [], headers: requestHeaders.map(([name, value]) => ({ name, value })), queryString: [], headersSize: -1, bodySize: 0 },
    response: {
      status,
      statusText: '',
      httpVersion,
      cookies: [],
      headers: [['content-type', mimeType], ...headers].map(([name, value]) => ({ name, value })),
      content: { size: size ?? bytes?.length ?? 0, mimeType, ...(bytes ? { text: binary ? bytes.toString('base64') : bytes.toString('utf8'), ...(binary ? { encoding: 'base64' } : {}) } : {}) },
      redirectURL: '',
      headersSize: -1,
      bodySize: bytes?.length ?? -1,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect, ssl, send: 0, wait, receive: 5 },
    ...(serverIp ? { serverIPAddress: serverIp } : {}),
    ...(initiator ? { _initiator: initiator } : {}),
  };
}

/** A HAR 1.2 log of `entries`. @param {any[]} entries @param {string} [pageUrl] @param {string} [creator] */
export const har = (entries, pageUrl, creator = 'h2lab') => ({
  log: { version: '1.2', creator: { name: creator, version: '1' }, pages: pageUrl ? [{ id: 'page_1', title: pageUrl, startedDateTime: entries[0]?.startedDateTime, pageTimings: {} }] : [], entries },
});
