// What a runner session measures: the classic suite, a sweep (per preset) or one point per
// preset, as experiments of points, each point a complete set of the lab's settings.
import { UsageError } from '../common/setup/errors.js';
import { presetById } from '../common/setup/presets.js';
import { classicSweeps, planSweep, sweepParams } from '../common/setup/sweep.js';
import { defaultNetworkId, networkOf } from '../common/setup/networks.js';
import { settingsLabel } from '../common/setup/text.js';
import { browserTitles } from '../common/setup/browser-names.js';

// --quick skips the presets too slow for a quick look: GPRS, the 2G ones, 3G and Regular 3G,
// under which one run of grid 4 (30 × 0.1 MiB) takes half a minute or more. With them the quick
// suite took 31 min under --network both on 2 cores; the issue asks for under 30.
const quickMinDownloadBps = 150_000;
// 4 runs a side give a ratio interval of 97 % at most by Mann–Whitney's level, 87 % by Brunner–
// Munzel's, which a verdict now takes (docs/statistics.md): the quick suite's ratios carry no
// verdict; 6 repeats would, at half again the time.
const quickRepeats = 4;

/**
 * One point of an experiment: a complete set of the lab's settings, and once measured its result.
 * @typedef {object} PlannedPoint
 * @property {string} label
 * @property {number|string} value  the varied setting's value
 * @property {import('../common/report/result.js').Settings} settings
 * @property {import('../common/report/result.js').Result} [result]  set by runner/commands/experiments.js once measured
 * @property {Shard} [shard]  with --shard: this machine's repeats of the point (settings.repeats counts them)
 */

/**
 * A shard's share of one point: which of its repeats run here.
 * @typedef {object} Shard
 * @property {number} k  this shard, 1-based
 * @property {number} n  the shards in all
 * @property {number} repeats  the point's repeats in all shards together
 * @property {number[]} repeatNumbers  the repeats this shard runs
 */

/**
 * What a command planned, as its results record it (environment.plan): each experiment's id and
 * title with its points' labels.
 * @typedef {{ id: string, title: string, points: string[] }} PlanRecord
 */

/** @param {PlannedExperiment[]} experiments @returns {PlanRecord[]} */
export const planRecord = (experiments) => experiments.map((e) => ({ id: e.id, title: e.title, points: e.points.map((p) => p.label) }));

/**
 * @typedef {object} PlannedExperiment
 * @property {string} id
 * @property {string} title
 * @property {string} [baseTitle]  the title without the network
 * @property {string} param        the varied setting
 * @property {string} paramLabel
 * @property {import('../common/setup/networks.js').NetworkId} [network]
 * @property {string} [baseId]     the id without the network
 * @property {import('./browsers/browsers.js').BrowserName} [browser]  the browser it runs in, with several (--browser chromium,firefox)
 * @property {string} [browserBaseId]  the id without the browser
 * @property {string} [browserBaseTitle]  the title without the browser
 * @property {PlannedPoint[]} points
 */

/**
 * The experiments to run: [{ id, title, baseTitle, param, paramLabel, network, baseId, points: [{ label, value, settings }] }].
 * Under several networks each experiment runs once per network, one after the other; baseId
 * and baseTitle pair them up for the side-by-side table (common/report/network-comparison.js).
 * @param {import('./args.js').RunnerOptions} o
 * @returns {PlannedExperiment[]}
 */
