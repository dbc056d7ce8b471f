// Medians with their spread, one bar per category: a bar at the median, its confidence
// interval as whiskers, every repeat as a dot (so the spread is visible, not only summarised),
// invalid repeats as crosses (not part of the median), optional dashed floor lines, and a legend
// that names each category's colour. A category that has no honest number carries a note,
// written in its column instead of a bar.
import { axisTitle, baseOptions, Chart, formatMs, isNarrow, layoutWidth, mergeOptions, styledLegendItems, wrapToWidth } from './setup.js';
import { inkColor, withAlpha } from './palette.js';
import { levelText } from '../../common/stats/stats.js';

const barHalfWidth = 0.4; // category units, matches categoryPercentage × barPercentage below
const invalidColor = '#B00020';

/**
 * Horizontal offsets for n dots: evenly over the right part of the bar, clear of the whiskers
 * at its centre, without randomness.
 * @param {number} n
 */
function spread(n, from = 0.14, to = 0.36) {
  if (n <= 1) return [(from + to) / 2];
  return Array.from({ length: n }, (_, k) => from + ((to - from) * k) / (n - 1));
}

/** A legend icon for "bar top = median, whiskers = its interval", drawn on first use. */
function errorBarIcon() {
  // chart.js draws an image point style at the image's own pixel size.
  const c = Object.assign(document.createElement('canvas'), { width: 22, height: 14 });
  const ctx = /** @type {CanvasRenderingContext2D} a new canvas has one */ (c.getContext('2d'));
  ctx.fillStyle = '#d9d9d9';
  ctx.fillRect(3, 7, 16, 7);
  ctx.strokeStyle = inkColor;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(11, 1.5);
  ctx.lineTo(11, 12.5);
  ctx.moveTo(7.5, 1.5);
  ctx.lineTo(14.5, 1.5);
  ctx.moveTo(7.5, 12.5);
  ctx.lineTo(14.5, 12.5);
  ctx.stroke();
  return c;
}

/** "HTTP/2 (node:http2)" on two lines at the "(", for narrow canvases (instead of rotating). @param {string} t */
const twoLines = (t) => (t.includes(' (') ? [t.slice(0, t.indexOf(' (')), t.slice(t.indexOf(' (') + 1)] : t);

/**
 * Writes each category's note in its column, where its bar would be; its short form when the note does not fit.
 * @param {Category[]} categories
 * @returns {import('chart.js').Plugin}
 */
const notesPlugin = (categories) => ({
  id: 'h2labCategoryNotes',
  afterDatasetsDraw(chart) {
    const { ctx, chartArea, scales } = chart;
    const columnWidth = (chartArea.width / Math.max(1, categories.length)) * 0.9;
    const lineHeight = 16;
    ctx.save();
    ctx.font = `italic 12px ${Chart.defaults.font.family}`;
    ctx.fillStyle = '#555555';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    // More than six lines of a word or two each reads badly: a thin column gets the short note.
    /** @param {string[]} lines */
    const fits = (lines) => lines.length <= 6 && lines.length * lineHeight <= chartArea.height && lines.every((line) => ctx.measureText(line).width <= columnWidth);
    categories.forEach((category, i) => {
      if (!category.note) return;
      let lines = wrapToWidth(ctx, category.note, columnWidth);
      if (!fits(lines) && category.shortNote) lines = wrapToWidth(ctx, category.shortNote, columnWidth);
      const top = chartArea.top + chartArea.height / 2 - ((lines.length - 1) * lineHeight) / 2;
      lines.forEach((line, k) => ctx.fillText(line, scales.x.getPixelForValue(i), top + k * lineHeight));
    });
    ctx.restore();
  },
});

/**
 * @typedef {object} Point  one repeat
 * @property {number} y
 * @property {number} repeat
 * @property {boolean} valid      invalid ones are crosses, not part of the median
 * @property {string} [detail]    appended to the tooltip in brackets
 *
 * @typedef {object} Category
 * @property {string} id
 * @property {string} label       x axis and legend
 * @property {string} color
 * @property {{ n: number, median: number|null, ci95: [number, number]|null, ciLevel?: number|null }|null} summary  no bar without n and median
 * @property {Point[]} points
 * @property {number} [floor]     drawn as a dashed line across the bar
 * @property {string[]} [barDetail]  more tooltip lines for the bar
 * @property {string} [note]      why the category has no number: written in its column; it gets no legend colour
 * @property {string} [shortNote] written instead when the note does not fit the column
 *
 * @typedef {Point & { x: number, category: number }} Dot  a repeat's dot; x in category units
 * @typedef {{ x: number, y: number, category?: number }} FloorPoint  a floor segment's end, or NaN between segments
 * @typedef {import('chart.js').ChartDatasetCustomTypesPerDataset<'barWithErrorBars'|'line', object[]>
 *   & import('./setup.js').LegendStyled} Dataset
 * @typedef {import('chart.js').LegendItem & { category?: string }} LegendItem  category: a bar colour's entry, not a dataset's
 */

