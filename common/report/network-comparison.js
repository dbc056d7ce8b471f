// Experiments run under several networks (`--network devtools,link,packet`), or in several
// browsers (`--browser chromium,firefox`), side by side: per condition and server the median
// total time under each network (in each browser), and each one's ratio to every one before it
// in the registry's order (common/setup/networks.js, common/setup/browser-names.js), with the ratio's 95 %
// interval (stats.js compare over the valid runs' totals), the verdicts of each table judged across
// all its ratios (Holm's step-down, common/stats/family.js). summary.md, networks.csv, browsers.csv and
// the report consume what this returns.
import { networkIds } from '../setup/networks.js';
import { browserNames } from '../setup/browser-names.js';
import { summarizedServers } from '../setup/servers.js';
import { compare } from '../stats/stats.js';
import { holmLevels } from '../stats/family.js';

/**
 * @typedef {object} NetworkRatio  one network's (browser's) times against another's (stats.js compare)
 * @property {string} over   the network (browser) whose median is the numerator
 * @property {string} under  the one it is compared with
 * @property {number} ratio
 * @property {[number, number]|null} ci95  at ciLevel
 * @property {number|null} [ciLevel]
 * @property {import('./result.js').Verdict} verdict
 * @property {number} [pDecided]  stats.js compare's
 * @property {number} [requiredLevel]  its step of Holm's ladder over the table's ratios, where more than 95 %
 */

/**
 * @typedef {object} NetworkRow  one server at one condition
 * @property {string} label   the point's label
 * @property {number|string|undefined} value  the point's value of the swept setting
 * @property {string} server
 * @property {Record<string, number|null>} medians  per network (browser)
 * @property {NetworkRatio[]} ratios
 */

/**
 * @typedef {object} NetworkComparison  one experiment that ran under several networks (in several browsers)
 * @property {string} baseId
 * @property {string} title
 * @property {string} paramLabel
 * @property {string[]} sides  the networks (browsers), in the registry's order
 * @property {NetworkRow[]} rows
 * @property {number} [family]  the ratios its verdicts keep 5 % false verdicts across (Holm's step-down)
 */

/** @param {import('./result.js').Result|undefined} result @param {string} server */
const totalsOf = (result, server) => (result?.runs ?? []).filter((r) => r.server === server && r.valid).map((r) => r.totalMs);

/**
 * One server at one condition: the medians per side and the ratios between them.
 * @param {import('./summary-markdown.js').ExperimentPoint} point
 * @param {Record<string, import('./summary-markdown.js').Experiment>} bySide
 * @param {string[]} sides
 * @param {string} server
 * @returns {NetworkRow & { totals: (side: string) => number[] }}  totals: the valid runs' times under a side, for judgedRows
 */
function row(point, bySide, sides, server) {
  const results = Object.fromEntries(sides.map((n) => [n, bySide[n].points.find((q) => q.value === point.value)?.result]));
  const medians = Object.fromEntries(sides.map((n) => [n, results[n]?.summary[server]?.median ?? null]));
  const ratios = sides.flatMap((over, j) =>
    sides.slice(0, j).flatMap((under) => {
      const [a, b] = [totalsOf(results[over], server), totalsOf(results[under], server)];
      return a.length && b.length ? [{ over, under, ...compare(a, b) }] : [];
    }),
  );
  return { label: point.label, value: point.value, server, medians, ratios, totals: (/** @type {string} */ n) => totalsOf(results[n], server) };
}

/**
 * A table's rows with every ratio drawn again at the level its step of Holm's ladder over the
 * table's ratios needs, as an experiment's comparisons are (common/stats/family.js).
 * @param {Array<NetworkRow & { totals: (side: string) => number[] }>} rows
 * @returns {{ rows: NetworkRow[], family: number }}
 */
function judgedRows(rows) {
  const entries = rows.flatMap((r, point) => r.ratios.map((x) => ({ point, key: `${x.over} ${x.under}`, share: 1, p: x.pDecided ?? 1 })));
  const levels = holmLevels(entries, entries.length);
  const judged = rows.map(({ totals, ...r }, point) => ({
    ...r,
    ratios: r.ratios.map((x) => ({ over: x.over, under: x.under, ...compare(totals(x.over), totals(x.under), undefined, levels.get(`${point} ${x.over} ${x.under}`)) })),
  }));
  return { rows: judged, family: entries.length };
}

/**
 * Experiments that differ in `side` alone (they share `base`), side by side.
 * @param {import('./summary-markdown.js').Experiment[]} experiments
 * @param {'network'|'browser'} side  what differs
 * @param {'baseId'|'browserBaseId'} base  what they share
 * @param {readonly string[]} order  every value of `side`, in the order of the columns
 * @returns {NetworkComparison[]} only the experiments that ran under two sides or more
 */
function sideBySide(experiments, side, base, order) {
  /** @type {Map<string|undefined, import('./summary-markdown.js').Experiment[]>} */
  const groups = new Map();
  for (const e of experiments.filter((x) => x[base] && x[side])) groups.set(e[base], [...(groups.get(e[base]) ?? []), e]);
  return [...groups.values()]
    .filter((group) => group.length > 1)
    .map((group) => {
      const bySide = Object.fromEntries(group.map((e) => [/** @type {string} */ (e[side]), e]));
      const sides = order.filter((n) => bySide[n]);
      const first = bySide[sides[0]];
      const servers = summarizedServers(group.flatMap((e) => e.points.map((p) => p.result)));
      const { rows, family } = judgedRows(first.points.flatMap((p) => servers.map((server) => row(p, bySide, sides, server))));
      return { baseId: /** @type {string} */ (first[base]), title: (side === 'network' ? first.baseTitle : first.browserBaseTitle) ?? first.title, paramLabel: first.paramLabel, sides, rows, family };
    });
}

/**
 * @param {import('./summary-markdown.js').Experiment[]} experiments
 * @returns {NetworkComparison[]} only the experiments that ran under two networks or more
 */
export const compareNetworks = (experiments) => sideBySide(experiments, 'network', 'baseId', networkIds);

/**
 * @param {import('./summary-markdown.js').Experiment[]} experiments
 * @returns {NetworkComparison[]} only the experiments that ran in two browsers or more
 */
export const compareBrowsers = (experiments) => sideBySide(experiments, 'browser', 'browserBaseId', browserNames);
