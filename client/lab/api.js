// The lab's control API on the page's own origin (server/ui.js).

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

/**
 * { ui, servers: [{ id, label, origin, port, linkOrigin, linkPort, protocol, capabilities, software,
 * available, unavailableReason }], fronts: { caddy: { status, version, reason } }, limits, certificate }
 */
export const getLab = () => call('/api/servers');

/**
 * Closes every connection of the test servers so the next run starts cold. A server cannot end
 * the browser's HTTP/3 connection on demand (server/lab.js reset()), so the lab holds the HTTP/3
 * ports closed while the page sends one request to each: its datagram meets the closed port and
 * the ICMP answer ends the connection. Those requests fail by design; then the ports reopen.
 * @param {string[]} serverIds the servers the next run uses: the front behind none of them stays up
 */
export async function resetConnections(serverIds) {
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

/** { servers: [{ id, openConnections, totalConnections, requests, bytesSent, pushesSent, pushesRefused, … }], cpuMs } */
export const getStats = () => call('/api/stats');

/** The lab link's conditions: { preset, rttMs, downloadBps, uploadBps, queueBytes }. */
export const getLink = () => call('/api/link');

/** Sets the lab link: { preset } or { rttMs, downloadBps, uploadBps, queueBytes? }; answers the conditions. */
export const setLink = (conditions) =>
  call('/api/link', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conditions) });

/** What to PUT to bring the link back to `conditions` (a GET's answer). */
export const linkRestore = (c) => (c.preset ? { preset: c.preset } : { rttMs: c.rttMs, downloadBps: c.downloadBps, uploadBps: c.uploadBps, queueBytes: c.queueBytes });

/**
 * Runs `job` with the lab link set to a preset and puts the link back as it was afterwards, also
 * when the job fails: like a DevTools emulation, no setting outlives the run it was for.
 * @returns the job's result
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

/** The packet network's conditions (GET /api/network): the link's fields and loss, burst. */
export const getNetwork = () => call('/api/network');

/** Sets the packet network: { preset, loss, burst } or the link's fields instead of preset; answers the conditions. */
export const setNetwork = (conditions) =>
  call('/api/network', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conditions) });

const getNetworkCounters = () => call('/api/network/counters');

// onLink is a level, not a count: what is still on the link at the end is the run's own.
const countsBetween = (before, after) => Object.fromEntries(Object.keys(after).map((k) => [k, k === 'onLink' ? after[k] : after[k] - before[k]]));

/**
 * Runs `job(packet)` with the packet network set to `conditions` and puts it back as it was
 * afterwards, also when the job fails. `packet` is what the result records: { conditions (as
 * set), counters: { down, up } }, the emulator's counts during the job, filled in once it ends.
 * @returns the job's result
 */
async function withNetworkConditions(conditions, job) {
  const before = await getNetwork();
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
 * @param {{ network?: string, preset?: string, loss?: number, burst?: { p: number, r: number } | null }} on
 * @returns the job's result
 */
export async function onNetwork({ network, preset, loss = 0, burst = null }, job) {
  if (network === 'link') return withLinkPreset(preset, (link) => job({ link, packet: null }));
  if (network === 'packet') return withNetworkConditions({ preset, loss, burst }, (packet) => job({ link: null, packet }));
  return job({ link: null, packet: null });
}

/**
 * Applies a preset through the DevTools port of the Chrome this page runs in (server/devtools/):
 * { devtoolsChannel (npm run chrome's) or devtoolsPort and confirmed, pageUrl, windows: 'tab'|'opened', preset } → { preset, windows, targets, browser }.
 */
export const applyEmulation = (request) =>
  call('/api/emulation', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
