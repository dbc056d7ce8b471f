// The lab's control API on the page's own origin (server/ui.js).
import { networkOf } from '../../common/setup/networks.js';
import { bareNetworkRecord } from '../../common/report/network-record.js';

/** @typedef {import('../../common/report/result.js').PathConditionsRecord} PathConditionsRecord */
/** @typedef {import('../../common/report/network-record.js').NetworkRecord} NetworkRecord */
/** @typedef {import('../../common/setup/networks.js').NetworkId} NetworkId */

/**
 * @typedef {{ p: number|null, r: number|null }} BurstInput  bursty loss as asked for (null: a field left empty): the
 *   lab checks it, PUT /api/networks/<id> answering 400 with the field at fault
 */

/**
 * @typedef {object} NetworkInput  what PUT /api/networks/<id> takes: a preset or rates, and the rest where the network has them
 * @property {string} [preset]
 * @property {number} [rttMs]
 * @property {number} [downloadBps]
 * @property {number} [uploadBps]
 * @property {number} [queueBytes]
 * @property {number} [loss]
 * @property {BurstInput|null} [burst]
 * @property {string|null} [traceDown]  a trace's name (GET /api/traces) for a direction's rate
 * @property {string|null} [traceUp]
 */

/** @typedef {{ [count: string]: number | Counts }} Counts  a lab network's counters (server/lab.js), nested by direction */

/**
 * A server as GET /api/servers describes it (common/setup/lab-description.js), and what this page's
 * preflight found from its browser (client/ui/preflight.js).
 * @typedef {import('../../common/setup/lab-description.js').DescribedServer & { browserProblem?: string|null, linkProblem?: string|null }} LabServer
 *   browserProblem: why this browser cannot use it; linkProblem: why not through the lab link
 */

/**
 * GET /api/servers (common/setup/lab-description.js), its servers annotated by the preflight.
 * @typedef {Omit<import('../../common/setup/lab-description.js').LabDescription, 'servers'> & { servers: LabServer[] }} Lab
 */

/**
 * @typedef {object} ServerCounters  one server of GET /api/stats (server/stats.js snapshot)
 * @property {string} id
 * @property {number} openConnections
 * @property {number} totalConnections
 * @property {number} requests
 * @property {number} bytesSent
 * @property {number} pushesSent
 * @property {number} pushesRefused
 */

/** @typedef {{ servers: ServerCounters[], cpuMs: number }} LabStats  GET /api/stats */

/** @typedef {Error & { body?: { error?: string, code?: string, field?: string|null } }} ApiError  what call() throws on an HTTP error: body is the lab's answer (server/http/errors.js) */

/**
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<any>} the answer's JSON: any, as each export below says what it answers
 */
async function call(path, init) {
  const res = await fetch(path, { cache: 'no-store', ...init }).catch((err) => {
    // On the packet network the page reaches the lab through the emulator too: when that ends,
    // the lab goes on (and says why in its terminal), but this page can no longer reach it.
    throw new Error(`${path}: the lab does not answer (${err.message}); on the packet network, its emulator may have exited: the terminal that started the lab says why`);
  });
  const body = await res.json();
  if (!res.ok) throw Object.assign(new Error(`${path}: HTTP ${res.status}: ${body.error ?? 'error'}`), { body });
  return body;
}

/** @type {() => Promise<Lab>} */
export const getLab = () => call('/api/servers');

/** @typedef {{ name: string, description: string, builtIn: boolean }} TraceListing  one of GET /api/traces */
/** @typedef {{ name: string, sha256: string, meanBps: number, periodMs: number }} TraceSummary  what POST /api/traces answers */

/** The traces a lab network's direction may follow (server/path/traces.js). @type {() => Promise<{ traces: TraceListing[] }>} */
export const getTraces = () => call('/api/traces');

/**
 * Adds a trace in mahimahi's format to the lab under `name` (a known name's trace is replaced);
 * one the lab refuses is an Error naming the line at fault.
 * @param {string} name  common/setup/trace-name.js traceNamePattern
 * @param {string} text
 * @returns {Promise<TraceSummary>}
 */
