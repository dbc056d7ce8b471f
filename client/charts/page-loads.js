// Page load time per mode: one median bar per mode (median-bars.js), every load as a dot. A Push
// mode in which no push happened (the browser refused them all, or HTTP/1.1 has none) loaded
// plain pages: it gets a note instead of a bar, since a "push" time there would mislead.
import { drawMedianBars } from './median-bars.js';
import { modeColor } from './palette.js';
import { formatMs, pageLoadSummary } from './setup.js';
import { serverById, serverLabel } from '../../common/setup/servers.js';
import { pageLoadLabels } from '../../common/report/page-load.js';

/** @typedef {import('../../common/report/result.js').PageLoadRow} PageLoadRow */
/** @typedef {import('../../common/report/result.js').PageLoadSettings} PageLoadSettings */

/** @param {string} mode any, from an imported file too */
const modeLabel = (mode) => pageLoadLabels[mode] ?? mode;

/**
 * Why a summary row has no number of its own, as { label, note, shortNote }, or null when it has one.
 * @param {PageLoadRow} row
 * @param {PageLoadSettings} settings
 */
function withoutNumber(row, settings) {
  if (!row.noPushes) return null;
  const shortNote = 'No number: no push happened';
  if (row.refusedAll) {
    return {
      label: 'Push (refused by browser)',
      note: `No number: the browser refused all ${row.pushesRefused} pushes, so these ${row.n} loads were plain pages`,
      shortNote,
    };
  }
  const canPush = serverById(settings.server)?.capabilities.push;
  const why = canPush ? 'nothing was pushed' : `${serverLabel(settings.server)} has no server push`;
  return { label: canPush ? 'Push (none sent)' : `Push (none on ${serverLabel(settings.server)})`, note: `No number: ${why}, so these ${row.n} loads were plain pages`, shortNote };
}

/** @param {PageLoadRow} row one compared with Requested (vsRequested set) */
const ratioText = (row) => {
  const { ratio, verdict } = /** @type {import('../../common/report/result.js').Ratio} */ (row.vsRequested);
  return `${modeLabel(row.mode)} ${ratio.toFixed(2)}× Requested (${verdict})`;
};

/**
 * What a load adds to its tooltip where its mode did something the plain page does not.
 * @param {import('../../common/report/result.js').PageLoad} load
 * @param {PageLoadSettings} settings
 */
function loadDetail(load, settings) {
  if (load.mode === 'hints') return `${load.hint103Ms ? '103 received' : 'no 103'}; ${load.earlyHintAssets} of ${settings.assets} assets as early hints`;
  if (load.mode === 'push') return `${load.pushesSent} pushed`;
  return '';
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {import('../../common/report/result.js').PageLoadResult} result  what runPageLoads (../lab/page-load.js) returns
 * @param {{ chartOptions?: object }} [o]  chartOptions: deep-merged into the chart.js options
 * @returns {import('./setup.js').AnyChart}
 */
export function drawPageLoads(canvas, result, o) {
  const settings = result.settings ?? {};
  const summary = result.summary ?? [];
  const categories = summary.map((row) => {
    const missing = withoutNumber(row, settings);
    const loads = missing ? [] : (result.loads ?? []).filter((l) => l.mode === row.mode);
    return {
      id: row.mode,
      label: missing?.label ?? modeLabel(row.mode),
      color: modeColor(row.mode),
      summary: missing ? null : row,
      points: loads.map((l) => ({ y: l.loadMs, repeat: l.repeat, valid: true, detail: loadDetail(l, settings) })),
      barDetail: [`p95 ${formatMs(row.p95)}`, ...(row.vsRequested ? [ratioText(row)] : [])],
      note: missing?.note,
      shortNote: missing?.shortNote,
    };
  });

  const n = summary.map((row) => row.n);
  const loadsPerMode = n.every((x) => x === settings.repeats) ? `${settings.repeats}` : `${n.join('/')} of ${settings.repeats}`;
  const subtitle = [
    pageLoadSummary(result),
    'cold connections',
    `${loadsPerMode} loads per mode`,
    ...categories.filter((c) => c.summary?.vsRequested).map((c) => ratioText(/** @type {PageLoadRow} filtered */ (c.summary))),
  ].join(' · ');

  return drawMedianBars(
    canvas,
    { title: 'Page load time per mode', subtitle, xTitle: 'Mode', yTitle: 'Page load time (ms)', categories, pointsLabel: 'individual loads', emptyText: 'no loads' },
    o,
  );
}
