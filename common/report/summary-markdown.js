// The Markdown summary of experiments: the runner's summary.md, and the tables of every HTML
// report (common/report/report-html.js). It only formats results.
//
// experiment = { id, title, paramLabel, points: [{ label, result }] }
import { connectionTotals, connectionTotalsText } from './connections.js';
import { burstText, calibrationText, mismatchText, networkRecordText, packetCountsText, presetAppliedByText } from './network-check.js';
import { networkRecordOf, packetCountsOf } from './network-record.js';
import { compareBrowsers, compareNetworks } from './network-comparison.js';
import { browserTitles } from '../setup/browser-names.js';
import { networkOf, networks } from '../setup/networks.js';
import { describePreset } from '../setup/presets.js';
import { serverLabel, summarizedServers, twinOf } from '../setup/servers.js';
import { settingsLabel } from '../setup/text.js';
import { invalidText } from '../stats/validity.js';
import { levelText, practicalMargin, verdictLevel, verdicts } from '../stats/stats.js';
import { roundsText } from '../stats/until-decided.js';
import { untilDecided } from '../setup/settings.js';
import { familyRate, scopeText } from '../stats/family.js';
import { lossSeedText, seededLosses } from '../setup/seeds.js';
import { detectableCell, findings } from './findings.js';
import { acrossFamilies, familyTitle } from './across-families.js';

/**
 * @typedef {object} ExperimentPoint  one measured point of an experiment
 * @property {string} label  the first column: the varied setting's value, as people read it
 * @property {number|string} [value]  that value, as the settings hold it
 * @property {import('./result.js').Result} result
 * @property {{ k: number, n: number, repeats: number, repeatNumbers: number[] }} [shard]  measured as shard k of n
 *   (runner --shard): its repeatNumbers of the point's repeats in all
 */

/**
 * @typedef {object} Experiment  one table of summary.md: points that vary one setting
 * @property {string} id
 * @property {string} title
 * @property {string} paramLabel  the first column's heading
 * @property {ExperimentPoint[]} points
 * @property {string} [baseId]     under several networks: the experiment this one repeats (network-comparison.js pairs them)
 * @property {string} [baseTitle]  that experiment's title
 * @property {string} [network]    who applied the presets
 * @property {string} [browserBaseId]  in several browsers: the experiment this one repeats
 * @property {string} [browserBaseTitle]  that experiment's title
 * @property {string} [browser]    the browser it ran in (common/setup/browser-names.js)
 */

/** @typedef {{ comparison: import('./result.js').Comparison } & Record<import('./result.js').Verdict, Map<Experiment, string[]>>} Tally  per verdict, the points of each experiment that had it */

/** @param {number|null|undefined} x */
const ms = (x) => (x == null ? '–' : x < 100 ? x.toFixed(1) : x.toFixed(0));

/**
 * One cell: median [interval · its level] ms, and measured/floor when the point has a floor.
 * @param {import('./result.js').Result} result
 * @param {string} server
 */
function cell(result, server) {
  const s = result.summary[server];
  if (!s?.n) return '–';
  const level = levelText(s.ciLevel);
  const ci = s.ci95 ? ` [${ms(s.ci95[0])}–${ms(s.ci95[1])}${level ? ` · ${level}` : ''}]` : '';
  const floor = result.floorMsByServer?.[server];
  // n > 0: the summary has a median
  const vsFloor = floor !== undefined && Number.isFinite(floor) && floor > 0 ? ` · ${(/** @type {number} */ (s.median) / floor).toFixed(2)}× floor` : '';
  const paid = s.serverCpuMs == null ? '' : ` · ${s.connectionsPerRun} conn, ${ms(s.serverCpuMs)} ms CPU`;
  return `${ms(s.median)}${ci}${vsFloor}${paid}`;
}

/**
 * What the calibration measured before the point's runs, and whether that is its preset.
 * @param {import('./result.js').Result['environment']|undefined} environment  absent in a point that never ran
 */
