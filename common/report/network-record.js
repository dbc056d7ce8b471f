// A result's network in one shape, whatever the result's age: { id, conditions, counters }. Since
// schema 3 environment.network is that record; results of schema 2 carry the id there and the
// record under environment.link or environment.packet (or, from before h2lab counted the link's
// pieces, the link's conditions alone). Readers take it from here and nowhere else.
import { networkOf, networks } from '../setup/networks.js';

/**
 * @typedef {import('./result.js').PathConditionsRecord} PathConditionsRecord
 * @typedef {object} NetworkRecord
 * @property {import('../setup/networks.js').NetworkId} id
 * @property {PathConditionsRecord|null} conditions  a network the lab sets: as set for the run; else null
 * @property {Record<string, any>|null} counters  what it carried during the run (its own shape per
 *   network: result.js PacketRecord, LinkRecord); null where it counts nothing or did not answer
 */

/**
 * @param {{ network?: unknown, link?: unknown, packet?: unknown }|null|undefined} environment
 * @returns {NetworkRecord}
 */
export function networkRecordOf(environment) {
  const network = environment?.network;
  if (network && typeof network === 'object') return /** @type {NetworkRecord} schema 3 */ (network);
  const records = /** @type {Record<string, unknown>} */ (environment ?? {});
  // The network whose record it holds (a lab network's), else the one it names.
  const { id } = networks.find((n) => n.labSets && records[n.id]) ?? networkOf(/** @type {string|undefined} */ (network));
  const old = /** @type {{ conditions?: PathConditionsRecord, counters?: NetworkRecord['counters'] } & Partial<PathConditionsRecord> | null | undefined} */ (records[id]);
  if (!old) return { id, conditions: null, counters: null };
  return { id, conditions: old.conditions ?? /** @type {PathConditionsRecord} conditions alone */ (old), counters: old.counters ?? null };
}

/**
 * A record's counters as the packet network counts them (result.js PacketRecord), where its
 * network sees packets; null elsewhere.
 * @param {NetworkRecord} record
 * @returns {{ down: import('./result.js').PacketCounts, up: import('./result.js').PacketCounts }|null}
 */
export const packetCountsOf = ({ id, counters }) => (networkOf(id).capturesPackets && counters ? /** @type {{ down: import('./result.js').PacketCounts, up: import('./result.js').PacketCounts }} */ (counters) : null);

/**
 * The record of a network that did not throttle in the lab (DevTools, a label): its id alone.
 * @param {import('../setup/networks.js').NetworkId} id
 * @returns {NetworkRecord}
 */
export const bareNetworkRecord = (id) => ({ id, conditions: null, counters: null });