export const uploadTrace = (name, text) =>
  call(`/api/traces?name=${encodeURIComponent(name)}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });

/** @typedef {import('../../common/report/result.js').CaptureRecord} CaptureRecord */

/**
 * Starts capturing what a network that sees packets carries (server/packet/capture.js), into files
 * named after `name` in the lab's capture folder; stopCapture ends it and answers what was written.
 * @param {NetworkId} network
 * @param {{ name: string, whole: boolean }} o whole: whole packets, not only their headers
 * @returns {Promise<{ stem: string }>}
 */
export const startCapture = (network, { name, whole }) =>
  call(`/api/networks/${network}/capture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, whole }) });

/** @type {(network: NetworkId) => Promise<CaptureRecord>} */
export const stopCapture = (network) => call(`/api/networks/${network}/capture`, { method: 'DELETE' });

/**
 * Closes every connection of the test servers so the next run starts cold. A server cannot end
 * the browser's HTTP/3 connection on demand (server/lab.js reset()), so the lab holds the HTTP/3
 * ports closed while the page sends one request to each: its datagram meets the closed port and
 * the ICMP answer ends the connection. Those requests fail by design; then the ports reopen.
 * @param {string[]} serverIds the servers the next run uses: the front behind none of them stays up
 * @param {number} [settleMs] waited at the end (settleAfterReset)
 */
export async function resetConnections(serverIds, settleMs = 0) {
  /** @type {{ held: string[] }} the HTTP/3 origins held closed */
  const reset = await call(`/api/reset?hold=1&for=${encodeURIComponent(serverIds.join(','))}`, { method: 'POST' });
  if (reset.held.length) await closeHttp3(reset.held);
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return reset;
}

/**
 * How long a reset waits for the servers' FINs to reach the browser: a round trip on a path every
 * packet crosses. A browser that had not yet got its FIN sent the next run's first request on the
 * closed connection and tried again only when the FIN came (210 ms later at Slow 4G, every other
 * run; docs/throttling.md, "Cold that was not cold"). Nothing to wait for elsewhere: DevTools and
 * the lab link end the browser's TCP on loopback.
 * @param {NetworkRecord} record  the run's network, as set (common/report/network-record.js)
 */
export const settleAfterReset = ({ id, conditions }) => (networkOf(id).capturesPackets ? conditions?.rttMs ?? 0 : 0);

/**
 * Ends the browser's HTTP/3 connections to the `held` origins, whose ports the lab holds closed.
 * @param {string[]} held
 */
async function closeHttp3(held) {
  // The browser writes each failed request into the console, whatever the page does with it: these
  // say what they are, there and in their address.
  console.info(`h2lab: closing this browser's HTTP/3 connections for a cold start; the ${held.length} requests to ${closingPath} that fail now fail by design`);
  try {
    await Promise.all(held.map((origin) => fetch(`${origin}${closingPath}`, { cache: 'no-store', signal: AbortSignal.timeout(closingRequestMs) }).catch(() => {})));
  } finally {
    await call('/api/release', { method: 'POST' });
  }
}

// Each closing request is left to fail on its own, while the ports are held: Chromium tries the
// request again on new connections (two more, the second with 0-RTT; NetLog, Slow 4G), each of
// which fails a round trip later at the closed port. Given up sooner (1 s did, at Slow 4G's 562
// ms), its last attempt went on inside the browser, connected once the ports reopened, and left a
// connection the next cold run used: a first byte in one round trip, or, had Caddy restarted
// since, none for 30 s (docs/throttling.md, "Cold that was not cold"). Firefox (neqo) ignores
// the ICMP answer: its request waits on the old connection until the connection's idle timeout
// (30 s) ends it, and fails then. A bound of exactly 30 s raced that end: the next run's requests
// met the dying connection and all failed within 80 ms (2 of 5 cold HTTP/3 runs, packet network).
// So the bound lies past the idle timeout, for Firefox, and far beyond three round trips of the
// slowest preset, for a browser that never gives up.
const closingRequestMs = 40_000;
const closingPath = '/h2lab-closing-this-http3-connection';

