// Total time per server: a bar at the median of the valid runs, its 95 % confidence interval as
// whiskers, every repeat as a dot (so the spread is visible, not only summarised), invalid runs
// as crosses (not part of the median), and the preset's physical floor as a dashed line.
import { axisTitle, baseOptions, Chart, formatMs, isNarrow, mergeOptions, runSummary, serversOf, styledLegendItems } from './setup.js';
import { inkColor, serverColor, serverLabel, withAlpha } from './palette.js';

const barHalfWidth = 0.4; // category units, matches categoryPercentage × barPercentage below

/**
 * Horizontal offsets for n dots: evenly over the right part of the bar, clear of the whiskers
 * at its centre, without randomness.
 */
function spread(n, from = 0.14, to = 0.36) {
  if (n <= 1) return [(from + to) / 2];
  return Array.from({ length: n }, (_, k) => from + ((to - from) * k) / (n - 1));
}

/** A legend icon for "bar top = median, whiskers = 95 % CI", drawn on first use. */
function errorBarIcon() {
  // chart.js draws an image point style at the image's own pixel size.
  const c = Object.assign(document.createElement('canvas'), { width: 22, height: 14 });
  const ctx = c.getContext('2d');
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

/**
 * @param {HTMLCanvasElement} canvas
 * @param {import('../lab/result.js').Result} result
 * @param {{ chartOptions?: object }} [o]  chartOptions: deep-merged into the chart.js options
 * @returns {Chart}
 */
export function drawTotal(canvas, result, { chartOptions = {} } = {}) {
  const servers = serversOf(result);
  const names = servers.map(serverLabel);
  // On a narrow canvas "HTTP/2 (node:http2)" goes on two lines instead of being rotated.
  const labels = isNarrow(canvas) ? names.map((t) => (t.includes(' (') ? [t.slice(0, t.indexOf(' (')), t.slice(t.indexOf(' (') + 1)] : t)) : names;
  const summary = result.summary ?? {};

  const bars = servers.map((id) => {
    const s = summary[id];
    if (!s || !s.n || s.median == null) return { y: null, yMin: null, yMax: null };
    const [lo, hi] = s.ci95 ?? [s.median, s.median];
    return { y: s.median, yMin: lo, yMax: hi };
  });

  // Individual repeats, x in category units (parsing: false, so fractional x places a dot
  // beside its bar's centre). Valid runs are the ones the median is over.
  const validDots = [];
  const invalidDots = [];
  servers.forEach((id, i) => {
    const runs = (result.runs ?? []).filter((r) => r.server === id).sort((a, b) => a.repeat - b.repeat);
    const offsets = spread(runs.length);
    runs.forEach((run, k) => {
      const dot = { x: i + offsets[k], y: run.totalMs, server: id, repeat: run.repeat, run };
      (run.valid ? validDots : invalidDots).push(dot);
    });
  });

  const datasets = [
    {
      type: 'barWithErrorBars',
      label: 'median of valid repeats, whiskers: 95 % CI',
      data: bars,
      backgroundColor: servers.map((id) => withAlpha(serverColor(id), 0.75)),
      borderColor: servers.map(serverColor),
      borderWidth: 1,
      errorBarColor: inkColor,
      errorBarWhiskerColor: inkColor,
      errorBarLineWidth: 1.5,
      errorBarWhiskerLineWidth: 1.5,
      errorBarWhiskerRatio: 0.25,
      categoryPercentage: 0.8,
      barPercentage: 1,
      order: 3,
    },
    {
      type: 'line',
      label: 'individual repeats',
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
      pointBorderColor: '#B00020',
      borderColor: '#B00020',
      backgroundColor: '#B00020',
      order: 1,
    });
  }

  const floors = result.floorMsByServer;
  const presetLabel = result.environment?.preset?.label ?? result.settings?.preset ?? '';
  if (floors) {
    // One dashed segment across each bar; NaN between segments breaks the line.
    const segments = [];
    servers.forEach((id, i) => {
      const f = floors[id];
      if (!Number.isFinite(f)) return;
      if (segments.length) segments.push({ x: i - 0.5, y: NaN });
      segments.push({ x: i - barHalfWidth - 0.05, y: f, server: id }, { x: i + barHalfWidth + 0.05, y: f, server: id });
    });
    if (segments.length) {
      datasets.push({
        type: 'line',
        label: `physical floor (preset ${presetLabel})`,
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
      });
    }
  }

  const failedRequests = (result.runs ?? []).reduce((n, r) => n + (r.failures ?? 0), 0);
  const n = servers.map((id) => summary[id]?.n ?? 0);
  const repeats = result.settings?.repeats;
  const subtitle = [
    runSummary(result),
    `${n.every((x) => x === n[0]) ? n[0] : n.join('/')} valid of ${repeats ?? '?'} repeats per server`,
    ...(failedRequests ? [`${failedRequests.toLocaleString('en-US')} failed requests`] : []),
    ...(result.stopped ? ['stopped early'] : []),
  ].join(' · ');

  let icon = null;
  const options = baseOptions(
    { canvas, title: 'Total time per server', subtitle, aspectRatio: 1.6 },
    {
      scales: {
        x: { type: 'category', offset: true, grid: { display: false }, title: axisTitle('Server'), ticks: { font: { size: 12, weight: 'bold' }, maxRotation: 0, autoSkip: false } },
        y: { type: 'linear', beginAtZero: true, grace: '5%', title: axisTitle('Total time (ms)'), ticks: { callback: (v) => Number(v).toLocaleString('en-US') } },
      },
      plugins: {
        legend: {
          labels: {
            usePointStyle: true,
            // Server entries explain the bar colours; the rest are the other datasets (clickable).
            generateLabels(chart) {
              const serverItems = servers.map((id) => ({
                text: serverLabel(id),
                fillStyle: withAlpha(serverColor(id), 0.75),
                strokeStyle: serverColor(id),
                lineWidth: 1,
                pointStyle: 'rect',
                hidden: false,
                fontColor: inkColor,
                server: id,
              }));
              const medianItem = {
                text: 'bar: median · whiskers: 95 % CI',
                fillStyle: '#ffffff',
                strokeStyle: inkColor,
                lineWidth: 1.5,
                pointStyle: (icon ??= errorBarIcon()),
                hidden: false,
                fontColor: inkColor,
                server: 'all',
              };
              return [...serverItems, medianItem, ...styledLegendItems(chart).filter((l) => l.datasetIndex !== 0)];
            },
          },
          onClick(e, item, legend) {
            if (item.server) return; // the bars themselves stay
            Chart.defaults.plugins.legend.onClick.call(this, e, item, legend);
          },
        },
        tooltip: {
          callbacks: {
            title: (items) => {
              const it = items[0];
              if (!it) return '';
              if (it.datasetIndex === 0) return names[it.dataIndex];
              return serverLabel(it.raw.server);
            },
            label: (it) => {
              if (it.datasetIndex === 0) {
                const s = summary[servers[it.dataIndex]];
                if (!s?.n) return 'no valid runs';
                return [`median ${formatMs(s.median)} (n = ${s.n})`, `95 % CI ${formatMs(s.ci95?.[0])} – ${formatMs(s.ci95?.[1])}`];
              }
              const raw = it.raw;
              if (raw.repeat != null) {
                const run = raw.run;
                const extra = [];
                if (run?.failures) extra.push(`${run.failures} failed`);
                if (run && !run.valid) extra.push(`invalid: ${run.invalidReason}`);
                return `repeat ${raw.repeat}: ${formatMs(raw.y)}${extra.length ? ` (${extra.join('; ')})` : ''}`;
              }
              return `physical floor: ${formatMs(raw.y)}`;
            },
          },
        },
      },
    },
  );
  return new Chart(canvas, {
    type: 'barWithErrorBars',
    data: { labels, datasets },
    options: mergeOptions(options, chartOptions),
  });
}
