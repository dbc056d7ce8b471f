// A HAR 1.2 read into what the replay serves: its origins and, per origin, the recorded exchanges
// with decoded bodies. Any exporter's HAR is read alike (Chromium and playwright, Firefox,
// WebPageTest, sitespeed.io: docs/notes/har-replay.md, section 5): what differs between them
// (how they spell HTTP/2, where the initiator is, whether bodies are in) is normalized here and
// nowhere else. What cannot be replayed is counted by reason, never dropped in silence; what
// must not be replayed (a lab name, localhost) refuses the whole file, naming the entry.
import fs from 'node:fs';
import { InputError } from '../../common/setup/errors.js';
import { allLabHostNames } from '../../common/setup/host-names.js';
import { MiB } from '../../common/setup/units.js';

export const archiveLimits = {
  // The largest HAR read. V8's longest string is 2^29 − 24 characters (about 512 MiB): a file
  // read as one string cannot exceed it. Bodies are base64 in a HAR (4/3 of their size), so 256
  // MiB holds about 190 MiB of bodies, ten times the heaviest pages HTTP Archive reports.
  maxFileBytes: 256 * MiB,
  // Entries per HAR: HTTP Archive's heaviest pages make a few thousand requests.
  maxEntries: 20_000,
};

const flag = '--har';

/** @typedef {'h1'|'h2'|'h3'} Protocol */

/** Appends `value` to the list `map` keeps under `key`. @template T @param {Map<string, T[]>} map @param {string} key @param {T} value */
export function addTo(map, key, value) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * One recorded exchange, as the replay serves it.
 * @typedef {object} Exchange
 * @property {number} index      the entry's place in the HAR (0-based), for messages
 * @property {string} method
 * @property {string} url        absolute, without fragment
 * @property {string} origin     scheme://host[:port] as URL.origin writes it
 * @property {string} path       path and query, as on the request line
 * @property {[string, string][]} requestHeaders  lower-case names
 * @property {number} status
 * @property {[string, string][]} headers  the recorded response headers, lower-case names
 * @property {Buffer|null} body  decoded bytes; null where the HAR has none (a model makes them up)
 * @property {boolean} truncated the HAR's text is shorter than its recorded size
 * @property {number} size       decoded length as recorded (content.size)
 * @property {number} wireSize   body bytes on the wire as recorded, still encoded; -1 unknown
 * @property {string} mimeType
 * @property {Protocol|null} protocol  the protocol it was recorded over, if the HAR says
 * @property {number} startMs    when it started, from the first entry's start
 * @property {number} waitMs     timings.wait: the first byte's wait, a round trip and the server's think time; -1 unknown
 * @property {number} handshakeMs the TCP handshake of a new connection (timings.connect less ssl); -1 on a reused one or unknown
 * @property {string|null} initiator  the URL that caused it, where the exporter says
 * @property {string|null} connection the exporter's connection id or port, as text
 * @property {string|null} serverIp  the address it was answered from (HAR 1.2 serverIPAddress), if recorded
 */

/**
 * @typedef {object} Archive
 * @property {Map<string, Exchange[]>} byOrigin  in recorded order
 * @property {Exchange[]} exchanges
 * @property {Record<string, number>} skipped  entries left out, by reason
 * @property {{ duplicates: number, redirects: number, withoutBody: number, truncated: number }} counts
 * @property {string} creator   which tool wrote it
 * @property {string|null} pageUrl  the first page's URL or the first document's
 */

/** An archive of nothing: what a HAR's reading starts from. @returns {Archive} */
export const emptyArchive = () => ({ byOrigin: new Map(), exchanges: [], skipped: {}, counts: { duplicates: 0, redirects: 0, withoutBody: 0, truncated: 0 }, creator: '', pageUrl: null });

// How exporters spell a protocol (docs/notes/har-replay.md, section 5).
/** @param {unknown} version @returns {Protocol|null} */
export function protocolOf(version) {
  const v = String(version ?? '').toLowerCase();
  if (/^(h2|http\/2(\.0)?)$/.test(v)) return 'h2';
  if (/^(h3(-\d+)?|http\/3(\.0)?|quic)$/.test(v)) return 'h3';
  if (/^http\/1\.[01]$/.test(v)) return 'h1';
  return null;
}

