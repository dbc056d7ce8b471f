// A page-load result (the Page load panel's, or `npm run page-loads`') as Markdown: what
// page-loads prints and what its HTML report shows. It only formats the result.
import { presetAppliedByText } from './network-check.js';
import { networkRecordOf } from './network-record.js';
import { networkOf } from '../setup/networks.js';
import { pageLoadLabels } from './page-load.js';
import { describePreset } from '../setup/presets.js';
import { noEarlyHintsText, serverLabel } from '../setup/servers.js';
import { levelText } from '../stats/stats.js';

/** @param {number|null|undefined} x */
const ms = (x) => (x == null ? '–' : x.toFixed(0));

/**
 * What the browser did with push and 103 in one mode's loads ('' for the others).
 * @param {import('./result.js').PageLoadRow} row
 * @param {number} assets  per page
 * @param {string} server  its id
 */
function whatHappened(row, assets, server) {
  if (row.mode === 'push') {
    if (row.refusedAll) return `push refused by the browser (${row.pushesRefused} refused): no number`;
    return row.noPushes ? 'nothing pushed: no number' : `${row.pushesSent} pushed, ${row.pushesRefused} refused`;
  }
  if (row.mode !== 'hints') return '';
  const none = noEarlyHintsText(server);
  if (none) return none;
  const lead = row.earlyLeadMs == null ? '' : `, the first ${ms(row.earlyLeadMs)} ms ahead (median)`;
  return `103 received in ${row.hint103Seen}/${row.n} loads, acted on in ${row.hintActedOn}; ${row.assetsRequestedEarly}/${row.n * assets} assets requested before the HTML${lead}`;
}

/** @param {import('./result.js').PageLoadResult} result */
export function pageLoadsMarkdown(result) {
  const s = result.settings;
  /** @type {Partial<import('./result.js').PageLoadEnvironment>} */
  const e = result.environment ?? {};
  const lines = [`# h2lab page loads · ${serverLabel(s.server)}`, ''];
  lines.push(`- ${s.assets} × ${s.assetKiB} KiB assets, think time ${s.thinkMs} ms, ${s.repeats} loads per mode, every load on new connections`);
  const network = networkOf(networkRecordOf(e).id);
  if (e.preset) lines.push(`- Network: ${describePreset(e.preset)}, ${network.labSets ? network.text : 'by DevTools throttling of the page-load window'}; applied by ${presetAppliedByText(e.presetAppliedBy) ?? 'not recorded'}`);
  if (network.caveat) lines.push(`- ${network.caveat}`);
  lines.push(`- Browser: ${e.browser ?? result.userAgent}`, `- Started ${result.startedAt}`, '');
  lines.push('Load time: navigation start → load event, ms.', '');
  lines.push('| mode | loads | median | CI · level | p95 | vs Requested | what happened |', '| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of result.summary) {
    const number = !row.noPushes; // a "push" time without pushes would mislead
    const ci = row.ci95 ? `${ms(row.ci95[0])}–${ms(row.ci95[1])}${row.ciLevel == null ? '' : ` · ${levelText(row.ciLevel)}`}` : '–';
    const vs = row.vsRequested ? `${row.vsRequested.ratio.toFixed(2)}× (${row.vsRequested.verdict})` : '–';
    const cells = number ? [ms(row.median), ci, ms(row.p95), vs] : ['–', '–', '–', '–'];
    lines.push(`| ${pageLoadLabels[row.mode]} | ${row.n} | ${cells.join(' | ')} | ${whatHappened(row, s.assets, s.server)} |`);
  }
  return `${lines.join('\n')}\n`;
}
