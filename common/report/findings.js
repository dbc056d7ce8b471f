// Findings first: what an experiment found, in sentences a reader acts on, before its tables and
// charts (as Lighthouse's report leads with what it found). Built once here from the judged
// result objects; summary.md (and so report.html), the page's export and the page's results only
// render the array. One sentence per decided comparison with its ratio, interval, level and scope,
// then each undecided one with what its runs could have found (common/stats/detectable.js).
import { detectablePower } from '../stats/detectable.js';
import { scopeText } from '../stats/family.js';
import { serverLabel, twinOf } from '../setup/servers.js';
import { levelText, practicalMargin, verdictLevel, verdicts } from '../stats/stats.js';

/** @typedef {import('./result.js').Comparison} Comparison */
/** @typedef {{ label?: string, result: import('./result.js').Result }} FindingPoint  a point, labelled where an experiment has several */

/** @param {number} x */
const two = (x) => x.toFixed(2);

/** @param {Comparison} c */
const who = (c) => (twinOf(c.server) === null ? serverLabel(c.server) : `${serverLabel(c.baseline)} measured again (the A/A control)`);

/** @param {Comparison} c  "[0.55–0.70], 99.7 % level" with ", paired over 8 pairs" where paired */
function intervalText(c) {
  if (!c.ci95) return 'no interval: too few valid runs (at least 2 on each side)';
  const paired = c.paired ? `, paired over ${c.pairs} pairs` : '';
  return `[${two(c.ci95[0])}–${two(c.ci95[1])}], ${levelText(c.ciLevel, 1)} level${paired}`;
}

/**
 * What a comparison's runs could have found: "with 80 % power these runs would have found a ratio
 * below 0.90× or above 1.11× at the 97.5 % its step of Holm's ladder needed"; '' for a result saved
 * before it was recorded. Also the table cells of summary.md say it, shorter (detectableCell).
 * @param {Comparison} c
 */
export function detectableText(c) {
  const needed = levelText(c.requiredLevel ?? verdictLevel, 1);
  if (c.detectable === undefined) return c.ci95 ? '' : 'more valid runs would give an interval';
  // A look that cannot decide spends none of the rate (until-decided.js lookShares): it needs 100 %.
  if (c.detectable === null && (c.requiredLevel ?? 0) >= 1) return 'these runs could decide nothing at this look, which spends none of the rate: more repeats can';
  if (c.detectable === null) return `these runs cannot reach the ${needed} a verdict needed at any difference: more repeats can`;
  return `with ${levelText(detectablePower)} power these runs would have found a ratio below ${two(c.detectable[0])}× or above ${two(c.detectable[1])}× at the ${needed} its step of Holm's ladder needed`;
}

/**
 * The short form for a table cell: "could find < 0.90× or > 1.11× (80 % power)"; '' where nothing is recorded.
 * @param {Comparison} c
 */
export function detectableCell(c) {
  if (c.detectable === undefined) return '';
  if (c.detectable === null) return 'no difference findable at this level with these runs';
  return `could find < ${two(c.detectable[0])}× or > ${two(c.detectable[1])}× (${levelText(detectablePower)} power)`;
}

/**
 * A decided comparison in one sentence: "node:http2 took 0.62× HTTP/1.1's time [0.55–0.70], 99.6 %
 * level: faster, 5 % across the 12 comparisons of this experiment".
 * @param {Comparison} c @param {string} scope
 */
function decidedSentence(c, scope) {
  const verdict = c.verdict === verdicts.meaningless ? `no meaningful difference (within ±${practicalMargin * 100} %)` : c.verdict;
  const noise = c.insideControl ? `; inside the A/A control's ${two(c.insideControl[0])}–${two(c.insideControl[1])}, so not a finding` : '';
  return `${who(c)} took ${two(c.ratio)}× ${serverLabel(c.baseline)}'s time ${intervalText(c)}: ${verdict}, ${scope}${noise}.`;
}

/** @param {Comparison} c */
function undecidedSentence(c) {
  const could = detectableText(c);
  return `Undecided: ${who(c)} against ${serverLabel(c.baseline)}, ${two(c.ratio)}× ${intervalText(c)}${could ? `; ${could}` : ''}.`;
}

/**
 * The one line of an experiment without a comparison: one server, nothing to compare it with.
 * @param {FindingPoint[]} points
 */
function aloneLine(points) {
  const servers = [...new Set(points.flatMap((p) => Object.keys(p.result.summary)))];
  const name = servers.map(serverLabel).join(', ') || 'No server';
  const only = points.length === 1 ? points[0].result.summary[servers[0]] : undefined;
  const median = only?.median == null ? '' : `: median ${only.median.toFixed(only.median < 100 ? 1 : 0)} ms`;
  return `${name} alone${median}; no comparison, so no verdict.`;
}

/**
 * The findings of one experiment (the points judged together, common/stats/family.js), as sentences:
 * its decided comparisons, then its undecided ones with what they could have found; one line
 * when it compares nothing.
 * @param {FindingPoint[]} points
 * @param {string} [paramLabel]  the varied setting's name, to say which point a sentence is about
 * @returns {string[]}
 */
export function findings(points, paramLabel = '') {
  const all = points.flatMap((p) => p.result.comparisons.map((c) => ({ c, at: points.length > 1 && p.label ? `${paramLabel ? `${paramLabel} ` : ''}${p.label}: ` : '', family: p.result.family })));
  if (!all.length) return [aloneLine(points)];
  const decided = all.filter(({ c }) => c.verdict !== verdicts.unclear).map(({ c, at, family }) => `${at}${decidedSentence(c, scopeText(family))}`);
  const open = all.filter(({ c }) => c.verdict === verdicts.unclear).map(({ c, at }) => `${at}${undecidedSentence(c)}`);
  return [...(decided.length ? decided : [`No comparison decided (${scopeText(all[0].family)}).`]), ...open];
}