/**
 * Reads and parses a HAR file within the size bound.
 * @param {string} file
 * @returns {Archive}
 */
export function readHarFile(file) {
  let size;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw new InputError(flag, `${flag}: cannot read ${file} (${/** @type {NodeJS.ErrnoException} */ (err).code ?? 'error'})`);
  }
  if (size > archiveLimits.maxFileBytes) throw new InputError(flag, `${flag}: ${file} is ${(size / MiB).toFixed(0)} MiB, over the ${archiveLimits.maxFileBytes / MiB} MiB a HAR may have`);
  let har;
  try {
    har = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(flag, `${flag}: ${file} is not JSON (${/** @type {Error} */ (err).message})`);
  }
  return readHar(har, file);
}

/**
 * A parsed HAR read into an archive.
 * @param {any} har  any: what JSON.parse gave, checked here field by field
 * @param {string} [name]  for messages
 * @returns {Archive}
 */
export function readHar(har, name = 'the HAR') {
  const log = har?.log;
  if (!log || typeof log !== 'object' || !Array.isArray(log.entries)) throw new InputError(flag, `${flag}: ${name} is not a HAR: it has no log.entries`);
  if (!/^1\.[12]$/.test(String(log.version))) throw new InputError(flag, `${flag}: ${name} is HAR ${JSON.stringify(log.version)}; the lab reads HAR 1.2 (and 1.1)`);
  if (log.entries.length > archiveLimits.maxEntries) throw new InputError(flag, `${flag}: ${name} has ${log.entries.length} entries, over the ${archiveLimits.maxEntries} a HAR may have`);
  const first = Math.min(...log.entries.map((/** @type {any} */ e) => Date.parse(e?.startedDateTime)).filter(Number.isFinite));
  /** @type {Archive} */
  const archive = { ...emptyArchive(), creator: `${log.creator?.name ?? '?'} ${log.creator?.version ?? ''}`.trim() };
  const seen = new Set();
  log.entries.forEach((/** @type {any} */ entry, /** @type {number} */ index) => {
    const read = readEntry(entry, index, name, first);
    if (typeof read === 'string') {
      archive.skipped[read] = (archive.skipped[read] ?? 0) + 1;
      return;
    }
    const key = `${read.method} ${read.url}`;
    if (seen.has(key)) archive.counts.duplicates++;
    seen.add(key);
    if (read.status >= 300 && read.status < 400) archive.counts.redirects++;
    if (!read.body) archive.counts.withoutBody++;
    if (read.truncated) archive.counts.truncated++;
    archive.exchanges.push(read);
    addTo(archive.byOrigin, read.origin, read);
  });
  const pageUrl = log.pages?.[0]?.title;
  archive.pageUrl = URL.canParse(pageUrl) ? pageUrl : (archive.exchanges.find((e) => /html/.test(e.mimeType))?.url ?? null);
  return archive;
}

/** @param {string} host */
const isLocalHost = (host) => host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '[::1]';

/**
 * One entry, or the reason it is left out.
 * @param {any} entry @param {number} index @param {string} name @param {number} first
 * @returns {Exchange|string}
 */
