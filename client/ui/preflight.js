// On load and on "Check again": can this browser reach every server over the protocol it promises? A fetch that
// fails while the control API says the server runs is almost always an untrusted certificate.
import { fetchEntry } from '../lab/timing.js';
import { forceQuicFlag } from '../../common/setup/quic.js';

// A reachable server answers in milliseconds. An HTTP/3 origin in a Chrome not told to use QUIC
// there is tried over TCP, which the lab's HTTP/3 ports turn away at once (Caddy's TLS offers
// only h3; the link's twin has no TCP side); anything slower than this is given up on.
const checkTimeoutMs = 5_000;

/** @typedef {import('../lab/api.js').LabServer} LabServer */
/** @typedef {{ ok: boolean, text: string, noQuic?: boolean, untrusted?: boolean }} Check  one origin's verdict */

/**
 * @param {LabServer} server
 * @returns {Promise<Check>}
 */
async function check(server, origin = server.origin) {
  if (server.available === false) return { ok: false, text: `unavailable: ${server.unavailableReason}` };
  const url = `${origin}/option?size=0&preflight=${Date.now()}`;
  try {
    const protocol = (await fetchEntry(url, { signal: AbortSignal.timeout(checkTimeoutMs) }))?.nextHopProtocol ?? '';
    if (protocol !== server.protocol) return { ok: false, text: `answered over ${protocol || 'an unknown protocol'}, not ${server.protocol}` };
    return { ok: true, text: `${protocol} ✓` };
  } catch (err) {
    if (server.protocol === 'h3') return { ok: false, text: `no HTTP/3 answer (${/** @type {Error} */ (err).name === 'TimeoutError' ? 'timed out' : 'failed'}): this Chrome was not started with QUIC forced for the lab`, noQuic: true };
    return { ok: false, text: 'unreachable from this page: is its certificate trusted?', untrusted: true };
  }
}

/**
 * Checks every server directly and through the lab link, and writes what failed onto the lab's
 * server entries for common/setup/servers.js unavailableReason(): `browserProblem` (a direct check
 * failed: nothing runs on it here) and `linkProblem` (its twin port failed: no run through the
 * link). Lists every server with its verdict, and the fix when there is one.
 * @param {import('../lab/api.js').Lab} lab GET /api/servers; its server entries get the verdicts
 * @param {HTMLElement} list
 * @param {HTMLElement} fix
 */
export async function preflight(lab, list, fix) {
  /** @type {Check[]} */
  const results = [];
  /** @type {Check[]} */
  const viaLink = [];
  // One at a time: one timing buffer. The link is checked too, so a run through it cannot be
  // the first to find its ports unreachable; direct runs do not need it.
  for (const server of lab.servers) {
    results.push(await check(server));
    viaLink.push(await check(server, server.linkOrigin));
  }
  const items = lab.servers.map((server, i) => {
    server.browserProblem = results[i].ok ? null : results[i].text;
    server.linkProblem = viaLink[i].ok ? null : `through the lab link: ${viaLink[i].text}`;
    const li = document.createElement('li');
    li.dataset.server = server.id;
    li.className = results[i].ok && viaLink[i].ok ? 'ok' : 'bad';
    li.textContent = `${server.label} · ${server.origin} · ${results[i].text} · through the lab link (${server.linkOrigin}): ${viaLink[i].ok ? '✓' : viaLink[i].text}`;
    return li;
  });
  list.replaceChildren(...items);
  showFix(fix, lab.servers, results);
}

/**
 * The fix for what the direct checks found, in words: trust the certificate, force QUIC.
 * @param {HTMLElement} fix
 * @param {LabServer[]} servers
 * @param {Check[]} results
 */
function showFix(fix, servers, results) {
  fix.replaceChildren();
  const untrusted = servers.filter((_, i) => results[i].untrusted);
  if (untrusted.length) {
    fix.append(
      'This browser does not trust the lab\'s certificate. Fix: close this window and run ',
      Object.assign(document.createElement('code'), { textContent: 'npm run chrome' }),
      ' (a Chrome that trusts the lab\'s key), or open ',
      ...untrusted.flatMap((s, i) => [i ? ', ' : '', Object.assign(document.createElement('a'), { href: `${s.origin}/option`, target: '_blank', textContent: s.origin })]),
      ' once, accept the warning, and reload this page.',
    );
  }
  if (servers.some((_, i) => results[i].noQuic)) {
    fix.append(
      `${fix.textContent ? ' ' : ''}HTTP/3 needs a Chrome that speaks QUIC to the lab's HTTP/3 origins: npm run chrome does, or start Chrome with `,
      Object.assign(document.createElement('code'), { textContent: forceQuicFlag(servers) }),
      ' (and without --disable-quic). The other servers work without it.',
    );
  }
  fix.hidden = !fix.textContent;
}