/**
 * Restarts a lossy network's losses from a timed run's seed (common/setup/seeds.js runLossSeed): the
 * same seed and the same packets after it lose the same packets.
 * @param {NetworkId} network  one that carries loss
 * @param {number} seed
 * @returns {Promise<{ seed: number }>}
 */
export const seedLoss = (network, seed) =>
  call(`/api/networks/${network}/loss-seed`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seed }) });

/**
 * Whether a run on a network set as `record` says loses packets: the network carries loss and
 * its conditions have some (random or bursts).
 * @param {NetworkRecord} record  the run's network, as set (common/report/network-record.js)
 */
export function losesPackets({ id, conditions }) {
  return Boolean(networkOf(id).carries.loss && conditions && (conditions.loss > 0 || conditions.burst));
}

/** @type {() => Promise<LabStats>} */
export const getStats = () => call('/api/stats');

/**
 * A lab network's conditions (GET /api/networks/<id>): { preset, rttMs, downloadBps, uploadBps,
 * queueBytes, loss, burst }.
 * @param {NetworkId} id a network the lab sets (common/setup/networks.js labSets)
 * @returns {Promise<PathConditionsRecord>}
 */
export const getNetwork = (id) => call(`/api/networks/${id}`);

/**
 * Sets a lab network: { preset } or { rttMs, downloadBps, uploadBps }, with queueBytes and, where it loses packets, loss and burst; answers the conditions.
 * @param {NetworkId} id
 * @param {NetworkInput} conditions
 * @returns {Promise<PathConditionsRecord>}
 */