/**
 * "whiskers: 75 % CI of the median": the whiskers' level, which the repeats set (common/stats/stats.js
 * medianInterval: 75 % for 3).
 * @param {Category[]} categories
 */
function whiskersText(categories) {
  const levels = [...new Set(categories.map((c) => levelText(c.summary?.ciLevel)).filter(Boolean))];
  return `whiskers: ${levels.length ? `${levels.join(' / ')} ` : ''}CI of the median`;
}

/**
 * The bars: one per category at its median, whiskers at its interval; none without a median.
 * @param {Category[]} categories
 * @param {string} whiskers
 * @returns {Dataset}
 */
function barsDataset(categories, whiskers) {
  const bars = categories.map(({ summary: s }) => {
    if (!s?.n || s.median == null) return { y: null, yMin: null, yMax: null };
    const [lo, hi] = s.ci95 ?? [s.median, s.median];
    return { y: s.median, yMin: lo, yMax: hi };
  });
  return {
    type: 'barWithErrorBars',
    label: `median of valid repeats, ${whiskers}`,
    data: bars,
    backgroundColor: categories.map((c) => withAlpha(c.color, 0.75)),
    borderColor: categories.map((c) => c.color),
    borderWidth: 1,
    errorBarColor: inkColor,
    errorBarWhiskerColor: inkColor,
    errorBarLineWidth: 1.5,
    errorBarWhiskerLineWidth: 1.5,
    errorBarWhiskerRatio: 0.25,
    categoryPercentage: 0.8,
    barPercentage: 1,
    order: 3,
  };
}

/**
 * Every repeat as a dot beside its bar, in repeat order; invalid ones as crosses, in a dataset of
 * their own when there are any.
 * @param {Category[]} categories
 * @param {string} pointsLabel
 * @returns {Dataset[]}
 */
function repeatDatasets(categories, pointsLabel) {
  // x in category units (parsing: false, so fractional x places a dot beside its bar's centre).
  /** @type {Dot[]} */
  const validDots = [];
  /** @type {Dot[]} */
  const invalidDots = [];
  categories.forEach((category, i) => {
    const points = [...category.points].sort((a, b) => a.repeat - b.repeat);
    const offsets = spread(points.length);
    points.forEach((p, k) => (p.valid ? validDots : invalidDots).push({ ...p, x: i + offsets[k], category: i }));
  });
  /** @type {Dataset[]} */
  const datasets = [
    {
      type: 'line',
      label: pointsLabel,
      data: validDots,
      parsing: false,
      showLine: false,
      pointStyle: 'circle',
      legendStyle: 'circle',
      pointRadius: 4,
      pointHoverRadius: 6,
      pointBackgroundColor: '#ffffff',
      pointBorderColor: inkColor,
      pointBorderWidth: 1.5,
      backgroundColor: '#ffffff',
      borderColor: inkColor,
      order: 1,
    },
  ];
  if (invalidDots.length) {
    datasets.push({
      type: 'line',
      label: 'invalid repeats (not in the median)',
      data: invalidDots,
      parsing: false,
      showLine: false,
      pointStyle: 'crossRot',
      legendStyle: 'crossRot',
      pointRadius: 6,
      pointHoverRadius: 8,
      pointBorderWidth: 2,
      pointBorderColor: invalidColor,
      borderColor: invalidColor,
      backgroundColor: invalidColor,
      order: 1,
    });
  }
  return datasets;
}

/**
 * The floors: one dashed segment across each bar that has one, as one dataset; none without floors.
 * @param {Category[]} categories
 * @param {string} floorLabel
 * @returns {Dataset[]}
 */
function floorDatasets(categories, floorLabel) {
  // NaN between segments breaks the line.
  /** @type {FloorPoint[]} */
  const segments = [];
  categories.forEach((category, i) => {
    if (!Number.isFinite(category.floor)) return;
    if (segments.length) segments.push({ x: i - 0.5, y: NaN });
    const floor = /** @type {number} finite */ (category.floor);
    segments.push({ x: i - barHalfWidth - 0.05, y: floor, category: i }, { x: i + barHalfWidth + 0.05, y: floor, category: i });
  });
  if (!segments.length) return [];
  return [
    {
      type: 'line',
      label: floorLabel,
      data: segments,
      parsing: false,
      spanGaps: false,
      borderColor: inkColor,
      backgroundColor: inkColor,
      borderWidth: 2,
      borderDash: [6, 4],
      legendStyle: 'line',
      pointRadius: 0,
      pointHoverRadius: 0,
      pointHitRadius: 8,
      order: 0,
    },
  ];
}

/**
 * The legend's entries: one per bar colour (a category that has a number), one for the bar and its
 * whiskers, then the other datasets' (the dots', the floors').
 * @param {Category[]} categories
 * @param {string} whiskers
 * @returns {(chart: import('chart.js').Chart) => LegendItem[]}
 */
