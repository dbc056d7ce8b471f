// PNG export of a chart: re-rendered at `scale` device pixels per CSS pixel on white, with a
// heading above and the run's settings as a footer, both wrapped to the chart's width.
import { formatMiB, pageLoadSummary, pointsInAxisOrder, presetLabelOf, repeatsOf, wrapToWidth } from './setup.js';
import { fileChartScale } from '../../common/report/report-html.js';
import { settingsLabel } from '../../common/setup/text.js';

/** "Chrome 156", "Firefox 140", "Safari 18", "Edge 150" from a user-agent string. */
export function browserName(userAgent = '') {
  /** @type {[RegExp, string][]} */
  const rules = [
    [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
    [/OPR\/(\d+)/, 'Opera'],
    [/Firefox\/(\d+)/, 'Firefox'],
    [/HeadlessChrome\/(\d+)/, 'Chrome (headless)'],
    [/(?:Chrome|CriOS)\/(\d+)/, 'Chrome'],
    [/Version\/(\d+)[\d.]*.*Safari\//, 'Safari'],
  ];
  for (const [re, name] of rules) {
    const m = re.exec(userAgent);
    if (m) return name.includes('(') ? name.replace(' (', ` ${m[1]} (`) : `${name} ${m[1]}`;
  }
  return userAgent ? 'unknown browser' : '';
}

/**
 * One line describing a run, for footers and captions:
 * "h2lab · 100 × 0.1 MiB · delay 10 ms · 10 repeats · cold · No throttling · Chrome 156 · 2026-11-21"
 * @param {import('../../common/report/result.js').Result} result
 */
export function settingsText(result) {
  const s = result.settings ?? {};
  const parts = ['h2lab'];
  parts.push(settingsLabel(s));
  if (s.maxInFlight && s.maxInFlight < s.requests) parts.push(`≤ ${Number(s.maxInFlight).toLocaleString('en-US')} in flight`);
  parts.push(repeatsOf([result]));
  if (s.connections) parts.push(s.connections);
  parts.push(presetLabelOf(result));
  return [...parts, ...browserAndDay(result.environment?.userAgent, result.startedAt)].join(' · ');
}

/**
 * The last parts of a footer: which browser measured, on which day.
 * @param {string|undefined} userAgent
 * @param {string|undefined} startedAt
 */
const browserAndDay = (userAgent, startedAt) => [browserName(userAgent), String(startedAt ?? '').slice(0, 10)].filter(Boolean);

/**
 * The footer line of a page-load result, with the network preset when the result records one.
 * "h2lab · page loads · HTTP/2 (node:http2) · 4 assets × 290 KiB · think time 300 ms · Fast 4G · 10 repeats · cold · Chrome 156 · 2026-11-21"
 * @param {import('../../common/report/result.js').PageLoadResult} result
 */
export function pageLoadSettingsText(result) {
  const { repeats } = result.settings ?? {};
  const parts = ['h2lab', 'page loads', pageLoadSummary(result), `${repeats} repeat${repeats === 1 ? '' : 's'}`, 'cold'];
  return [...parts, ...browserAndDay(result.userAgent, result.startedAt)].join(' · ');
}

/**
 * The footer line of a sweep: what varied, over which values, and what every point shared.
 * "h2lab · Network preset: Regular 2G, Good 2G, …, WiFi · 30 × 0.1 MiB · delay 10 ms · 5 repeats · cold · Chrome 156 · 2026-11-21"
 * @param {Pick<import('../lab/engine.js').Sweep, 'param'|'paramLabel'|'points'>} sweep
 */
export function sweepSettingsText(sweep) {
  const points = pointsInAxisOrder({ param: sweep.param, points: sweep.points ?? [] }).filter((p) => p.result);
  if (!points.length) return 'h2lab';
  const first = points[0].result;
  const values = points.map((p) => String(p.label ?? p.value)).join(', ');
  const varied = `${sweep.paramLabel ?? sweep.param}: ${values}`;
  // Take the first point's line and drop the parts the sweep varies.
  const s = first.settings ?? {};
  /** @type {Record<import('../lab/engine.js').SweepParam, (part: string) => boolean>} */
  const dropBy = {
    requests: (part) => part.endsWith(`× ${formatMiB(s.sizeMiB)}`),
    sizeMiB: (part) => part.endsWith(`× ${formatMiB(s.sizeMiB)}`),
    delayMs: (part) => part === `delay ${s.delayMs} ms`,
    preset: (part) => part === presetLabelOf(first),
    loss: (part) => part === presetLabelOf(first),
  };
  const drop = dropBy[sweep.param];
  const parts = settingsText(first).split(' · ');
  const repeats = repeatsOf([first]);
  const kept = parts.slice(1).map((part) => {
    // Points run until decided stop at different counts: the spread over all of them.
    if (part === repeats) return repeatsOf(points.map((p) => p.result));
    if (!drop?.(part)) return part;
    if (sweep.param === 'requests') return `${formatMiB(s.sizeMiB)} per request`;
    if (sweep.param === 'sizeMiB') return `${Number(s.requests).toLocaleString('en-US')} requests`;
    if (sweep.param === 'loss') return presetLabelOf(first, { loss: false });
    return null;
  });
  const dates = [...new Set(points.map((p) => String(p.result.startedAt ?? '').slice(0, 10)).filter(Boolean))];
  if (dates.length > 1 && /^\d{4}-\d\d-\d\d$/.test(String(kept.at(-1)))) kept[kept.length - 1] = `${dates[0]} – ${dates.at(-1)}`;
  return ['h2lab', varied, ...kept.filter(Boolean)].join(' · ');
}

/**
 * Sets the chart's devicePixelRatio option (undefined: the screen's again) and renders once:
 * resize() re-renders when the ratio changes, update() when it does not (other options may have).
 * Written through chart.options (the resolver), which also updates its cached value.
 * @param {import('./setup.js').AnyChart} chart
 * @param {number|undefined} ratio
 */
function setRatio(chart, ratio) {
  if (ratio === undefined) delete chart.options.devicePixelRatio;
  else chart.options.devicePixelRatio = ratio;
  const before = chart.currentDevicePixelRatio;
  chart.resize();
  if (chart.currentDevicePixelRatio === before) chart.update('none');
}

// An array title (chart.js's multi-line form) keeps its lines; each is wrapped further if needed.
/** @param {string|string[]|undefined} t */
const textLines = (t) => (Array.isArray(t) ? t.join('\n') : t ?? '');

/**
 * Renders `chart` at `scale`× on a new canvas with `title` on top and `settingsText` as footer.
 * The chart itself is re-rendered at that pixel ratio (not upscaled), then put back as it was.
 * When `title` is given the chart's own title is left out of the image so it is not doubled;
 * its subtitle, legend and axes stay. The chart must be laid out (not display: none).
 * @param {import('./setup.js').AnyChart} chart
 * @param {{ title?: string|string[], settingsText?: string, scale?: number }} [o]
 * @returns {Promise<Blob>}  an image/png Blob
 */
export async function chartPng(chart, { title, settingsText: footer = '', scale = fileChartScale } = {}) {
  if (!chart?.canvas || !(chart.width > 0) || !(chart.height > 0)) {
    throw new Error('chartPng: the chart has no size (is its canvas hidden?)');
  }
  const heading = textLines(title);
  const raw = /** @type {import('chart.js').ChartOptions} chart.js always makes the options */ (chart.config.options);
  raw.plugins ??= {};
  raw.plugins.title ??= {};
  const hadRatio = Object.hasOwn(raw, 'devicePixelRatio');
  const oldRatio = raw.devicePixelRatio;
  const oldTitleDisplay = raw.plugins.title.display;
  const hadTitleDisplay = Object.hasOwn(raw.plugins.title, 'display');

  /** @type {HTMLCanvasElement} */
  let out;
  try {
    if (heading) raw.plugins.title.display = false;
    setRatio(chart, scale);
    const snapshot = chart.canvas;
    const { width: w, height: h } = chart; // CSS pixels

    const pad = 16;
    out = document.createElement('canvas');
    const ctx = /** @type {CanvasRenderingContext2D} a new canvas has one */ (out.getContext('2d'));
    const fontFamily = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
    const titleFont = `bold 16px ${fontFamily}`;
    const footFont = `11px ${fontFamily}`;
    ctx.font = titleFont;
    const titleRows = heading ? wrapToWidth(ctx, heading, w - 2 * pad) : [];
    ctx.font = footFont;
    const footRows = footer ? wrapToWidth(ctx, footer, w - 2 * pad) : [];
    const titleH = titleRows.length ? pad + titleRows.length * 21 : 0;
    const footH = footRows.length ? 8 + footRows.length * 15 + 10 : 0;

    out.width = Math.round(w * scale);
    out.height = Math.round((titleH + h + footH) * scale);
    ctx.scale(scale, scale);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, titleH + h + footH);

    ctx.fillStyle = '#222222';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    ctx.font = titleFont;
    titleRows.forEach((row, k) => ctx.fillText(row, w / 2, pad + k * 21));

    ctx.drawImage(snapshot, 0, 0, snapshot.width, snapshot.height, 0, titleH, w, h);

    if (footRows.length) {
      ctx.strokeStyle = '#dddddd';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(pad, titleH + h + 3.5);
      ctx.lineTo(w - pad, titleH + h + 3.5);
      ctx.stroke();
      ctx.fillStyle = '#555555';
      ctx.font = footFont;
      ctx.textAlign = 'left';
      footRows.forEach((row, k) => ctx.fillText(row, pad, titleH + h + 8 + k * 15));
    }
  } finally {
    if (hadTitleDisplay) raw.plugins.title.display = oldTitleDisplay;
    else delete raw.plugins.title.display;
    setRatio(chart, hadRatio ? oldRatio : undefined);
  }
  return new Promise((resolve, reject) => {
    out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('chartPng: toBlob gave nothing'))), 'image/png');
  });
}
