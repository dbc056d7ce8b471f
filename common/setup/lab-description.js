// GET /api/servers: the lab's word on itself (server/lab.js describe), typed once for the lab that
// answers it, the page (client/lab/api.js) and the runner (runner/browsers/session.js) that read it.

/**
 * A server as GET /api/servers describes it (server/lab.js described).
 * @typedef {object} DescribedServer
 * @property {string} id
 * @property {string} label
 * @property {string} origin        where a browser fetches it directly
 * @property {number} port
 * @property {string} linkOrigin    its twin port behind the lab link
 * @property {number} linkPort
 * @property {import('./servers.js').ServerEntry['protocol']} protocol
 * @property {import('./servers.js').ServerEntry['capabilities']} capabilities
 * @property {string} software      what answers, e.g. 'Node v24.1.0'
 * @property {boolean} available    false when the lab could not start it (Caddy missing)
 * @property {string} [unavailableReason]  why not, when not available
 */

/**
 * GET /api/servers (server/lab.js describe).
 * @typedef {object} LabDescription
 * @property {string} ui            the lab's UI origin
 * @property {DescribedServer[]} servers
 * @property {Record<string, { status: string, version: string|null, reason: string|null }>} fronts  e.g. caddy
 * @property {{ maxSizeMiB: number, maxDelayMs: number, maxStreams: number, maxAssets: number }} limits
 * @property {{ spkiSha256: string }} certificate
 * @property {import('./networks.js').NetworkId[]} [networks]  who can throttle this lab's runs (the packet network only where
 *   it runs); a lab older than the list sends none
 * @property {import('./networks.js').Network[]} [networkEntries]  their registry entries (common/setup/networks.js), for the page to register those it lacks
 */

export {};