function legendItemsOf(categories, whiskers) {
  /** @type {HTMLCanvasElement|null} drawn on first use */
  let icon = null;
  return (chart) => {
    /** @type {LegendItem[]} */
    const categoryItems = categories
      .filter((c) => !c.note)
      .map((c) => ({
        text: c.label,
        fillStyle: withAlpha(c.color, 0.75),
        strokeStyle: c.color,
        lineWidth: 1,
        pointStyle: 'rect',
        hidden: false,
        fontColor: inkColor,
        category: c.id,
      }));
    /** @type {LegendItem} */
    const medianItem = {
      text: `bar: median · ${whiskers}`,
      fillStyle: '#ffffff',
      strokeStyle: inkColor,
      lineWidth: 1.5,
      pointStyle: (icon ??= errorBarIcon()),
      hidden: false,
      fontColor: inkColor,
      category: 'all',
    };
    return [...categoryItems, medianItem, ...styledLegendItems(chart).filter((l) => l.datasetIndex !== 0)];
  };
}

/**
 * A tooltip's lines: a bar's median, n, interval and detail, a dot's repeat, or a floor.
 * @param {{ datasetIndex: number, dataIndex: number, raw: unknown }} it
 * @param {Category[]} categories
 * @param {{ emptyText: string, floorName: string }} words
 */
function tooltipLines(it, categories, { emptyText, floorName }) {
  if (it.datasetIndex === 0) {
    const { summary: s, barDetail = [] } = categories[it.dataIndex];
    if (!s?.n || s.median == null) return emptyText;
    return [`median ${formatMs(s.median)} (n = ${s.n})`, `${levelText(s.ciLevel)} CI ${formatMs(s.ci95?.[0])} – ${formatMs(s.ci95?.[1])}`.trim(), ...barDetail];
  }
  const raw = /** @type {FloorPoint & Partial<Dot>} */ (it.raw);
  if (raw.repeat != null) return `repeat ${raw.repeat}: ${formatMs(raw.y)}${raw.detail ? ` (${raw.detail})` : ''}`;
  return `${floorName}: ${formatMs(raw.y)}`;
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {{ title: string, subtitle: string, xTitle: string, yTitle: string, categories: Category[],
 *   pointsLabel?: string, emptyText?: string, floorLabel?: string, floorName?: string }} spec
 *   pointsLabel: legend of the dots; emptyText: tooltip of a category without a median;
 *   floorLabel, floorName: legend and tooltip name of the floor lines
 * @param {{ chartOptions?: object }} [o]  chartOptions: deep-merged into the chart.js options
 * @returns {import('./setup.js').AnyChart}
 */
export function drawMedianBars(canvas, spec, { chartOptions = {} } = {}) {
  const { categories, pointsLabel = 'individual repeats', emptyText = 'no valid runs', floorLabel = 'floor', floorName = floorLabel } = spec;
  const narrow = isNarrow(canvas);
  const names = categories.map((c) => c.label);
  // A bold 12 px label needs about 8 px a character: nine servers at 1400 px already touch.
  const crowded = layoutWidth(canvas) / Math.max(1, names.length) < 8 * Math.max(0, ...names.map((n) => n.length));
  const labels = narrow || crowded ? names.map(twoLines) : names;
  const whiskers = whiskersText(categories);
  const datasets = [barsDataset(categories, whiskers), ...repeatDatasets(categories, pointsLabel), ...floorDatasets(categories, floorLabel)];

  const options = baseOptions(
    // Narrow: taller than wide, or titles and legend leave the bars a sliver.
    { canvas, title: spec.title, subtitle: spec.subtitle, aspectRatio: narrow ? 0.7 : 1.6 },
    {
      scales: {
        x: { type: 'category', offset: true, grid: { display: false }, title: axisTitle(spec.xTitle), ticks: { font: { size: narrow ? 11 : 12, weight: 'bold' }, maxRotation: 0, autoSkip: false } },
        y: { type: 'linear', beginAtZero: true, grace: '5%', title: axisTitle(spec.yTitle), ticks: { callback: (v) => Number(v).toLocaleString('en-US') } },
      },
      plugins: {
        legend: {
          labels: {
            usePointStyle: true,
            // Category entries explain the bar colours; the rest are the other datasets (clickable).
            generateLabels: legendItemsOf(categories, whiskers),
          },
          onClick(e, item, legend) {
            if (/** @type {LegendItem} */ (item).category) return; // the bars themselves stay
            Chart.defaults.plugins.legend.onClick.call(this, e, item, legend);
          },
        },
        tooltip: {
          callbacks: {
            title: (items) => {
              const it = items[0];
              if (!it) return '';
              return names[it.datasetIndex === 0 ? it.dataIndex : /** @type {{ category: number }} a dot or a floor */ (it.raw).category];
            },
            label: (it) => tooltipLines(it, categories, { emptyText, floorName }),
          },
        },
      },
    },
  );
  return new Chart(canvas, {
    type: 'barWithErrorBars',
    data: { labels, datasets },
    options: mergeOptions(options, chartOptions),
    plugins: [notesPlugin(categories)],
  });
}
