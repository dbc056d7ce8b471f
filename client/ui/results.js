// Renders one result object: verdicts, the summary table, the charts and their PNG buttons.
// It only reads the result; measuring and storing happen elsewhere.
import { drawConnections, hasConnections } from '../charts/connections.js';
import { drawDistribution } from '../charts/distribution.js';
import { chartPng, settingsText } from '../charts/png.js';
import { drawTotal } from '../charts/total.js';
import { drawWaterfall } from '../charts/waterfall.js';
import { download, fileStem } from '../export/download.js';
import { calibrationText, mismatchText, networkRecordText } from '../../common/report/network-check.js';
import { networkRecordOf } from '../../common/report/network-record.js';
import { measuredServers, serverLabel } from '../../common/setup/servers.js';
import { levelText, verdictText } from '../../common/stats/stats.js';
import { lossSeedText, seededLosses } from '../../common/setup/seeds.js';
import { roundsText } from '../../common/stats/until-decided.js';
import { scopeText } from '../../common/stats/family.js';
import { findings } from '../../common/report/findings.js';
import { acrossFamilies, acrossSentence } from '../../common/report/across-families.js';
import { invalidText } from '../../common/stats/validity.js';

/** @typedef {import('../../common/report/result.js').Result} Result */
/** @typedef {import('../charts/setup.js').AnyChart} AnyChart */
/** @typedef {{ settingsText: string, file: string }} ChartInfo  a PNG's footer and file name (without .png) */

/** @param {number|null|undefined} ms */
const fmt = (ms) => (ms == null || Number.isNaN(ms) ? '–' : ms.toFixed(ms < 100 ? 1 : 0));

/**
 * Draws a chart on a figure's canvas, replacing the one before, and wires its PNG button.
 * @param {HTMLElement} figure  one of index.html's, with a canvas and a .png button
 * @returns {(draw: (canvas: HTMLCanvasElement) => AnyChart, info: ChartInfo) => AnyChart|null} draws; null when it cannot
 */
export function chartSlot(figure) {
  /** @type {AnyChart|null} */
  let chart = null;
  /** @type {(ChartInfo & { title?: string|string[] })|null} set with the chart */
  let pngInfo = null;
  const pngButton = /** @type {HTMLButtonElement} */ (figure.querySelector('.png'));
  pngButton.addEventListener('click', async () => {
    if (!chart || !pngInfo) return;
    const png = await chartPng(chart, pngInfo);
    download(`${pngInfo.file}.png`, png, 'image/png');
  });
  const message = figure.querySelector('.chart-message') ?? figure.appendChild(Object.assign(document.createElement('p'), { className: 'chart-message errors' }));
  return (draw, info) => {
    chart?.destroy();
    chart = null;
    message.textContent = '';
    try {
      chart = draw(/** @type {HTMLCanvasElement} */ (figure.querySelector('canvas')));
    } catch (err) {
      message.textContent = `Cannot draw this chart: ${/** @type {Error} */ (err).message}`;
      return null;
    }
    pngInfo = { title: /** @type {string|string[]|undefined} chart.js types it deep-partial */ (chart.options.plugins?.title?.text), ...info };
    pngButton.setAttribute('aria-label', `PNG of ${pngInfo.title ?? 'this chart'}`);
    return chart;
  };
}

/**
 * The line above a result: its settings, how it ended, and the network it ran on as set and as measured.
 * @param {Result} result
 */
function runLabel(result) {
  return `${settingsText(result)}${result.stopped ? ` · stopped early${result.stopReason && result.stopReason !== 'stopped' ? ` (${result.stopReason})` : ''}: only the runs that finished are shown` : ''}` +
    (networkRecordOf(result.environment).conditions ? ` · ${networkRecordText(networkRecordOf(result.environment))}` : '') +
    (seededLosses(result) ? ` · ${lossSeedText(/** @type {number} seededLosses */ (result.settings.lossSeed))}` : '') +
    (result.environment.calibration
      ? ` · measured network: ${calibrationText(result.environment.calibration)}`
      : '');
}

/**
 * The findings in words first (common/report/findings.js), each protocol pair across the families
 * that measured it (across-families.js), then each verdict in full.
 * @param {HTMLElement} section  index.html's #results
 * @param {Result} result
 */
