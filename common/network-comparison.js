// Experiments run under several networks (`--network devtools,link,packet`), side by side: per
// condition and server the median total time under each network, and each network's ratio to
// every one before it in the registry's order (common/networks.js), with the ratio's 95 %
// interval (stats.js compare over the valid runs' totals). summary.md, networks.csv and the
// report consume what this returns.
import { networkIds } from './networks.js';
import { summarizedServers } from './servers.js';
import { compare } from './stats.js';

/**
 * @typedef {object} NetworkRatio  one network's times against another's (stats.js compare)
 * @property {string} over   the network whose median is the numerator
 * @property {string} under  the one it is compared with
 * @property {number} ratio
 * @property {[number, number]|null} ci95  at ciLevel
 * @property {number|null} [ciLevel]
 * @property {import('./result.js').Verdict} verdict
 */

/**
 * @typedef {object} NetworkRow  one server at one condition
 * @property {string} label   the point's label
 * @property {number|string|undefined} value  the point's value of the swept setting
 * @property {string} server
 * @property {Record<string, number|null>} medians  per network
 * @property {NetworkRatio[]} ratios
 */

/**
 * @typedef {object} NetworkComparison  one experiment that ran under several networks
 * @property {string} baseId
 * @property {string} title
 * @property {string} paramLabel
 * @property {string[]} networks  in the registry's order
 * @property {NetworkRow[]} rows
 */

/** @param {import('./result.js').Result|undefined} result @param {string} server */
const totalsOf = (result, server) => (result?.runs ?? []).filter((r) => r.server === server && r.valid).map((r) => r.totalMs);

/**
 * One server at one condition: the medians per network and the ratios between them.
 * @param {import('./summary-markdown.js').ExperimentPoint} point
 * @param {Record<string, import('./summary-markdown.js').Experiment>} byNetwork
 * @param {string[]} networks
 * @param {string} server
 * @returns {NetworkRow}
 */
function row(point, byNetwork, networks, server) {
  const results = Object.fromEntries(networks.map((n) => [n, byNetwork[n].points.find((q) => q.value === point.value)?.result]));
  const medians = Object.fromEntries(networks.map((n) => [n, results[n]?.summary[server]?.median ?? null]));
  const ratios = networks.flatMap((over, j) =>
    networks.slice(0, j).flatMap((under) => {
      const [a, b] = [totalsOf(results[over], server), totalsOf(results[under], server)];
      return a.length && b.length ? [{ over, under, ...compare(a, b) }] : [];
    }),
  );
  return { label: point.label, value: point.value, server, medians, ratios };
}

/**
 * @param {import('./summary-markdown.js').Experiment[]} experiments
 * @returns {NetworkComparison[]} only the experiments that ran under two networks or more
 */
export function compareNetworks(experiments) {
  /** @type {Map<string|undefined, import('./summary-markdown.js').Experiment[]>} */
  const groups = new Map();
  for (const e of experiments.filter((x) => x.baseId && x.network)) groups.set(e.baseId, [...(groups.get(e.baseId) ?? []), e]);
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => {
      const byNetwork = Object.fromEntries(group.map((e) => [/** @type {string} */ (e.network), e]));
      const networks = networkIds.filter((n) => byNetwork[n]);
      const first = byNetwork[networks[0]];
      const servers = summarizedServers(group.flatMap((e) => e.points.map((p) => p.result)));
      const rows = first.points.flatMap((p) => servers.map((server) => row(p, byNetwork, networks, server)));
      return { baseId: /** @type {string} */ (first.baseId), title: first.baseTitle ?? first.title, paramLabel: first.paramLabel, networks, rows };
    });
}
