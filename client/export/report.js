// "Export report": the result on screen as one self-contained HTML file (common/report/report-html.js),
// with every chart the page draws for it as an image and the result itself to import again.
import { measuredServers } from '../../common/setup/servers.js';
import { reportChartScale, reportHtml } from '../../common/report/report-html.js';
import { pageLoadsMarkdown } from '../../common/report/page-load-markdown.js';
import { resultMarkdown } from '../../common/report/summary-markdown.js';
import { chartImage } from '../ui/chart-export.js';
import { hasConnections } from '../charts/connections.js';
import { fileStem } from './download.js';

/**
 * @template {import('../ui/chart-export.js').ChartKind} K
 * @param {K} kind
 * @param {import('../ui/chart-export.js').ChartData[K]} data
 */
const image = async (kind, data) => {
  const { title, pngsBase64 } = await chartImage(kind, data, { scales: [reportChartScale] });
  return { title, pngBase64: pngsBase64[0] };
};

/** @param {import('../../common/report/result.js').Result} result */
export async function experimentReport(result) {
  const charts = [await image('total', result), await image('distribution', result)];
  // One waterfall per server: its first valid repeat, as the page shows by default.
  for (const server of measuredServers(result.settings)) {
    const run = result.runs.find((r) => r.server === server && r.valid) ?? result.runs.find((r) => r.server === server);
    if (run) charts.push(await image('waterfall', { result, server, repeat: run.repeat }));
  }
  // A captured result: its connections, each server's median run.
  if (hasConnections(result)) charts.push(await image('connections', { result }));
  return reportHtml({ title: `h2lab result ${result.id}`, markdown: resultMarkdown(result), charts, data: result, dataFile: `${fileStem(result)}.json` });
}

/** @param {import('../../common/report/result.js').PageLoadResult} result @param {string} stem the export files' name */
export async function pageLoadsReport(result, stem) {
  const charts = [await image('pageLoads', result)];
  return reportHtml({ title: `h2lab page loads · ${result.settings.server}`, markdown: pageLoadsMarkdown(result), charts, data: result, dataFile: `${stem}.json` });
}
