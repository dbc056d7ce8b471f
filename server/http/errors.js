// The single table of error responses every server and route shares, so a client sees the same
// status, JSON shape and headers whichever transport answered.

export class HttpError extends Error {
  constructor(status, message, { param, headers } = {}) {
    super(message);
    this.status = status;
    this.param = param;
    this.headers = headers;
  }

  get body() {
    return this.param === undefined ? { error: this.message } : { error: this.message, param: this.param };
  }
}

export const allowedMethods = ['GET', 'HEAD'];

export const errors = {
  badParam: (param, message) => new HttpError(400, message, { param }),
  notFound: (path) => new HttpError(404, `no route for ${quote(path)}; try /option?size=<MiB>&delay=<ms>`),
  methodNotAllowed: (method) =>
    new HttpError(405, `method ${quote(method)} not allowed; use ${allowedMethods.join(' or ')}`, {
      headers: { allow: allowedMethods.join(', ') },
    }),
  notHttp2: () => new HttpError(505, 'this server speaks HTTP/2 only; negotiate h2 through TLS ALPN'),
  headersTooLarge: () => new HttpError(431, 'request headers too large'),
  malformed: (code) => {
    if (code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'request headers took too long');
    return new HttpError(400, `malformed HTTP request (${code ?? 'unknown'})`);
  },
  missingHost: () => new HttpError(400, 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)'),
  badPath: (path) => new HttpError(400, `:path must be an absolute path such as /option (RFC 9113 §8.3.1), got ${quote(path ?? '')}`),
  internal: () => new HttpError(500, 'internal error'),
};

/**
 * An HTTP/2 header list's size as SETTINGS_MAX_HEADER_LIST_SIZE counts it (RFC 9113 §6.5.2):
 * name and value bytes plus 32 per field, from raw headers [name, value, name, value, …].
 * spdy never enforces the size it advertises, node:http2 only once the client has acknowledged
 * the server's SETTINGS; this check holds both to it from the first request.
 */
export function headerListBytes(rawHeaders) {
  let bytes = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) bytes += Buffer.byteLength(rawHeaders[i]) + Buffer.byteLength(String(rawHeaders[i + 1])) + 32;
  return bytes;
}

/** Echoes client input inside a message, bounded so a huge query cannot make a huge error. */
export function quote(text, maxChars = 40) {
  const s = String(text);
  return JSON.stringify(s.length > maxChars ? `${s.slice(0, maxChars)}…` : s);
}
