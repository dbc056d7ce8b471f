// The lab's own networks (common/setup/networks.js labSets: the lab link, the packet network)
// behind one interface, as undici puts Client, Pool and Agent behind one Dispatcher. The lab, its
// API and the runner use only this; what a network can do beyond it is declared in the registry
// (carries.loss, capturesPackets, twinPorts) and checked against what the network brings, once, at
// the lab's start: nothing sniffs a network's members.
import { networkOf } from '../common/setup/networks.js';

/**
 * @typedef {import('./path/conditions.js').PathConditions} PathConditions
 * @typedef {ReturnType<typeof import('./path/conditions.js').publicConditions>} PublicConditions
 * @typedef {object} LabNetwork
 * @property {import('../common/setup/networks.js').NetworkId} id  its registry entry's
 * @property {() => PublicConditions} get  the conditions in force; throws why once the network is gone
 * @property {(conditions: PathConditions) => Promise<PublicConditions>} set  for the next packets or pieces, open connections too
 * @property {() => Promise<object>} counters  what it carried since it started (a run takes the difference)
 * @property {() => string|null} failure  why it cannot be used, or null
 * @property {(port: number) => Promise<void>} exemptUiPort  keeps the lab UI's own traffic out of the conditions
 * @property {() => Promise<void>} close
 * @property {Promise<string>} [exited]  settles with why, should the network end while the lab runs
 * @property {((seed: number) => Promise<void>)|null} seedLoss  where the registry says it carries loss
 * @property {{ start(stem: string, whole: boolean): Promise<void>, stop(): Promise<import('./packet/capture.js').CaptureSummary> }|null} capture
 *   where the registry says it captures packets
 * @property {((targetPort: number, targetHost: string, o?: { udp?: boolean }) => ReturnType<ReturnType<typeof import('./link/link.js').createLink>['relayTo']>)|null} relayTo
 *   a twin port in front of a server, where the registry says the browser reaches servers by twin ports
 */

/** @type {Array<{ id: string, start: () => Promise<LabNetwork> }>} */
const registered = [];

/**
 * A network of one's own for every lab started after this (the lab link and the packet network
 * are the lab's by default): its registry entry first (common/setup/networks.js registerNetwork),
 * then how the lab starts it. The lab describes the entry to its page (GET /api/servers
 * networkEntries), which registers it too.
 * @param {{ id: string, start: () => Promise<LabNetwork> }} network
 */
export function registerLabNetwork(network) {
  if (!networkOf(network.id).labSets || networkOf(network.id).id !== network.id) throw new Error(`register ${network.id} as a network the lab sets first (common/setup/networks.js registerNetwork)`);
  if (!registered.some((r) => r.id === network.id)) registered.push(network);
}

/** Starts the networks registered beyond the lab's own; each is closed with the lab. */
export const startRegisteredNetworks = () => Promise.all(registered.map((r) => r.start()));

/**
 * What each declared capability needs of the network.
 * @type {Array<{ member: 'seedLoss'|'capture'|'relayTo', declares: (n: import('../common/setup/networks.js').Network) => boolean, says: string }>}
 */
const declared = [
  { member: 'seedLoss', declares: (n) => n.carries.loss, says: 'carries.loss' },
  { member: 'capture', declares: (n) => n.capturesPackets, says: 'capturesPackets' },
  { member: 'relayTo', declares: (n) => n.twinPorts, says: 'twinPorts' },
];

/**
 * The lab's networks by id, each checked against its registry entry: a capability declared and
 * not brought, or brought and not declared, is a programming error said at once.
 * @param {LabNetwork[]} list
 * @returns {Record<string, LabNetwork>}
 */
export function labNetworks(list) {
  for (const network of list) {
    const entry = networkOf(network.id);
    if (entry.id !== network.id || !entry.labSets) throw new Error(`${network.id} is not a network the lab sets (common/setup/networks.js)`);
    for (const { member, declares, says } of declared) {
      if (declares(entry) !== (network[member] !== null)) throw new Error(`the ${entry.title}'s ${member} does not match its registry entry's ${says}`);
    }
  }
  return Object.fromEntries(list.map((n) => [n.id, n]));
}

/**
 * The network the browser reaches servers through by twin ports (the lab link), with its relayTo.
 * @param {Record<string, LabNetwork>} networks
 */
export function twinPortNetwork(networks) {
  const network = Object.values(networks).find((n) => n.relayTo);
  if (!network?.relayTo) throw new Error('the lab runs no network of twin ports (common/setup/networks.js twinPorts)');
  return { network, relayTo: network.relayTo };
}
