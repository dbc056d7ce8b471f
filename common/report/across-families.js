// Verdicts across implementations: comparisons stay within a family (common/setup/servers.js
// baselinesOf), and this view sets the same protocol pair side by side in every family that
// measured it (HTTP/3 against HTTP/2 in Caddy and in nginx), saying whether the verdicts agree,
// so a reader can tell "HTTP/3 is faster" from "quic-go is faster". Built from the judged result
// objects; summary.md and the page only render it.
import { families, protocolTitles, serverById, twinOf } from '../setup/servers.js';
import { verdicts } from '../stats/stats.js';

/**
 * @typedef {object} FamilyVerdict  one family's comparison of the pair
 * @property {string} family
 * @property {import('./result.js').Comparison} comparison
 * @typedef {object} AcrossRow  one protocol pair at one point
 * @property {string} label  the point's label ('' for an experiment of one point)
 * @property {string} pair   "HTTP/3 vs HTTP/2"
 * @property {FamilyVerdict[]} byFamily  in the registry's order of families
 * @property {'agree'|'differ'|'open'} agreement  every family decided alike; two decided
 *   differently; or none differ yet, but one or more is undecided
 * @property {string} text  the agreement in words
 */

/** @param {import('./result.js').Comparison} c */
const pairOf = (c) => `${protocolTitles[/** @type {NonNullable<ReturnType<typeof serverById>>} compared servers are known */ (serverById(c.server)).protocol]} vs ${protocolTitles[/** @type {NonNullable<ReturnType<typeof serverById>>} */ (serverById(c.baseline)).protocol]}`;

/** @param {string} family */
export const familyTitle = (family) => families[family]?.title ?? family;

/** @param {string[]} names */
const and = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/** @param {FamilyVerdict[]} byFamily @returns {Pick<AcrossRow, 'agreement'|'text'>} */
function agreementOf(byFamily) {
  const decided = byFamily.filter((f) => f.comparison.verdict !== verdicts.unclear);
  const open = byFamily.filter((f) => f.comparison.verdict === verdicts.unclear).map((f) => familyTitle(f.family));
  const kinds = [...new Set(decided.map((f) => f.comparison.verdict))];
  /** @param {string} v */
  const where = (v) => `${v} in ${and(decided.filter((f) => f.comparison.verdict === v).map((f) => familyTitle(f.family)))}`;
  if (kinds.length > 1) return { agreement: 'differ', text: `differ: ${kinds.map(where).join(', ')}${open.length ? `; undecided in ${and(open)}` : ''}` };
  if (!open.length) return { agreement: 'agree', text: `agree: ${where(kinds[0])}` };
  return { agreement: 'open', text: kinds.length ? `${where(kinds[0])}; undecided in ${and(open)}` : `undecided in ${and(open)}` };
}

/**
 * Each protocol pair that two or more families measured, per point.
 * @param {Array<{ label?: string, result: import('./result.js').Result }>} points
 * @returns {AcrossRow[]}
 */
export function acrossFamilies(points) {
  const order = Object.keys(families);
  return points.flatMap((p) => {
    /** @type {Map<string, FamilyVerdict[]>} */
    const byPair = new Map();
    for (const c of p.result.comparisons) {
      const server = serverById(c.server);
      if (!server || twinOf(c.server) !== null || !serverById(c.baseline)) continue;
      const pair = pairOf(c);
      byPair.set(pair, [...(byPair.get(pair) ?? []), { family: server.family, comparison: c }]);
    }
    return [...byPair]
      .filter(([, byFamily]) => byFamily.length > 1)
      .map(([pair, byFamily]) => {
        const sorted = [...byFamily].sort((a, b) => order.indexOf(a.family) - order.indexOf(b.family));
        return { label: p.label ?? '', pair, byFamily: sorted, ...agreementOf(sorted) };
      });
  });
}

/**
 * A row in one sentence, for the page's findings: "HTTP/3 vs HTTP/2 across implementations:
 * Caddy (quic-go) 0.85× faster, nginx 1.01× no meaningful difference; they differ".
 * @param {AcrossRow} r
 */
export const acrossSentence = (r) =>
  `${r.label ? `${r.label}: ` : ''}${r.pair} across implementations: ${r.byFamily.map((f) => `${familyTitle(f.family)} ${f.comparison.ratio.toFixed(2)}× ${f.comparison.verdict}`).join(', ')}; ${r.text}.`;
