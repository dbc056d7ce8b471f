// The URLs of a timed run, in one place: the engine fetches them and the headless runner's
// DevTools cross-check finds the same requests by them.
import { networkOf } from './networks.js';
import { plainNumber } from './units.js';

/** @param {string} resultId @param {string} serverId @param {number} repeat */
export const runTag = (resultId, serverId, repeat) => `${resultId}-${serverId}-${repeat}`;

/**
 * A function i → URL of request i of a run.
 * @param {string} origin
 * @param {{ sizeMiB: number, delayMs: number }} settings
 * @param {string} tag  runTag()
 * @returns {(i: number) => string}
 */
export function optionUrls(origin, { sizeMiB, delayMs }, tag) {
  const base = `${origin}/option?size=${plainNumber(sizeMiB)}&delay=${plainNumber(delayMs)}&run=${tag}&i=`;
  return (i) => base + i;
}

/**
 * Where a run fetches a server: its own origin, or its twin port behind the lab link.
 * @param {{ origin: string, linkOrigin: string }} server  an entry of GET /api/servers
 * @param {string|null|undefined} network  settings.network
 * @returns {string}
 */
export const fetchOrigin = (server, network) => (networkOf(network).twinPorts ? server.linkOrigin : server.origin);
