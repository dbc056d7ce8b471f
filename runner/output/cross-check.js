// The DevTools Protocol's view of every request, compared with what the page recorded: the
// negotiated protocol and the connection each response came on (Network.responseReceived
// carries protocol and connectionId). A disagreement marks the run invalid and says why.
import { serverById } from '../../common/setup/servers.js';
import { fetchOrigin, optionUrls, runTag } from '../../common/setup/urls.js';
import { invalidate } from '../../common/stats/validity.js';

/**
 * What DevTools saw of one response.
 * @typedef {{ protocol: string|undefined, connectionId: number, reused: boolean }} SeenResponse
 */

/**
 * Starts recording responses on a CDP session (Network must be enabled); returns the record.
 * @param {import('playwright-core').CDPSession} session
 * @returns {Map<string, SeenResponse>} by URL
 */
export function recordResponses(session) {
  /** @type {Map<string, SeenResponse>} */
  const byUrl = new Map();
  session.on('Network.responseReceived', ({ response }) => {
    byUrl.set(response.url, { protocol: response.protocol, connectionId: response.connectionId, reused: response.connectionReused });
  });
  return byUrl;
}

/**
 * Marks each run of a result invalid where DevTools disagrees with the page; returns the number
 * of runs it invalidated. Connections must map one-to-one: one server connection id per
 * DevTools connection id.
 * @param {import('../../common/report/result.js').Result} result
 * @param {Map<string, SeenResponse>} byUrl  recordResponses()
 */
export function crossCheck(result, byUrl) {
  let invalidated = 0;
  // The lab's word on its servers; a run's server is among them.
  const servers = /** @type {import('../browsers/session.js').DescribedServer[]} */ (result.environment.servers);
  for (const run of result.runs) {
    const server = /** @type {import('../browsers/session.js').DescribedServer} */ (servers.find((s) => s.id === run.server));
    const urlOf = optionUrls(fetchOrigin(server, result.settings.network), result.settings, runTag(result.id, run.server, run.repeat));
    /** @type {string[]} */
    const problems = [];
    /** @type {Map<number|null, number>} */
    const pageToCdp = new Map();
    /** @type {Map<number, number|null>} */
    const cdpToPage = new Map();
    let missing = 0;
    for (const r of run.requests) {
      if (r.error) continue;
      const seen = byUrl.get(urlOf(r.i));
      if (!seen) {
        missing += 1;
        continue;
      }
      if (seen.protocol !== /** @type {import('../../common/setup/servers.js').ServerEntry} */ (serverById(run.server)).protocol) problems.push(`request ${r.i}: DevTools saw ${seen.protocol}`);
      if ((pageToCdp.get(r.connectionId) ?? seen.connectionId) !== seen.connectionId || (cdpToPage.get(seen.connectionId) ?? r.connectionId) !== r.connectionId) {
        problems.push(`request ${r.i}: connection ${r.connectionId} on the server is not DevTools' connection ${seen.connectionId}`);
      }
      pageToCdp.set(r.connectionId, seen.connectionId);
      cdpToPage.set(seen.connectionId, r.connectionId);
    }
    if (missing) problems.push(`${missing} requests not seen by DevTools`);
    run.crossCheck = { devtoolsConnections: cdpToPage.size, problems: problems.length };
    if (problems.length) {
      const text = `DevTools disagrees: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`;
      if (invalidate(run, 'devtools-disagrees', text)) invalidated += 1;
    }
  }
  return invalidated;
}