function networkCell(environment) {
  const c = environment?.calibration;
  if (!c) return '–';
  const mismatches = environment.networkMismatches ?? [];
  // The loss as set (random and bursts) beside what the emulator counted: a run names its network's loss.
  const record = networkRecordOf(environment);
  const { conditions } = record;
  const lossy = networkOf(record.id).carries.loss ? conditions : null;
  const lossSet = lossy ? ` · loss set ${lossy.loss} %${burstText(lossy.burst)}` : '';
  const packets = packetCountsOf(record);
  const counted = packets ? `${lossSet} · ${packetCountsText(packets)}` : lossSet;
  // The traces a lab network's rates followed, by name and hash (server/path/trace.js).
  const traced = /** @type {import('./result.js').TraceRecord[]} */ ([conditions?.traceDown, conditions?.traceUp].filter(Boolean)).map((t) => `trace ${t.name} (sha256 ${t.sha256.slice(0, 12)}, mean ${(t.meanBps / 1e6).toFixed(2)} MB/s)`);
  return `${calibrationText(c)}${traced.length ? ` · ${traced.join(', ')}` : ''}${counted}${mismatches.length ? ` · **not ${environment.preset.label}**` : ''}`;
}

/** @param {import('./result.js').Comparison} c */
const versusText = (c) => (twinOf(c.server) === null ? `${serverLabel(c.server)} vs ${serverLabel(c.baseline)}` : `A/A control (${serverLabel(c.baseline)} twice)`);
/** @param {import('./result.js').Comparison} c */
const pairedText = (c) => (c.paired ? `, paired over ${c.pairs} ${c.pairs === 1 ? 'pair' : 'pairs'}` : '');
/**
 * A verdict and its ratio [interval · level]; where a look of several decided, the level it
 * needed beside it, both with a decimal.
 * @param {import('./result.js').Comparison} c
 */
function shortVerdict(c) {
  const decimals = c.requiredLevel == null ? 0 : 1;
  const needed = c.requiredLevel == null ? '' : ` · ${levelText(c.requiredLevel, 1)} needed`;
  const interval = c.ci95 ? ` (${c.ratio.toFixed(2)}× [${c.ci95.map((x) => x.toFixed(2)).join('–')}${c.ciLevel == null ? '' : ` · ${levelText(c.ciLevel, decimals)}`}${needed}${pairedText(c)}])` : ` (too few ${c.paired ? `pairs: ${c.pairs}` : 'runs'})`;
  const could = c.verdict === verdicts.unclear ? detectableCell(c) : '';
  return `${versusText(c)}: ${c.verdict}${interval}${could ? `, ${could}` : ''}${c.insideControl ? ', inside the A/A spread: not a finding' : ''}`;
}

/**
 * The scope of an experiment's verdicts, in one line: the rate and the comparisons it holds across
 * (result.family, the same on each point judged together), or that one server has nothing to be
 * compared with.
 * @param {Experiment} e
 */
function scopeLine(e) {
  const compared = e.points.reduce((n, p) => n + p.result.comparisons.length, 0);
  if (!compared) return 'No comparison: one server has nothing to be compared with, so no verdict.';
  return `Verdicts: ${scopeText(e.points.find((p) => p.result.family)?.result.family)} (Holm's step-down).`;
}

/**
 * The Markdown summary: one table per experiment in the classic layout, then where the newer
 * protocol wins. `about`: a line saying where and in what it ran (browser, machine, servers).
 * @param {Experiment[]} experiments
 * @param {string} about
 */
export function summaryMarkdown(experiments, about) {
  return ['# h2lab results', '', about, '', ...findingsLines(experiments), ...acrossLines(experiments), summaryTables(experiments)].join('\n');
}

/** A family's verdict in a cell: "0.85× [0.80–0.90]: faster". @param {import('./result.js').Comparison} c */
const acrossCell = (c) => `${c.ratio.toFixed(2)}×${c.ci95 ? ` [${c.ci95.map((x) => x.toFixed(2)).join('–')}]` : ''}: ${c.verdict}`;

/**
 * Each protocol pair side by side in every family that measured it (common/report/across-families.js),
 * after the findings; nothing when no experiment has a pair in two families.
 * @param {Experiment[]} experiments
 */
function acrossLines(experiments) {
  const lines = [];
  for (const e of experiments) {
    const rows = acrossFamilies(e.points);
    if (!rows.length) continue;
    const names = [...new Set(rows.flatMap((r) => r.byFamily.map((f) => f.family)))];
    if (experiments.length > 1) lines.push(`### ${e.title}`, '');
    lines.push(`| ${e.paramLabel} | pair | ${names.map(familyTitle).join(' | ')} | across implementations |`, `|${' --- |'.repeat(names.length + 3)}`);
    for (const r of rows) {
      const cells = names.map((n) => r.byFamily.find((f) => f.family === n)).map((f) => (f ? acrossCell(f.comparison) : '–'));
      lines.push(`| ${r.label} | ${r.pair} | ${cells.join(' | ')} | ${r.agreement === 'differ' ? `**${r.text}**` : r.text} |`);
    }
    lines.push('');
  }
  if (!lines.length) return [];
  const about = 'Each protocol pair in every implementation that measured it. Each verdict is its own family\'s, judged as in the findings; "agree" means every family decided alike, and a pair whose families decided differently is in bold.';
  return ['## Across implementations', '', about, '', ...lines];
}