function showVerdicts(section, result) {
  const found = [...findings([{ result }]), ...acrossFamilies([{ result }]).map(acrossSentence)];
  /** @type {HTMLElement} */ (section.querySelector('#findings')).replaceChildren(...found.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  const verdicts = /** @type {HTMLElement} */ (section.querySelector('#verdicts'));
  verdicts.replaceChildren(...result.comparisons.map((c) => Object.assign(document.createElement('li'), { textContent: verdictText(c) })));
  if (!result.comparisons.length) verdicts.append(Object.assign(document.createElement('li'), { textContent: 'No verdict: choose HTTP/1.1 and at least one HTTP/2 server.' }));
  else verdicts.append(Object.assign(document.createElement('li'), { textContent: `Scope: false "faster" or "slower" verdicts within ${scopeText(result.family)} (Holm's step-down; each verdict says the level it needed).` }));
  const rounds = roundsText(result);
  if (rounds) verdicts.prepend(Object.assign(document.createElement('li'), { textContent: `Until decided: ${rounds}.` }));
}

/**
 * What went wrong, a line each: a measured network that does not match its preset, invalid runs,
 * failed requests.
 * @param {Result} result
 */
function problemsOf(result) {
  /** @type {string[]} */
  const problems = [];
  const mismatches = result.environment.networkMismatches ?? [];
  if (mismatches.length) problems.push(mismatchText(result.environment.preset, mismatches));
  for (const run of result.runs) {
    if (!run.valid) problems.push(`${serverLabel(run.server)}, repeat ${run.repeat}: invalid — ${invalidText(run)}`);
    if (run.failures) {
      const reasons = [...new Set(run.requests.filter((r) => r.error).map((r) => r.error))].slice(0, 3).join('; ');
      problems.push(`${serverLabel(run.server)}, repeat ${run.repeat}: ${run.failures} of ${run.requests.length} requests failed (${reasons})`);
    }
  }
  return problems;
}

/**
 * A server's row of the summary table.
 * @param {Result} result
 * @param {string} id  the server's
 */
function summaryRow(result, id) {
  const sum = result.summary[id];
  const runs = result.runs.filter((r) => r.server === id);
  const tr = document.createElement('tr');
  const cells = [
    serverLabel(id),
    sum?.n ?? 0,
    fmt(sum?.median),
    fmt(sum?.mean),
    fmt(sum?.p95),
    fmt(sum?.min),
    fmt(sum?.max),
    fmt(sum?.sd),
    sum?.ci95 ? `${fmt(sum.ci95[0])} – ${fmt(sum.ci95[1])}${sum.ciLevel == null ? '' : ` · ${levelText(sum.ciLevel)}`}` : '–',
    fmt(sum?.serverCpuMs),
    sum?.connectionsPerRun ?? '–',
    runs.reduce((n, r) => n + r.failures, 0),
    runs.filter((r) => !r.valid).length,
  ];
  cells.forEach((v, i) => Object.assign(tr.insertCell(), { textContent: v, className: i ? 'num' : '' }));
  return tr;
}

/**
 * @param {HTMLElement} section  index.html's #results
 * @returns {(result: Result) => Promise<void>} shows a result
 */
export function createResultsView(section) {
  /** @type {Record<string, ReturnType<typeof chartSlot>>} by data-chart */
  const slots = Object.fromEntries(
    [.../** @type {NodeListOf<HTMLElement>} */ (section.querySelectorAll('figure[data-chart]'))].map((f) => [f.dataset.chart, chartSlot(f)]),
  );
  const serverSelect = /** @type {HTMLSelectElement} */ (section.querySelector('#waterfall-server'));
  const repeatSelect = /** @type {HTMLSelectElement} */ (section.querySelector('#waterfall-repeat'));
  /** @type {Result} set before any control can change */
  let current;

  function fillRepeats() {
    const repeats = current.runs.filter((r) => r.server === serverSelect.value).map((r) => r.repeat);
    repeatSelect.replaceChildren(...repeats.map((r) => new Option(String(r), String(r))));
  }

  function drawWaterfallChoice() {
    const server = serverSelect.value;
    const repeat = Number(repeatSelect.value);
    slots.waterfall((c) => drawWaterfall(c, current, { server, repeat }), {
      settingsText: settingsText(current),
      file: `${fileStem(current)}-waterfall-${server}-${repeat}`,
    });
  }
  // The per-connection view: every server's run of one repeat (or each one's median run), from its packet capture.
  const connectionsFigure = /** @type {HTMLElement} */ (section.querySelector('figure[data-chart=connections]'));
  const connectionsSelect = /** @type {HTMLSelectElement} */ (section.querySelector('#connections-repeat'));
  function drawConnectionsChoice() {
    const repeat = connectionsSelect.value === '' ? null : Number(connectionsSelect.value);
    slots.connections((c) => drawConnections(c, current, { repeat }), {
      settingsText: settingsText(current),
      file: `${fileStem(current)}-connections-${repeat ?? 'median'}`,
    });
  }
  connectionsSelect.addEventListener('change', drawConnectionsChoice);

  serverSelect.addEventListener('change', () => {
    fillRepeats(); // a stopped experiment may lack some repeats of some servers
    drawWaterfallChoice();
  });
  repeatSelect.addEventListener('change', drawWaterfallChoice);

  return async function show(result) {
    current = result;
    section.hidden = false;
    const s = result.settings;
    /** @type {HTMLElement} */ (section.querySelector('#run-label')).textContent = runLabel(result);
    showVerdicts(section, result);
    /** @type {HTMLElement} */ (section.querySelector('#problems')).textContent = problemsOf(result).join('\n');
    /** @type {HTMLElement} */ (section.querySelector('#summary tbody')).replaceChildren(...measuredServers(s).map((id) => summaryRow(result, id)));

    // One chart per task: drawing all three at once blocked the page for over 200 ms at
    // 10,000 requests.
    const nextTask = () => new Promise((r) => setTimeout(r));
    /** @param {string} name */
    const info = (name) => ({ settingsText: settingsText(result), file: `${fileStem(result)}-${name}` });
    slots.total((c) => drawTotal(c, result), info('total'));
    await nextTask();
    slots.distribution((c) => drawDistribution(c, result), info('distribution'));
    await nextTask();
    const withRuns = measuredServers(s).filter((id) => result.runs.some((r) => r.server === id));
    serverSelect.replaceChildren(...withRuns.map((id) => new Option(serverLabel(id), id)));
    fillRepeats();
    /** @type {HTMLElement} */ (section.querySelector('figure[data-chart=waterfall]')).hidden = withRuns.length === 0;
    if (withRuns.length) drawWaterfallChoice();

    connectionsFigure.hidden = !hasConnections(result);
    if (connectionsFigure.hidden) return;
    await nextTask();
    const repeats = [...new Set(result.runs.map((r) => r.repeat))].sort((a, b) => a - b);
    connectionsSelect.replaceChildren(new Option("each server's median run", ''), ...repeats.map((r) => new Option(`repeat ${r}`, String(r))));
    drawConnectionsChoice();
  };
}
