// The lab's control API on the page's own origin (server/ui.js).

/** @typedef {import('../../common/result.js').LinkConditions} LinkConditions */
/** @typedef {import('../../common/result.js').NetworkConditions} NetworkConditions */
/** @typedef {import('../../common/result.js').PacketCounts} PacketCounts */
/** @typedef {import('../../common/result.js').PacketRecord} PacketRecord */

/**
 * @typedef {object} LabServer  a server as GET /api/servers describes it (server/lab.js described),
 *   and what this page's preflight found from its browser (client/ui/preflight.js)
 * @property {string} id
 * @property {string} label
 * @property {string} origin        where the page fetches it directly
 * @property {number} port
 * @property {string} linkOrigin    its twin port behind the lab link
 * @property {number} linkPort
 * @property {import('../../common/servers.js').ServerEntry['protocol']} protocol
 * @property {import('../../common/servers.js').ServerEntry['capabilities']} capabilities
 * @property {string} software      what answers, e.g. 'Node v24.1.0'
 * @property {boolean} available    false when the lab could not start it (Caddy missing)
 * @property {string|null} [unavailableReason]
 * @property {string|null} [browserProblem]  preflight: why this browser cannot use it
 * @property {string|null} [linkProblem]     preflight: why not through the lab link
 */

/**
 * @typedef {object} Lab  GET /api/servers (server/lab.js describe), its servers annotated by the preflight
 * @property {string} ui
 * @property {LabServer[]} servers
 * @property {Record<string, { status: string, version: string|null, reason: string|null }>} fronts  e.g. caddy
 * @property {{ maxSizeMiB: number, maxDelayMs: number, maxStreams: number, maxAssets: number }} limits
 * @property {{ spkiSha256: string }} certificate
 * @property {string[]} [networks]  who can throttle this lab's runs (the packet network only where it runs)
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

/**
 * @typedef {{ p: number|null, r: number|null }} BurstInput  the packet network's bursty loss as asked for (null: a field
 *   left empty): the lab checks it, PUT /api/network answering 400 with the field at fault
 */

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

/**
 * Closes every connection of the test servers so the next run starts cold. A server cannot end
 * the browser's HTTP/3 connection on demand (server/lab.js reset()), so the lab holds the HTTP/3
 * ports closed while the page sends one request to each: its datagram meets the closed port and
 * the ICMP answer ends the connection. Those requests fail by design; then the ports reopen.
 * @param {string[]} serverIds the servers the next run uses: the front behind none of them stays up
 */
export async function resetConnections(serverIds) {
  /** @type {{ held: string[] }} the HTTP/3 origins held closed */
  const reset = await call(`/api/reset?hold=1&for=${encodeURIComponent(serverIds.join(','))}`, { method: 'POST' });
  if (!reset.held.length) return reset;
  // The browser writes each failed request into the console, whatever the page does with it: these
  // say what they are, there and in their address.
  console.info(`h2lab: closing this browser's HTTP/3 connections for a cold start; the ${reset.held.length} requests to ${closingPath} that fail now fail by design`);
  try {
    await Promise.all(reset.held.map((origin) => fetch(`${origin}${closingPath}`, { cache: 'no-store', signal: AbortSignal.timeout(closingRequestMs) }).catch(() => {})));
  } finally {
    await call('/api/release', { method: 'POST' });
  }
  return reset;
}

// A request to a closed port fails within milliseconds; a second is far beyond that.
const closingRequestMs = 1_000;
const closingPath = '/h2lab-closing-this-http3-connection';

/** @type {() => Promise<LabStats>} */
export const getStats = () => call('/api/stats');

/**
 * The lab link's conditions: { preset, rttMs, downloadBps, uploadBps, queueBytes }.
 * @type {() => Promise<LinkConditions>}
 */
export const getLink = () => call('/api/link');

/**
 * Sets the lab link: { preset } or { rttMs, downloadBps, uploadBps, queueBytes? }; answers the conditions.
 * @type {(conditions: { preset: string } | { rttMs: number, downloadBps: number, uploadBps: number, queueBytes?: number }) => Promise<LinkConditions>}
 */
export const setLink = (conditions) =>
  call('/api/link', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conditions) });

/**
 * What to PUT to bring the link back to `conditions` (a GET's answer).
 * @param {LinkConditions} c
 */
export const linkRestore = (c) => (c.preset ? { preset: c.preset } : { rttMs: c.rttMs, downloadBps: c.downloadBps, uploadBps: c.uploadBps, queueBytes: c.queueBytes });