export function planExperiments(o) {
  const networks = o.networks ?? [defaultNetworkId];
  const planned = baseExperiments(o).flatMap((e) =>
    networks.map((network) => ({
      ...e,
      id: networks.length > 1 ? `${e.id}-${network}` : e.id,
      title: networkOf(network).labSets || networks.length > 1 ? `${e.title} · ${networkOf(network).title}` : e.title,
      baseTitle: e.title,
      network,
      baseId: e.id,
      points: e.points.map((p) => ({ ...p, settings: { ...p.settings, network } })),
    })),
  );
  const browsers = o.browsers ?? [];
  // With several browsers each experiment runs in each, one browser after the other.
  // Networks are compared within a browser: each browser's experiments have a baseId of their own.
  const inBrowsers = browsers.length > 1
    ? browsers.flatMap((browser) => planned.map((e) => ({ ...e, id: `${e.id}-${browser}`, title: `${e.title} · ${browserTitles[browser]}`, baseId: `${e.baseId}-${browser}`, baseTitle: `${e.baseTitle} · ${browserTitles[browser]}`, browser, browserBaseId: e.id, browserBaseTitle: e.title, points: e.points.map((p) => ({ ...p })) })))
    : planned;
  return o.shard ? shardExperiments(inBrowsers, o.shard) : inBrowsers;
}

/**
 * Shard k of n: of every point, the repeats r with (r − 1) mod n = k − 1, each with every server
 * (a comparison needs its servers measured side by side, in the order repeat r gives them).
 * Points with no repeat here are left out; each shard's output is complete on its own, and
 * `npm run merge-results` puts the shards together (runner/commands/merge-results.js).
 * @param {PlannedExperiment[]} experiments
 * @param {{ k: number, n: number }} shard
 * @returns {PlannedExperiment[]}
 */
export function shardExperiments(experiments, { k, n }) {
  const sharded = experiments.map((e) => ({
    ...e,
    points: e.points.flatMap((p) => {
      const repeatNumbers = Array.from({ length: p.settings.repeats }, (_, i) => i + 1).filter((r) => (r - 1) % n === k - 1);
      return repeatNumbers.length ? [{ ...p, settings: { ...p.settings, repeats: repeatNumbers.length }, shard: { k, n, repeats: p.settings.repeats, repeatNumbers } }] : [];
    }),
  })).filter((e) => e.points.length);
  if (!sharded.length) throw new UsageError(`--shard ${k}/${n}: no repeat falls to this shard (the experiment has fewer repeats than shards)`);
  return sharded;
}

/**
 * @param {import('./args.js').RunnerOptions} o
 * @returns {PlannedExperiment[]}
 */
function baseExperiments(o) {
  if (o.suite === 'classic') {
    // Object.freeze hides the grids' shape from the type checker.
    /** @type {ReadonlyArray<{ id: string, title: string, param: any, values: string, base: object }>} param: any, each grid's own (sweep.js planSweep's overloads) */
    const grids = /** @type {any} */ (classicSweeps);
    return grids.map((c) => {
      // Until decided, every grid plans for the cap (grid 4 fixes 10 repeats otherwise).
      const repeats = o.untilDecided ? o.untilDecided.maxRepeats : o.quick ? quickRepeats : undefined;
      const base = { ...o.settings, ...c.base, ...(repeats ? { repeats } : {}) };
      /** @type {{ points: Array<{ value: any, label: string, settings: import('../common/report/result.js').Settings }> }} any: a preset id under the preset grid, else a number */
      const { points } = planSweep(c.param, c.values, base);
      const kept = o.quick && c.param === 'preset' ? points.filter((p) => /** @type {import('../common/setup/presets.js').Preset} */ (presetById(p.value)).downloadBps >= quickMinDownloadBps) : points;
      return { id: c.id, title: c.title, param: c.param, paramLabel: sweepParams[c.param], points: kept };
    });
  }
  const { sweep } = o; // a const stays narrowed inside the callback below
  if (sweep) {
    return o.presets.map((preset) => {
      const { points } = planSweep(sweep.param, sweep.values, { ...o.settings, preset: preset.id });
      const title = `Sweep of ${sweepParams[sweep.param]}${sweep.param === 'preset' ? '' : ` · ${preset.label}`}`;
      return { id: `sweep-${preset.id}`, title, param: sweep.param, paramLabel: sweepParams[sweep.param], points };
    });
  }
  return [
    {
      id: 'presets',
      title: settingsLabel(o.settings),
      param: 'preset',
      paramLabel: 'Network preset',
      points: o.presets.map((p) => ({ label: p.label, value: p.id, settings: { ...o.settings, preset: p.id } })),
    },
  ];
}