function readEntry(entry, index, name, first) {
  const where = `${name}, entry ${index}`;
  const raw = entry?.request?.url;
  if (typeof raw !== 'string' || !entry.response || typeof entry.response !== 'object') throw new InputError(flag, `${flag}: ${where} has no request.url or no response`);
  if (/^(data|blob):/i.test(raw)) return `${raw.slice(0, raw.indexOf(':'))}: URLs (the browser makes them itself)`;
  if (!URL.canParse(raw)) throw new InputError(flag, `${flag}: ${where}: ${JSON.stringify(raw.slice(0, 80))} is not a URL`);
  const url = new URL(raw);
  url.hash = '';
  if (url.protocol !== 'https:') return `${url.protocol} URLs (the lab serves https: only)`;
  if (isLocalHost(url.hostname) || allLabHostNames.some((h) => url.hostname === h || url.hostname.endsWith(`.${h}`))) {
    throw new InputError(flag, `${flag}: ${where}: ${url.origin} is ${isLocalHost(url.hostname) ? 'this machine' : 'a name of the lab'}; a replay serves recorded origins only`);
  }
  const status = Number(entry.response.status);
  // Chromium's HAR keeps a request that never got a response as status 0 (blocked, aborted).
  if (!Number.isInteger(status) || status < 100 || status > 599) return 'no response recorded (status 0: blocked, aborted or failed)';
  const content = entry.response.content ?? {};
  const { body, truncated } = bodyOf(content);
  const started = Date.parse(entry.startedDateTime);
  const wait = Number(entry.timings?.wait);
  const connect = Number(entry.timings?.connect);
  const ssl = Number(entry.timings?.ssl);
  const wireSize = Number(entry.response.bodySize) >= 0 ? Number(entry.response.bodySize) : Number(entry.response._transferSize) >= 0 && Number(entry.response.headersSize) >= 0 ? Number(entry.response._transferSize) - Number(entry.response.headersSize) : -1;
  return {
    index,
    method: String(entry.request.method ?? 'GET').toUpperCase(),
    url: url.href,
    origin: url.origin,
    path: url.pathname + url.search,
    requestHeaders: headerPairs(entry.request.headers),
    status,
    headers: headerPairs(entry.response.headers),
    body,
    truncated,
    size: Number(content.size) >= 0 ? Number(content.size) : (body?.length ?? 0),
    wireSize,
    mimeType: String(content.mimeType ?? ''),
    protocol: protocolOf(entry.response.httpVersion) ?? protocolOf(entry.request.httpVersion) ?? protocolOf(entry._protocol),
    startMs: Number.isFinite(started) ? started - first : 0,
    waitMs: Number.isFinite(wait) && wait >= 0 ? wait : -1,
    // HAR 1.2: connect includes ssl; -1 where it does not apply.
    handshakeMs: connect > 0 ? connect - (ssl > 0 ? ssl : 0) : -1,
    initiator: initiatorOf(entry),
    connection: entry._connectionId != null ? String(entry._connectionId) : entry.connection != null ? String(entry.connection) : null,
    serverIp: typeof entry.serverIPAddress === 'string' && entry.serverIPAddress ? entry.serverIPAddress.replace(/^\[|\]$/g, '') : null,
  };
}

/** @param {any} headers @returns {[string, string][]} */
const headerPairs = (headers) => (Array.isArray(headers) ? headers.filter((h) => typeof h?.name === 'string').map((h) => [h.name.toLowerCase(), String(h.value ?? '')]) : []);

/**
 * The decoded body, if the HAR carries it; a text shorter than the recorded size is truncated
 * (Firefox keeps at most devtools.netmonitor.responseBodyLimit, 1 MiB by default).
 * @param {any} content
 */
function bodyOf(content) {
  if (typeof content.text !== 'string') return { body: null, truncated: false };
  const body = content.encoding === 'base64' ? Buffer.from(content.text, 'base64') : Buffer.from(content.text, 'utf8');
  return { body, truncated: Number(content.size) > body.length };
}

/**
 * The URL that caused a request: Chromium's and playwright's `_initiator` is an object (a parser's
 * `url`, a script's first stack frame), WebPageTest's and sitespeed.io's a URL string.
 * @param {any} entry
 * @returns {string|null}
 */
function initiatorOf(entry) {
  const i = entry._initiator;
  if (typeof i === 'string') return URL.canParse(i) ? i : null;
  if (!i || typeof i !== 'object') return null;
  const frame = i.stack?.callFrames?.find((/** @type {any} */ f) => f?.url) ?? i.stack?.parent?.callFrames?.find((/** @type {any} */ f) => f?.url);
  const url = i.url ?? frame?.url;
  return typeof url === 'string' && URL.canParse(url) ? url : null;
}