/**
 * Runs `job` with the lab link set to a preset and puts the link back as it was afterwards, also
 * when the job fails: like a DevTools emulation, no setting outlives the run it was for.
 * @template T
 * @param {string} presetId
 * @param {(link: LinkConditions) => Promise<T>} job
 * @returns {Promise<T>} the job's result
 */
async function withLinkPreset(presetId, job) {
  const before = await getLink();
  const conditions = await setLink({ preset: presetId });
  try {
    return await job(conditions);
  } finally {
    await setLink(linkRestore(before)).catch(() => {}); // the job's own error says more
  }
}

/**
 * The packet network's conditions (GET /api/network): the link's fields and loss, burst.
 * @type {() => Promise<NetworkConditions>}
 */
export const getNetwork = () => call('/api/network');

/**
 * Sets the packet network: { preset, loss, burst } or the link's fields instead of preset; answers the conditions.
 * @type {(conditions: Parameters<typeof setLink>[0] & { loss?: number, burst?: BurstInput | null }) => Promise<NetworkConditions>}
 */
export const setNetwork = (conditions) =>
  call('/api/network', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conditions) });

/** @type {() => Promise<{ down: PacketCounts, up: PacketCounts }>} */
const getNetworkCounters = () => call('/api/network/counters');

// onLink is a level, not a count: what is still on the link at the end is the run's own.
/** @type {(before: Record<string, number>, after: Record<string, number>) => PacketCounts} every field the emulator counts */
const countsBetween = (before, after) => /** @type {PacketCounts} */ (Object.fromEntries(Object.keys(after).map((k) => [k, k === 'onLink' ? after[k] : after[k] - before[k]])));

/**
 * Runs `job(packet)` with the packet network set to `conditions` and puts it back as it was
 * afterwards, also when the job fails. `packet` is what the result records: { conditions (as
 * set), counters: { down, up } }, the emulator's counts during the job, filled in once it ends.
 * @template T
 * @param {Parameters<typeof setNetwork>[0]} conditions
 * @param {(packet: PacketRecord) => Promise<T>} job
 * @returns {Promise<T>} the job's result
 */
async function withNetworkConditions(conditions, job) {
  const before = await getNetwork();
  /** @type {PacketRecord} */
  const packet = { conditions: await setNetwork(conditions), counters: null };
  try {
    const start = await getNetworkCounters();
    try {
      return await job(packet);
    } finally {
      // null when the emulator no longer answers (PacketRecord): the job's own error says more.
      const end = await getNetworkCounters().catch(() => null);
      packet.counters = end && { down: countsBetween(start.down, end.down), up: countsBetween(start.up, end.up) };
    }
  } finally {
    await setNetwork({ ...linkRestore(before), loss: before.loss, burst: before.burst }).catch(() => {}); // the job's own error says more
  }
}

/**
 * Runs `job({ link, packet })` on the network the settings name, set for it and put back
 * afterwards: the lab link at the preset, or the packet network at the preset with its loss and
 * burst; DevTools and the label change nothing here (both null). The one rule for the page's
 * runs, page loads and calibrations.
 * @template T
 * @param {({ network: 'link'|'packet', preset: string } | { network?: 'devtools', preset?: string }) & { loss?: number, burst?: BurstInput | null }} on
 *   the lab's networks need a preset
 * @param {(on: { link: LinkConditions|null, packet: PacketRecord|null }) => Promise<T>} job
 * @returns {Promise<T>} the job's result
 */
export async function onNetwork({ network, preset, loss = 0, burst = null }, job) {
  if (network === 'link') return withLinkPreset(preset, (link) => job({ link, packet: null }));
  if (network === 'packet') return withNetworkConditions({ preset, loss, burst }, (packet) => job({ link: null, packet }));
  return job({ link: null, packet: null });
}

/**
 * Applies a preset through the DevTools port of the Chrome this page runs in (server/devtools/):
 * { devtoolsChannel (npm run chrome's) or devtoolsPort and confirmed, pageUrl, windows: 'tab'|'opened', preset } → { preset, windows, targets, browser }.
 * @type {(request: ({ devtoolsChannel: string } | { devtoolsPort: number, confirmed?: boolean }) & { pageUrl: string, windows: 'tab'|'opened', preset: string }) =>
 *   Promise<{ preset: string, windows: string, targets: number, browser: string }>}
 */
export const applyEmulation = (request) =>
  call('/api/emulation', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