export const setNetwork = (id, conditions) =>
  call(`/api/networks/${id}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conditions) });

/** @type {(id: NetworkId) => Promise<Counts>} */
const getNetworkCounters = (id) => call(`/api/networks/${id}/counters`);

/**
 * What to PUT to bring a network back to `c` (a GET's answer).
 * @param {PathConditionsRecord} c
 * @returns {NetworkInput}
 */
export function networkRestore(c) {
  /** @type {NetworkInput} */
  const body = c.preset ? { preset: c.preset } : { rttMs: c.rttMs, queueBytes: c.queueBytes };
  // A traced direction is put back by its trace's name, a constant one (without a preset) by its rate.
  if (c.traceDown) body.traceDown = c.traceDown.name;
  else if (!c.preset) body.downloadBps = c.downloadBps;
  if (c.traceUp) body.traceUp = c.traceUp.name;
  else if (!c.preset) body.uploadBps = c.uploadBps;
  return { ...body, loss: c.loss, burst: c.burst };
}

// A level, not a count (onLink, openConnections): what is there at the end is the run's own.
const levels = new Set(['onLink', 'openConnections']);
/**
 * @param {Counts} before  the same counters as `after`
 * @param {Counts} after
 * @returns {Counts}
 */
const countsBetween = (before, after) =>
  Object.fromEntries(
    Object.keys(after).map((k) => {
      const a = after[k];
      // Before has the same shape: a direction where after has one, a count where it has one.
      const b = before[k];
      return [k, typeof a === 'object' ? countsBetween(/** @type {Counts} */ (b), a) : levels.has(k) ? a : a - /** @type {number} */ (b)];
    }),
  );

/**
 * Runs `job(record)` with lab network `id` set to `conditions` and puts it back as it was
 * afterwards, also when the job fails: like a DevTools emulation, no setting outlives the run it
 * was for. `record` is what the result records: { conditions (as set), counters }, the network's
 * counts during the job (server/lab.js), filled in once it ends.
 * @template T
 * @param {NetworkId} id
 * @param {NetworkInput} conditions
 * @param {(record: NetworkRecord) => Promise<T>} job
 * @returns {Promise<T>} the job's result
 */
async function withNetworkConditions(id, conditions, job) {
  const before = await getNetwork(id);
  /** @type {NetworkRecord} */
  const record = { id, conditions: await setNetwork(id, conditions), counters: null };
  try {
    const start = await getNetworkCounters(id);
    try {
      return await job(record);
    } finally {
      // null when the network no longer answers (the packet network's emulator gone): the job's own error says more.
      const end = await getNetworkCounters(id).catch(() => null);
      // The network's own counters, in the shape its record says.
      record.counters = end && countsBetween(start, end);
    }
  } finally {
    await setNetwork(id, networkRestore(before)).catch(() => {}); // the job's own error says more
  }
}

/**
 * Runs `job(record)` on the network the settings name, set for it and put back afterwards: a
 * network the lab sets (common/setup/networks.js) at the preset, with the loss and burst where it loses
 * packets; under DevTools (or a label) nothing here. `record` is what a result keeps as
 * environment.network (common/report/network-record.js): the network's id, and where the lab set
 * it its conditions and counters. The one rule for the page's runs, page loads and calibrations.
 * @template T
 * @param {{ network?: string, preset?: string, loss?: number, burst?: BurstInput | null,
 *   traceDown?: string|null, traceUp?: string|null }} on traceDown, traceUp: a trace's name per direction (GET /api/traces)
 * @param {(record: NetworkRecord) => Promise<T>} job
 * @returns {Promise<T>} the job's result
 */
export async function onNetwork({ network, preset, loss = 0, burst = null, traceDown = null, traceUp = null }, job) {
  const n = networkOf(network);
  if (!n.labSets) return job(bareNetworkRecord(n.id));
  const conditions = { preset, ...(n.carries.loss && { loss, burst }), ...(traceDown && { traceDown }), ...(traceUp && { traceUp }) };
  return withNetworkConditions(n.id, conditions, job);
}

/**
 * Applies a preset through the DevTools port of the Chrome this page runs in (server/devtools/):
 * { devtoolsChannel (npm run chrome's) or devtoolsPort and confirmed, pageUrl, windows: 'tab'|'opened', preset } → { preset, windows, targets, browser }.
 * @type {(request: ({ devtoolsChannel: string } | { devtoolsPort: number, confirmed?: boolean }) & { pageUrl: string, windows: 'tab'|'opened', preset: string }) =>
 *   Promise<{ preset: string, windows: string, targets: number, browser: string }>}
 */
export const applyEmulation = (request) =>
  call('/api/emulation', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });

/** @typedef {import('../../common/setup/replay-answer.js').ReplayPageInfo} ReplayPageInfo */
/** @typedef {import('../../common/setup/replay-answer.js').ReplayOutcome} ReplayOutcome */

/**
 * A recorded page replayed by the lab, in headless browsers of its own, as `npm run page-loads --
 * --har` replays it: the HAR sent as it is, the settings as the command's flags (the lab refuses a
 * wrong one naming it, before anything runs). Aborting `signal` stops the replay.
 * @param {File} har
 * @param {Record<string, string>} settings  query parameters: protocols, family, network, repeats…
 * @param {{ onPages: (pages: ReplayPageInfo[]) => void, onLine: (line: string) => void, signal: AbortSignal }} o
 * @returns {Promise<ReplayOutcome>}
 */
export async function replayHar(har, settings, { onPages, onLine, signal }) {
  const query = new URLSearchParams({ name: har.name.replace(/\.har$/i, ''), ...settings });
  const res = await fetch(`/api/replays?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: har, signal, cache: 'no-store' });
  if (!res.ok || !res.body) {
    const body = await res.json().catch(() => ({}));
    throw Object.assign(new Error(`/api/replays: HTTP ${res.status}: ${body.error ?? 'error'}`), { body });
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let partial = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const lines = (partial + read.value).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      const event = JSON.parse(line);
      if (event.pages) onPages(event.pages);
      else if (event.line !== undefined) onLine(event.line);
      else return event;
    }
  }
  throw new Error('/api/replays: the lab ended the answer before the replay ended');
}