/**
 * The findings in words (common/report/findings.js), before the tables: under each experiment's title
 * where there are several.
 * @param {Experiment[]} experiments
 */
function findingsLines(experiments) {
  const lines = ['## Findings', ''];
  for (const e of experiments) {
    if (experiments.length > 1) lines.push(`### ${e.title}`, '');
    lines.push(...findings(e.points, e.paramLabel).map((f) => `- ${f}`), '');
  }
  return lines;
}

/**
 * The tables and verdicts of summaryMarkdown, without its heading.
 * @param {Experiment[]} experiments
 */
function summaryTables(experiments) {
  const lines = [];
  const controlled = experiments.some((e) => e.points.some((p) => p.result.settings?.control));
  lines.push(`Cells: median total time in ms [confidence interval of the median · its exact level, which the number of runs sets: 75 % for 3, 94 % for 5, 97 % for 6], under a throttled preset measured / physical floor, and what the server paid per run (medians: connections opened, CPU of the lab process). Verdicts compare each server with the HTTP/1.1 server of its family (and an HTTP/3 server also with the HTTP/2 server of its family) by the ratio of the medians and its interval [· level]; one comparison alone needs a ${levelText(verdictLevel)} interval, whose level is the lower of Mann–Whitney's and Brunner–Munzel's (which allows the two servers different spreads: 6 runs a side or more, 4 against 4 reach 87 % at most), and each of several comparisons needs more (Holm's step-down, below; the level each needed is printed beside it): faster or slower when the whole interval lies beyond ±${practicalMargin * 100} % of 1, no meaningful difference when it lies wholly within, no clear difference otherwise. Each experiment's verdicts keep false "faster" or "slower" within ${levelText(familyRate)} across all its comparisons, its scope printed under its title.${controlled ? ' An A/A control measures one server a second time in every repeat: its ratio to the first is what the set-up alone produces, and a faster or slower verdict whose ratio lies inside its interval is marked as no finding.' : ''}`, '');
  // Said where it applies: a lossy packet path, whose runs lost packets from seeds.
  const pairedPoints = experiments.flatMap((e) => e.points.filter((p) => p.result.comparisons.some((c) => c.paired)));
  if (pairedPoints.length) {
    const baseSeeds = [...new Set(pairedPoints.map((p) => p.result.settings.lossSeed))].join(', ');
    lines.push(`Paired: on a lossy path repeat i of every server lost packets from the same seed (base seed ${baseSeeds}: --loss-seed), so those comparisons take each repeat's two runs as a pair: the ratio is the pairs' Hodges–Lehmann estimate and its interval comes from the signed-rank distribution (4 pairs reach 87.5 % at most, 5 93.75 %, 6 96.9 %: a verdict needs 6 pairs or more); a run whose partner is missing or invalid drops out.`, '');
  }
  if (experiments.some((e) => e.points.some((p) => p.result.untilDecided))) {
    lines.push(`Repeats until decided: each point ran in rounds (${untilDecided.firstRoundRepeats} repeats, then ${untilDecided.roundRepeats} at a time) and stopped once every verdict was decided (or, aiming at a difference with --aim, every open one could have found it) or at its cap. Looking after every round gives more chances of a false verdict, so each look spends a share of the rate, and a look whose runs could not decide anything (4 pairs reach 87.5 % at most) spends none; the level each verdict needed is printed beside it ("needed"). Over all looks and all comparisons of an experiment a false faster or slower stays within ${levelText(familyRate)} (docs/statistics.md). The A/A control is reported beside the verdicts but holds no point back: a point stops once its real comparisons are decided.`, '');
  }
  // Each caveat once, for the networks the results ran on.
  for (const network of networks.filter((n) => n.caveat && experiments.some((e) => e.points.some((p) => networkOf(networkRecordOf(p.result.environment).id) === n)))) lines.push(network.caveat, '');
  /** @type {Record<string, Tally>} */
  const tally = {};
  for (const e of experiments) {
    const servers = summarizedServers(e.points.map((p) => p.result));
    lines.push(`## ${e.title}`, '', scopeLine(e), '');
    lines.push(`| ${e.paramLabel} | network measured | ${servers.map((id) => `${serverLabel(id)} (ms)`).join(' | ')} | verdicts |`);
    lines.push(`|${' --- |'.repeat(servers.length + 3)}`);
    for (const p of e.points) {
      const rounds = roundsText(p.result);
      const verdictCell = `${rounds ? `${rounds}: ` : ''}${p.result.comparisons.map(shortVerdict).join('; ') || '–'}`;
      lines.push(`| ${p.label} | ${networkCell(p.result.environment)} | ${servers.map((id) => cell(p.result, id)).join(' | ')} | ${verdictCell} |`);
      for (const c of p.result.comparisons) {
        const key = `${c.server} ${c.baseline}`;
        tally[key] ??= { comparison: c, .../** @type {Record<import('./result.js').Verdict, Map<Experiment, string[]>>} */ (Object.fromEntries(Object.values(verdicts).map((v) => [v, new Map()]))) };
        const byExperiment = tally[key][c.verdict];
        byExperiment.set(e, [...(byExperiment.get(e) ?? []), p.label]);
      }
      const problems = p.result.runs.filter((r) => !r.valid).map((r) => `${serverLabel(r.server)} repeat ${r.repeat}: ${invalidText(r)}`);
      if (problems.length) lines.push(`|  | invalid runs, left out: ${problems.join('; ')} |`);
    }
    lines.push('');
    lines.push(...capturedConnections(e, servers));
  }
  lines.push(...sideBySideLines(compareNetworks(experiments), networksHeading));
  lines.push(...sideBySideLines(compareBrowsers(experiments), browsersHeading));
  lines.push('## Where the newer protocol wins', '');
  /** @param {Map<Experiment, string[]>} m */
  const count = (m) => [...m.values()].reduce((n, labels) => n + labels.length, 0);
  /** @param {Map<Experiment, string[]>} m */
  const where = (m) => [...m].map(([e, labels]) => `${e.title} (${e.paramLabel}: ${labels.join(', ')})`).join('; ');
  for (const t of Object.values(tally)) {
    const [faster, slower, same, tie] = [verdicts.faster, verdicts.slower, verdicts.meaningless, verdicts.unclear].map((v) => count(t[v]));
    const { server, baseline } = t.comparison;
    if (twinOf(server) !== null) {
      lines.push(`- **A/A control** (${serverLabel(baseline)} measured twice): "faster" in ${faster}, "slower" in ${slower}, within ±${practicalMargin * 100} % in ${same} and not clearly different in ${tie} of ${faster + slower + same + tie} conditions; any "faster" or "slower" here is a false verdict.`);
      continue;
    }
    lines.push(`- **${serverLabel(server)}** is faster than ${serverLabel(baseline)} in ${faster}, slower in ${slower}, within ±${practicalMargin * 100} % in ${same} and not clearly different in ${tie} of ${faster + slower + same + tie} conditions.`);
    if (faster) lines.push(`  - faster: ${where(t.faster)}`);
    if (slower) lines.push(`  - slower: ${where(t.slower)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Per point and server, what its runs' connections went through as the packet captures saw them
 * (connections.csv has each connection); nothing when no run was captured.
 * @param {Experiment} e @param {string[]} servers
 */
function capturedConnections(e, servers) {
  const lines = e.points.flatMap((p) => servers.map((id) => {
    const text = connectionTotalsText(connectionTotals(p.result.runs.filter((r) => r.server === id)));
    return text && `- ${p.label} · ${serverLabel(id)}: ${text}`;
  }).filter(Boolean));
  return lines.length ? ['Connections, from each run\'s packet capture (connections.csv has every one):', '', ...lines, ''] : [];
}

/** @param {import('./network-comparison.js').NetworkRatio|undefined} r */
const ratioCell = (r) => (r ? `${r.ratio.toFixed(2)}×${r.ci95 ? ` [${r.ci95.map((x) => x.toFixed(2)).join('–')}${r.ciLevel == null ? '' : ` · ${levelText(r.ciLevel)}`}]` : ''}` : '–');

const networksHeading = {
  heading: 'Networks side by side',
  text: 'The same points under each network: median total time in ms, and the ratio of the medians between two networks (packet/link > 1: slower on the packet network) [interval of the ratio · its level; none under 2 valid runs on a side].',
  /** @param {string} n */
  title: (n) => networkOf(n).title,
};
const browsersHeading = {
  heading: 'Browsers side by side',
  text: 'The same points in each browser: median total time in ms, and the ratio of the medians between two browsers (firefox/chromium > 1: slower in Firefox) [interval of the ratio · its level; none under 2 valid runs on a side].',
  /** @param {string} n */
  title: (n) => browserTitles[/** @type {import('../setup/browser-names.js').BrowserName} */ (n)] ?? n,
};

/**
 * Lines of the side-by-side tables of experiments that ran under several networks (in several
 * browsers): per condition and server the median under each, and each ratio between them with
 * its interval and level.
 * @param {import('./network-comparison.js').NetworkComparison[]} compared
 * @param {typeof networksHeading} words
 */
function sideBySideLines(compared, { heading, text, title }) {
  if (!compared.length) return [];
  const lines = [`## ${heading}`, ''];
  lines.push(text, '');
  for (const c of compared) {
    const pairs = c.sides.flatMap((over, j) => c.sides.slice(0, j).map((under) => /** @type {[string, string]} */ ([over, under])));
    lines.push(`### ${c.title}`, '');
    if (c.family) lines.push(`Their verdicts (in the CSV): ${Math.round(familyRate * 100)} % across the ${c.family} ratio${c.family > 1 ? 's' : ''} of this table (Holm's step-down); each interval is drawn at the level its step needs.`, '');
    lines.push(`| ${c.paramLabel} | server | ${c.sides.map((n) => `${title(n)} (ms)`).join(' | ')} | ${pairs.map(([over, under]) => `${over}/${under}`).join(' | ')} |`);
    lines.push(`|${' --- |'.repeat(2 + c.sides.length + pairs.length)}`);
    for (const r of c.rows) {
      const ratios = pairs.map(([over, under]) => ratioCell(r.ratios.find((x) => x.over === over && x.under === under)));
      lines.push(`| ${r.label} | ${serverLabel(r.server)} | ${c.sides.map((n) => ms(r.medians[n])).join(' | ')} | ${ratios.join(' | ')} |`);
    }
    lines.push('');
  }
  return lines;
}

/**
 * One experiment of the page (a Result) as Markdown: its set-up and environment, then the same
 * table and verdicts as summary.md.
 * @param {import('./result.js').Result} result
 */
export function resultMarkdown(result) {
  const s = result.settings;
  const e = result.environment;
  const experiment = { id: result.id, title: 'Total time per server', paramLabel: 'Run', points: [{ label: settingsLabel(s), result }] };
  const lines = [`# h2lab result ${result.id}`, '', ...findingsLines([experiment]), '## Set-up', ''];
  lines.push(`- ${settingsLabel(s)}, at most ${s.maxInFlight} in flight, ${s.repeats} repeats per server, ${s.connections} connections`);
  const record = networkRecordOf(e);
  if (e.preset) lines.push(`- Network: ${describePreset(e.preset)}, ${networkOf(record.id).text}; applied by ${presetAppliedByText(e.presetAppliedBy) ?? 'not recorded (a result from before h2lab recorded it)'}`);
  if (record.conditions) lines.push(`- ${networkRecordText(record)}${seededLosses(result) ? `; ${lossSeedText(/** @type {number} seededLosses */ (s.lossSeed))}` : ''}`);
  if (e.calibration) lines.push(`- Measured before the runs, through ${serverLabel(e.calibration.server)}: ${calibrationText(e.calibration)}`);
  if (e.networkMismatches?.length) lines.push(`- **${mismatchText(e.preset, e.networkMismatches)}**`);
  lines.push(`- Servers: ${/** @type {{ label: string, software?: string }[]} */ (e.servers).map((x) => `${x.label}${x.software ? ` (${x.software})` : ''}`).join(', ')}`);
  lines.push(`- Browser: ${e.userAgent}`);
  lines.push(`- Started ${result.startedAt}, finished ${result.finishedAt}${result.stopped ? `; stopped early (${result.stopReason}): only the runs that finished` : ''}`);
  lines.push('');
  return `${lines.join('\n')}\n${summaryTables([experiment])}`;
}
