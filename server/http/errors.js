// The single table of error responses every server and route shares, the test servers' (errors)
// and the control API's (apiErrors), so a client sees the same status, JSON shape and headers
// whichever answered. Every body is { error, code, field }: `code` is stable (tests and the page
// match it, never the text; docs/http-api.md lists them), `field` names the parameter or body
// field at fault, or is null.
import { H2labError } from '../../common/setup/errors.js';
import { networkById, networkIds } from '../../common/setup/networks.js';

/** An answer with its status: the one kind of error every route and server sends. */
export class HttpError extends H2labError {
  /**
   * @param {number} status
   * @param {string} code  one of the codes below, stable across releases
   * @param {string} message  one sentence for a person
   * @param {{ field?: string|null, headers?: Record<string, string> }} [o]
   */
  constructor(status, code, message, { field, headers } = {}) {
    super(code, message, { field });
    this.status = status;
    this.headers = headers;
  }

  get body() {
    return { error: this.message, code: this.code, field: this.field };
  }
}

export const allowedMethods = ['GET', 'HEAD'];

export const errors = {
  /** @param {string} field @param {string} message */
  badParam: (field, message) => new HttpError(400, 'invalid-field', message, { field }),
  /** @param {string} path */
  notFound: (path) => new HttpError(404, 'not-found', `no route for ${quote(path)}; try /option?size=<MiB>&delay=<ms>`),
  /** @param {string} method */
  methodNotAllowed: (method) =>
    new HttpError(405, 'method-not-allowed', `method ${quote(method)} not allowed; use ${allowedMethods.join(' or ')}`, {
      headers: { allow: allowedMethods.join(', ') },
    }),
  notHttp2: () => new HttpError(505, 'http2-only', 'this server speaks HTTP/2 only; negotiate h2 through TLS ALPN'),
  headersTooLarge: () => new HttpError(431, 'headers-too-large', 'request headers too large'),
  /** @param {string|undefined} code  node's parser error code */
  malformed: (code) => {
    if (code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError(408, 'request-timeout', 'request headers took too long');
    return new HttpError(400, 'malformed-request', `malformed HTTP request (${code ?? 'unknown'})`);
  },
  missingHost: () => new HttpError(400, 'missing-host', 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)'),
  /** @param {unknown} path  as the client sent it */
  badPath: (path) => new HttpError(400, 'invalid-field', `:path must be an absolute path such as /option (RFC 9113 §8.3.1), got ${quote(path ?? '')}`, { field: ':path' }),
  internal: () => new HttpError(500, 'internal', 'internal error'),
  /** @param {string} method @param {string} url  what a replayed page asked for that its archive does not hold */
  replayMiss: (method, url) => new HttpError(404, 'replay-miss', `not in the recording: ${method} ${quote(url)}; a replay serves only what was recorded`),
  /**
   * Every input error (common/setup/errors.js), with its own code and field.
   * @param {import('../../common/setup/errors.js').InputError} err
   */
  input: (err) => new HttpError(400, err.code, err.message, { field: err.field }),
};

/** The control API's own (server/ui.js); bad fields are errors.badParam's 'invalid-field'. */
export const apiErrors = {
  /** @param {string|undefined} host */
  notLabHost: (host) =>
    new HttpError(421, 'not-lab-host', `this lab answers to its own names (localhost, 127.0.0.1, [::1] and --san), not ${quote(host ?? '')}`),
  /** @param {string} what @param {string} from */
  notLabPage: (what, from) => new HttpError(403, 'not-lab-page', `${what} is for the lab's own page, not ${from}`),
  /** @param {string} who */
  pageCannotAnnounce: (who) => new HttpError(403, 'page-cannot-announce', `only ${who} announces itself, not a page`),
  // A refused announcer asks again (server/announce.js) on a new connection: the lab keeps none for it.
  /** @param {string} reason */
  tooManyAnnouncements: (reason) =>
    new HttpError(429, 'too-many-announcements', `too many announcements: ${reason}`, { headers: { connection: 'close', 'retry-after': '1' } }),
  /** @param {string} reason */
  announcerNotLabUser: (reason) =>
    new HttpError(403, 'announcer-not-lab-user', `only a process of the lab's own user announces itself: ${reason}`, { headers: { connection: 'close' } }),
  /** @param {number} port */
  portNotListening: (port) =>
    new HttpError(409, 'port-not-listening', `nothing listens on port ${port} on this machine's loopback; announce a port once it listens`, { field: 'port', headers: { connection: 'close' } }),
  /** @param {string} what */
  notText: (what) => new HttpError(415, 'not-text', `send ${what} as text (content-type: text/plain)`, { field: 'body' }),
  /** @param {string} what */
  notJson: (what) => new HttpError(415, 'not-json', `send ${what} as JSON (content-type: application/json)`, { field: 'body' }),
  /** @param {string} message */
  unusableJson: (message) => new HttpError(400, 'invalid-json', `the body is not usable JSON: ${message}`, { field: 'body' }),
  /** @param {string} message */
  bodyTooLarge: (message) => new HttpError(413, 'body-too-large', `the body is too large: ${message}`, { field: 'body' }),
  // One trace upload is read at a time of each party's (server/ui.js): a page sends one at a time.
  /** @param {string} whose */
  traceUploadBusy: (whose) =>
    new HttpError(429, 'trace-upload-busy', `the lab is reading a trace upload of ${whose} already: one at a time; send it again once that one is answered`, { headers: { 'retry-after': '1' } }),
  // A replay runs browsers and servers of its own (server/replay/jobs.js): one at a time, the lab user's.
  replayBusy: () => new HttpError(409, 'replay-busy', 'a replay is under way: one at a time; start this one once it is answered (or stopped)'),
  /** @param {string} reason */
  replayNotLabUser: (reason) => new HttpError(403, 'replay-not-lab-user', `only the lab's own user starts a replay: ${reason}`),
  /** @param {string} path */
  notFound: (path) => new HttpError(404, 'not-found', `no API route ${quote(path, 80)}`),
  /** @param {string} allow @param {string} path */
  methodNotAllowed: (allow, path) => new HttpError(405, 'method-not-allowed', `${quote(path, 80)} answers ${allow} only`, { headers: { allow } }),
  /** @param {string} id  as the client sent it */
  unknownNetwork: (id) => new HttpError(404, 'unknown-network', `no network ${quote(id)}; the networks are ${networkIds.join(', ')} (common/setup/networks.js)`),
  /** @param {import('../../common/setup/networks.js').Network} network */
  networkNotInLab: (network) =>
    new HttpError(404, 'network-not-in-lab', network.labSets
      ? `this lab runs without the ${network.title}: it needs ${network.needs}; start the lab on it with npm run experiments -- --network ${network.id} (or npm run chrome -- --network ${network.id})`
      : `the ${network.title} is applied by the browser, not the lab: PUT /api/emulation (npm run chrome) or DevTools itself`),
  /** @param {import('../../common/setup/networks.js').Network} network  one that sees no packets (capturesPackets false) */
  noPackets: (network) =>
    new HttpError(400, 'no-packets', `the ${network.title} sees requests and TCP streams, not packets: only a network that carries packets can capture a run`, { field: 'network' }),
  /** @param {import('../../common/setup/networks.js').Network} network  one that loses no packets (carries.loss false) */
  noLoss: (network) =>
    new HttpError(400, 'no-loss', `the ${network.title} loses no packets: only a network that carries loss takes a loss seed`, { field: 'network' }),
  // The lab's own capture folder or a file of the run's name is not the lab's alone (server/private-files.js).
  /** @param {string} message  naming the folder or file */
  captureRefused: (message) => new HttpError(409, 'capture-refused', message),
  /** @param {import('../../common/setup/networks.js').NetworkId} id @param {string} message */
  networkFailed: (id, message) => new HttpError(503, 'network-failed', `the ${networkById(id)?.title ?? id} failed: ${message}`),
  /** @param {number} port */
  devtoolsUnconfirmed: (port) =>
    new HttpError(403, 'devtools-port-unconfirmed', `the lab uses DevTools port ${port} only once the person confirms it in the page (npm run chrome opens no port: its Chrome is reached through its channel)`, { field: 'devtoolsPort' }),
  /** @param {string} channel */
  devtoolsChannelUnknown: (channel) =>
    new HttpError(409, 'devtools-channel-unknown', `no npm run chrome holds the DevTools channel ${quote(channel)} to this lab (closed, or opened for another lab): presets stay labels`, { field: 'devtoolsChannel' }),
  devtoolsChannelHeld: () => new HttpError(409, 'devtools-channel-held', 'another connection holds this DevTools channel', { field: 'channel' }),
  /** @param {string} message */
  devtoolsUnreachable: (message) => new HttpError(502, 'devtools-unreachable', message),
  /** @param {string} message */
  devtoolsRefused: (message) => new HttpError(502, 'devtools-refused', message),
  /** @param {string} message */
  devtoolsFailed: (message) => new HttpError(502, 'devtools-failed', message),
  /** @param {string} message */
  noLabTab: (message) => new HttpError(409, 'no-lab-tab', message),
  /** @param {string} message */
  noLabWindow: (message) => new HttpError(409, 'no-lab-window', message),
};

/**
 * An HTTP/2 header list's size as SETTINGS_MAX_HEADER_LIST_SIZE counts it (RFC 9113 §6.5.2):
 * name and value bytes plus 32 per field, from raw headers [name, value, name, value, …].
 * spdy never enforces the size it advertises, node:http2 only once the client has acknowledged
 * the server's SETTINGS; this check holds both to it from the first request.
 * @param {readonly unknown[]} rawHeaders  a name (a string) at each even index, its value after it
 */
export function headerListBytes(rawHeaders) {
  let bytes = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) bytes += Buffer.byteLength(/** @type {string} */ (rawHeaders[i])) + Buffer.byteLength(String(rawHeaders[i + 1])) + 32;
  return bytes;
}

/**
 * Echoes client input inside a message, bounded so a huge query cannot make a huge error.
 * @param {unknown} text @param {number} [maxChars]
 */
export function quote(text, maxChars = 40) {
  const s = String(text);
  return JSON.stringify(s.length > maxChars ? `${s.slice(0, maxChars)}…` : s);
}
