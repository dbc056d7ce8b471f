// The networks a run can be throttled by, declared once (as common/setup/servers.js declares the
// servers): what each is called, who applies its conditions and at what level, what it needs and
// what it carries. Every part of the lab asks this registry; none compares network names.
// The lab's own networks (the link, the packet network) share one path model (server/path/) and
// one interface in the lab (server/lab-networks.js), which checks each against its entry here.
import { oneOfText } from './text.js';

/**
 * @typedef {'devtools'|'link'|'packet'} NetworkId
 * @typedef {object} Network
 * @property {NetworkId} id          what URLs, files, results and --network use
 * @property {string} title          short, in chart titles and tables ("lab link")
 * @property {string} option         the page's "Throttled by" choice
 * @property {string} text           how a result's network applied its preset, in words
 * @property {boolean} labSets       the lab applies the conditions (below TLS), not the browser's DevTools
 * @property {boolean} twinPorts     the browser reaches each server at its twin port (server.linkOrigin)
 * @property {boolean} ownLab        it runs its own lab and browser (server/packet/launch.py), not a lab already running
 * @property {string|null} needs     what it needs to run beyond the lab, or null
 * @property {{ offline: boolean, loss: boolean }} carries  Offline (nothing passes: only request-level
 *   throttling can fail requests rather than hang connections); packet loss
 * @property {boolean} capturesPackets  it sees every packet, so a run can be captured (server/packet/capture.js);
 *   DevTools and the link see requests and TCP streams
 * @property {boolean} checksDownload  a calibration's download estimate is comparable with the
 *   preset's rate (common/report/network-check.js says why not on packets)
 * @property {string|null} caveat  what a reader of its results must know, said wherever they appear
 * @property {string|null} why  for a network the lab sets, what it does, in the page's "why" paragraph
 *   (DevTools's depends on who applies the preset: client/ui/settings-form.js)
 * @property {string|null} appliedBy  for a network the lab sets, who applied a result's preset (environment.presetAppliedBy)
 * @property {boolean} devtoolsProtocol  it needs the browser's DevTools Protocol (common/setup/browser-names.js says who speaks it)
 */

/**
 * The networks, the lab's own three first; registerNetwork adds one more (a lab started with a
 * network of its own, and the page that the lab describes it to). Read it, never write it.
 * @type {Readonly<Network>[]}
 */
export const networks = (
  [
    {
      id: 'devtools', title: 'DevTools', option: 'DevTools', text: 'by DevTools throttling (request-level)',
      labSets: false, twinPorts: false, ownLab: false, needs: null, carries: { offline: true, loss: false }, capturesPackets: false, checksDownload: true, caveat: null,
      why: null, appliedBy: null, devtoolsProtocol: true,
    },
    {
      id: 'link', title: 'lab link', option: 'Lab link (the lab sets it)', text: 'through the lab link (connection-level, below TLS)',
      labSets: true, twinPorts: true, ownLab: false, needs: null, carries: { offline: false, loss: false }, capturesPackets: false, checksDownload: true,
      why:
        'The lab link shapes every connection below TLS, handshakes included, with one bandwidth for all of them: the lab sets it to ' +
        'the preset for the run and puts it back afterwards. Nothing to set in DevTools (leave its throttling off).',
      appliedBy: 'the lab link', devtoolsProtocol: false,
      // Its asymmetry, measured in docs/throttling.md.
      caveat:
        "The lab link's asymmetry: TCP ends on loopback at the link's relay, so it sees an ideal pipe (no slow start, no loss recovery), while QUIC's datagrams cross the link end to end under QUIC's real congestion control, which skews HTTP/3 against HTTP/2 through the link.",
    },
    {
      id: 'packet', title: 'packet network', option: 'Lab network (packets)', text: 'on the packet network (real TCP and QUIC on an emulated path)',
      labSets: true, twinPorts: false, ownLab: true, needs: 'user namespaces (server/packet/launch.py)', carries: { offline: false, loss: true }, capturesPackets: true, checksDownload: false, caveat: null,
      why:
        'The lab network carries every packet between this browser and the servers through an emulator: the preset\'s round trip and ' +
        'rates, a queue of one bandwidth-delay product, and the loss below, each way. Real TCP and QUIC meet it (slow start, ' +
        'retransmissions): the page sets it for the run and puts it back afterwards, and the result records what the emulator ' +
        'delivered and dropped. Leave DevTools throttling off.',
      appliedBy: 'the packet network, set by the page for the run', devtoolsProtocol: false,
    },
  ].map((n) => Object.freeze(/** @type {Network} */ (n)))
);

/** @type {string[]} NetworkId values, typed as strings for checks of untrusted input; in step with networks */
export const networkIds = networks.map((n) => n.id);

/** What a registered network must declare: every field of a Network, each of its type. */
const fieldTypes = {
  id: 'string', title: 'string', option: 'string', text: 'string', labSets: 'boolean', twinPorts: 'boolean', ownLab: 'boolean',
  capturesPackets: 'boolean', checksDownload: 'boolean', devtoolsProtocol: 'boolean', carries: 'object',
};
const nullableStrings = ['needs', 'caveat', 'why', 'appliedBy'];

/**
 * Adds a network to the registry, as the lab's own are declared above: a new network is this
 * entry and its lab side (server/lab-networks.js registerLabNetwork), nothing else. An entry the
 * registry has already (the same id, the same fields) is taken once; another under a taken id is refused.
 * @param {unknown} entry
 * @returns {Readonly<Network>}
 */
export function registerNetwork(entry) {
  const e = /** @type {Record<string, unknown>} */ (entry ?? {});
  const bad = Object.entries(fieldTypes).find(([k, type]) => typeof e[k] !== type || e[k] === null) ?? nullableStrings.map((k) => [k, 'string or null']).find(([k]) => e[k] !== null && typeof e[k] !== 'string');
  if (bad) throw new TypeError(`a network entry needs ${bad[0]}: ${bad[1]}`);
  const carries = /** @type {Record<string, unknown>} */ (e.carries);
  if (typeof carries.offline !== 'boolean' || typeof carries.loss !== 'boolean') throw new TypeError('a network entry needs carries: { offline: boolean, loss: boolean }');
  const known = networkById(/** @type {string} */ (e.id));
  if (known) {
    if (JSON.stringify(known) !== JSON.stringify(e)) throw new Error(`network ${known.id} is registered already, with other fields`);
    return known;
  }
  const network = Object.freeze(/** @type {Network} checked above */ ({ ...e, carries: Object.freeze({ ...carries }) }));
  networks.push(network);
  networkIds.push(network.id);
  return network;
}

export const defaultNetworkId = 'devtools';

/**
 * The network of an id; undefined for one the lab does not know.
 * @param {string|null|undefined} id
 */
export const networkById = (id) => networks.find((n) => n.id === id);

/**
 * The network of a result or settings (results from before the field existed ran under DevTools).
 * @param {string|null|undefined} id
 * @returns {Readonly<Network>}
 */
export const networkOf = (id) => networkById(id ?? defaultNetworkId) ?? /** @type {Readonly<Network>} */ (networkById(defaultNetworkId));

/** "devtools, link or packet" */
export const networkChoicesText = oneOfText(networkIds);
