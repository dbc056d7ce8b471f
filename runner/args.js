// `npm run experiments -- [options]`: the headless runner's command line. Values are checked with the
// lab's own rules (settings.js, sweep.js), so the runner accepts exactly what the page accepts.
// Every problem is an Error with one line that names the option and what it takes, for runCli
// to print before exiting 2.
import { cannotCarry, carries, isThrottled, presetById, presetByName, presets } from '../common/setup/presets.js';
import { defaults, fields, limits, untilDecided, validateField, validateSettings } from '../common/setup/settings.js';
import { defaultControlOf } from '../common/setup/servers.js';
import { drawSeed } from '../common/setup/seeds.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { planSweep } from '../common/setup/sweep.js';
import { traceNameOf, traceNamePattern } from '../common/setup/trace-name.js';
import { parseTrace } from '../server/path/trace.js';
import { defaultNetworkId, networkIds, networkOf } from '../common/setup/networks.js';
import { burstBounds } from '../common/setup/path-limits.js';
import { inRange, plainDecimalPattern, rangeRule } from '../common/setup/units.js';
import { evidenceSpec, evidenceUsage } from './output/evidence.js';
import { aimRule, budgetRule, maxRepeatsRule } from '../common/stats/until-decided.js';
import { readUntilDecided, untilDecidedUsage } from '../cli/until-decided.js';
import { browserRule, readBrowsers } from './browsers/browser-option.js';
import { browserUrlRule, got, readArgs, readBrowserUrl, readCapture, readNetLogFlag, readOutDir, readUrl, usageError } from '../cli/options.js';

// Options that set one settings field, by the flags common/setup/settings.js declares; --network takes
// a list and is read on its own. The sweepable ones take the same names in --sweep.
const fieldOfFlag = Object.fromEntries(Object.entries(fields).filter(([field]) => field !== 'network').map(([field, f]) => [f.flag, field]));
const sweepFlags = Object.keys(fieldOfFlag).filter((flag) => limits.sweep.params.includes(fieldOfFlag[flag]));

// The classic grids fix these per grid (sweep.js classicSweeps); giving them too would be ignored.
const fixedBySuite = ['requests', 'size', 'delay', 'repeats', 'preset'];

// settings.js words each field's rule for the page ("Repeats must be …"); the flag names the
// field here, so the message keeps the rule alone ("--repeats: must be …", as every command says).
/** @param {string} message */
const bare = (message) => message.slice(Math.max(0, message.indexOf('must ')));
// Asking settings.js about a missing value returns the field's rule.
/** @param {string} field */
const ruleOf = (field) => bare(/** @type {import('../common/setup/settings.js').SettingError} */ (validateField(field, undefined).error).message);
const presetRule = `${ruleOf('preset')}, all or none (labels such as "Slow 4G" work too)`;
const sweepRule = `give PARAM=V1,V2,… with PARAM one of ${sweepFlags.join(', ')}`;
const uiRule = "must be the running lab's UI origin, an http(s) URL such as http://localhost:8080";
const burstRule = `must be P,R: Gilbert–Elliott bursts, P % of good packets start a burst (${rangeRule(burstBounds.p)}) and R % of a burst's packets end it (${rangeRule(burstBounds.r)}); a burst loses every packet, P/(P+R) of them in the long run`;
const traceRule = "a trace file in mahimahi's format, or the name of one the lab has (GET /api/traces)";

// What each option takes, for an option given without its value.
/** @type {Record<string, string>} */
const accepts = {
  ...Object.fromEntries(Object.entries(fieldOfFlag).map(([flag, field]) => [flag, ruleOf(field)])),
  preset: presetRule,
  sweep: sweepRule,
  suite: 'the only suite is classic',
  network: `${fields.network.oneOf.join(', ')}, a comma-separated list of them, or both`,
  out: 'a directory',
  burst: burstRule,
  'trace-down': traceRule,
  'trace-up': traceRule,
  ui: uiRule,
  'browser-url': browserUrlRule,
  shard: 'must be K/N, this machine\'s part of the experiment: whole numbers with 1 ≤ K ≤ N ≤ 1000',
  // --repeats takes auto besides a number: rounds until every verdict is decided.
  repeats: `${ruleOf('repeats')}, or auto (rounds until decided, with --max-repeats)`,
  'max-repeats': `must be ${maxRepeatsRule}`,
  budget: `must be ${budgetRule}`,
  aim: `must be ${aimRule}`,
  browser: browserRule,
};

/** @type {Record<string, import('../cli/options.js').OptionSpec>} */
const optionSpec = {
  ...Object.fromEntries(Object.keys(accepts).map((flag) => [flag, { type: 'string', accepts: accepts[flag].replace(/^must be /, '') }])),
  quick: { type: 'boolean' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  headed: { type: 'boolean' },
  'no-servers': { type: 'boolean' },
  ...evidenceSpec,
};

const thousands = new Intl.NumberFormat('en-US');

/**
 * A number option's usage line, from its declaration: "  --size MiB   response size, 0–64 MiB (default 0.1)".
 * @param {'requests'|'sizeMiB'|'delayMs'|'repeats'|'maxInFlight'|'loss'|'lossSeed'} field
 * @param {string} what
 * @param {string} [defaultText]  for a setting without a default value
 */
function numberUsage(field, what, defaultText) {
  const { flag, unit, min, max, default: value } = /** @type {import('../common/setup/settings.js').Field & import('../common/setup/units.js').Range} */ (fields[field]);
  const arg = unit === '%' ? 'PCT' : (unit ?? 'N');
  return `  ${`--${flag} ${arg}`.padEnd(24)}${what}, ${thousands.format(min)}–${thousands.format(max)}${unit ? ` ${unit}` : ''} (default ${defaultText ?? value})`;
}

export const runnerUsage = `Usage: npm run experiments -- [options]

Runs the h2lab comparison in headless Chromium (or Firefox: --browser), with DevTools network
presets applied through the DevTools Protocol, and writes the results to a directory.

Experiment (defaults are the lab's):
${numberUsage('requests', 'parallel requests per timed run')}
${numberUsage('sizeMiB', 'response size')}
${numberUsage('delayMs', 'server delay per request')}
${numberUsage('repeats', 'timed runs per server')}
  --repeats auto          rounds until decided: ${untilDecided.firstRoundRepeats} repeats, then ${untilDecided.roundRepeats} more at a time, until every
                          verdict of a point is decided (each look at a level that keeps false verdicts
                          within 5 % over all looks and comparisons of the experiment; the A/A
                          control holds no point back) or the cap is reached
${untilDecidedUsage(26)}
${numberUsage('maxInFlight', 'dispatch window')}
  --servers LIST          comma-separated, of ${defaults.servers.join(', ')} (default all)
  --control [SERVER]      A/A control: measure SERVER (one of --servers) a second time in every repeat,
                          in a slot of its own; its ratio to the first is the noise floor a verdict
                          must clear (default without SERVER: the first server another is compared with)
  --connections MODE      cold (connections closed before every timed run) or warm (default ${defaults.connections})
  --preset NAME           a preset id or label, case-insensitive (slow-4g, "Slow 4G"); all = every
                          throttled preset in table order; none = no throttling (default none)
  --sweep PARAM=V1,V2,…   vary ${sweepFlags.join(', ')} over up to ${limits.sweep.maxPoints} values (default no sweep)
  --suite classic         the classic experiment's grids 1–4; fixes ${fixedBySuite.join(', ')}
  --quick                 with --suite: 4 repeats (ratios without a verdict: one needs 6 or more a side), no presets under 150,000 B/s down
  --shard K/N             run only the K-th of N parts (of every point, the repeats r with (r − 1) mod N = K − 1,
                          every server each); npm run merge-results -- DIR… --out DIR joins the parts
  --network HOW           who applies the presets: devtools (DevTools throttling through the
                          DevTools Protocol, request-level), link (the lab link, connection-level,
                          below TLS), packet (real TCP and QUIC on an emulated path: Linux, user
                          namespaces, /dev/net/tun, python3), a list (devtools,link,packet: every
                          point under each, side by side) or both (devtools,link) (default devtools)
${numberUsage('loss', 'packets lost per direction on the packet network')}
  --burst P,R             bursts of loss on the packet network (Gilbert–Elliott): P % of packets start
                          one, R % of a burst's end it; all of a burst is lost, P/(P+R) in the long run
                          (0.51,25: 2 % in bursts of 4 packets), beside --loss's random loss (default none)
${numberUsage('lossSeed', 'base seed of the losses', 'drawn per command and printed')}
  --trace-down FILE       the download rate follows a trace (mahimahi's format: one millisecond per
  --trace-up FILE         line at which 1,504 bytes may leave; or a trace the lab has, such as
                          markov-fast-4g-down) instead of the preset's rate; the preset still gives
                          the round trip; under a network the lab sets only

Output:
  --out DIR               where the files go (default results/<UTC time, e.g. 2026-11-21T15-04-05>/)
${evidenceUsage(26, 'run')}
  --json                  print the result object on stdout
  --quiet                 no progress on stderr

Browser and lab:
  --browser NAME          chromium or firefox (puppeteer-core over WebDriver BiDi; --network link or
                          packet only, a lab of the runner's own), or a list (chromium,firefox: every
                          point in each, side by side) (default chromium)
  --headed                show the browser window (default headless)
  --browser-url URL       drive a Chrome that is already running, through its DevTools endpoint
                          (another machine's, or a phone's through adb forward), instead of
                          starting one; it ignores certificate errors for the run only
  --no-servers            use a lab that is already running instead of starting one; needs --ui
  --ui URL                that lab's UI origin, e.g. http://localhost:8080
  -h, --help              this text

Presets: ${presets.map((p) => p.id).join(', ')}
Exit code: 0 every run valid, 1 some runs failed or were invalid (or the budget was spent before a point began), 2 a usage error.`;

/**
 * What `npm run experiments` runs (parseRunnerArgs without --help).
 * @typedef {object} RunnerOptions
 * @property {false} help
 * @property {import('../common/report/result.js').Settings} settings
 * @property {import('../common/setup/presets.js').Preset[]} presets
 * @property {import('../common/setup/settings.js').SweepSetting | null} sweep  values: the checked text, for planSweep
 * @property {'classic' | null} suite
 * @property {boolean} quick
 * @property {string} out
 * @property {boolean} json
 * @property {boolean} quiet
 * @property {boolean} headed
 * @property {boolean} servers  whether the runner starts its own lab
 * @property {boolean} serversGiven  --servers was given
 * @property {string | null} ui
 * @property {string | null} browserUrl
 * @property {import('../common/setup/networks.js').NetworkId[]} networks  who applies the presets; each point runs under each
 * @property {{ p: number, r: number } | null} burst  --burst: Gilbert–Elliott bursts of loss, % per packet
 * @property {ReturnType<typeof readTraces>} traces  --trace-down, --trace-up
 * @property {{ whole: boolean } | null} capture  --capture, --capture-whole
 * @property {boolean} netlog  --netlog
 * @property {{ k: number, n: number } | null} shard  --shard K/N: this machine's repeats of every point
 * @property {UntilDecided | null} untilDecided  --repeats auto: settings.repeats is then the cap
 * @property {import('./browsers/browsers.js').BrowserName[]} browsers  --browser: each point runs in each, in this order
 */

/** @typedef {import('../cli/until-decided.js').UntilDecided} UntilDecided */

/**
 * The shape of runCli's parse. A run covers `presets` × the sweep's points: each preset in turn
 * runs the whole sweep (or one comparison without a sweep). A preset sweep sets each point's
 * preset itself, so `presets` is then the base alone; the classic suite's grids carry their own.
 * @param {string[]} argv  the arguments after `--`
 * @param {NodeJS.ProcessEnv} [env]  INIT_CWD (set by npm): the directory a relative --out is meant from
 * @param {Date} [now]  the time the default --out directory is named after
 * @returns {{ help: true } | RunnerOptions}
 */
export function parseRunnerArgs(argv, env = process.env, now = new Date()) {
  // The value flags come from the field schema, so their names are known only at run time.
  const values = /** @type {Record<string, any>} */ (readArgs(withControlDefault(argv), optionSpec));
  if (values.help) return { help: true };
  checkCombinations(values);

  const sweepParam = values.sweep === undefined ? null : readSweepParam(values.sweep);
  if (sweepParam && values[sweepParam] !== undefined) {
    throw usageError(sweepParam, `cannot be combined with --sweep ${sweepParam}=…, which sets it for every point`);
  }

  const presetsToRun = readPresets(values.preset);
  const auto = readRunnerUntilDecided(values);
  // Until decided, each point plans for the cap; its result says how many ran.
  const settings = readSettings({ ...values, repeats: auto ? String(auto.maxRepeats) : values.repeats }, presetsToRun[0].id);
  const sweep = sweepParam ? readSweep(sweepParam, values.sweep, settings) : null;
  const suite = values.suite === undefined ? null : readSuite(values.suite);
  const networks = readNetworks(values.network, suite ? [] : presetsToRun, sweep, settings);
  const burst = readBurst(values.burst, networks);
  if (values['loss-seed'] !== undefined && networks.some((n) => !networkOf(n).carries.loss)) {
    throw usageError('loss-seed', `seeds the losses of a network that loses packets: give --network ${networkIds.filter((n) => networkOf(n).carries.loss).join(',')} alone`);
  }

  return {
    help: false,
    settings: withBaseSeed(settings, sweep, burst, values.shard !== undefined),
    presets: suite ? [] : presetsToRun,
    sweep,
    suite,
    quick: values.quick ?? false,
    out: readOutDir(values.out, env, now),
    json: values.json ?? false,
    quiet: values.quiet ?? false,
    headed: values.headed ?? false,
    servers: !values['no-servers'],
    serversGiven: values.servers !== undefined,
    ui: values.ui === undefined ? null : readUi(values.ui),
    browserUrl: values['browser-url'] === undefined ? null : readBrowserUrl(values['browser-url']),
    networks,
    burst,
    traces: readTraces(values, networks),
    capture: readCapture(values, networks),
    netlog: readNetLogFlag(values),
    shard: values.shard === undefined ? null : readShard(values.shard),
    untilDecided: auto,
    browsers: readBrowsers(values.browser, networks, { remote: values['browser-url'] !== undefined || Boolean(values['no-servers']) }),
  };
}

/**
 * The settings with the base seed of their losses where the run loses packets: --loss-seed's, or
 * a fresh one for the whole command (every experiment, point and round of it), which results.json
 * and the summary record so that --loss-seed draws the same losses again. Shards run apart and
 * cannot draw one between them: they need it given.
 * @param {import('../common/report/result.js').Settings} settings  read, --loss-seed among them
 * @param {import('../common/setup/settings.js').SweepSetting | null} sweep
 * @param {{ p: number, r: number } | null} burst  --burst
 * @param {boolean} sharded  --shard
 */
function withBaseSeed(settings, sweep, burst, sharded) {
  const lossy = settings.loss > 0 || sweep?.param === 'loss' || burst !== null; // each allowed on a lossy network alone
  if (!lossy || settings.lossSeed !== undefined) return settings;
  if (sharded) throw usageError('shard', `the shards of one experiment must lose the same packets: give every shard the same --loss-seed N (${ruleOf('lossSeed')})`);
  return { ...settings, lossSeed: drawSeed(fields.lossSeed) };
}

// --control without a server measures the default one twice (common/setup/servers.js defaultControlOf).
const defaultControl = 'default';

/**
 * --control alone, last or before another option, takes the default server.
 * @param {string[]} argv
 */
const withControlDefault = (argv) => argv.map((a, i) => (a === '--control' && (i + 1 === argv.length || argv[i + 1].startsWith('-')) ? `--control=${defaultControl}` : a));

/**
 * --repeats auto as every command reads it (cli/until-decided.js), and what the experiments add:
 * no shards and no --quick with it.
 * @param {Record<string, any>} values  readArgs' (see parseRunnerArgs)
 * @returns {UntilDecided | null}
 */
function readRunnerUntilDecided(values) {
  const auto = readUntilDecided(values);
  // A shard runs a fixed share of repeats, which rounds decided as they go cannot give.
  if (auto && values.shard !== undefined) throw usageError('repeats', 'auto cannot be sharded: shards split a fixed plan of repeats; give --repeats N with --shard');
  if (auto && values.quick) throw usageError('quick', `not with --repeats auto: --quick fixes ${untilDecided.firstRoundRepeats} repeats`);
  return auto;
}

/**
 * --shard K/N.
 * @param {string} text
 * @returns {{ k: number, n: number }}
 */
function readShard(text) {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  const [k, n] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(k >= 1 && k <= n && n <= 1000)) throw usageError('shard', `${accepts.shard}, ${got(text)}`);
  return { k, n };
}

/**
 * Who applies the presets, in the order they run; each must carry every preset of the run.
 * @param {string|undefined} text
 * @param {import('../common/setup/presets.js').Preset[]} presetsToRun
 * @param {import('../common/setup/settings.js').SweepSetting | null} sweep
 * @param {import('../common/report/result.js').Settings} settings
 * @returns {import('../common/setup/networks.js').NetworkId[]}
 */
function readNetworks(text, presetsToRun, sweep, settings) {
  const name = (text ?? defaultNetworkId).trim().toLowerCase();
  // both: DevTools and the network of twin ports (the lab link), the two a running lab offers every browser page.
  const names = name === 'both' ? networkIds.filter((n) => !networkOf(n).labSets || networkOf(n).twinPorts) : name.split(',').map((n) => n.trim());
  const known = [...networkIds];
  if (names.some((n) => !known.includes(n)) || new Set(names).size !== names.length) {
    throw usageError('network', `must be ${accepts.network}, ${got(text)}`);
  }
  const networks = known.filter((n) => names.includes(n));
  const swept = sweep?.param === 'preset' ? planSweep('preset', sweep.values, settings).points.map((p) => p.value) : [];
  const ids = [...presetsToRun.map((p) => p.id), ...swept];
  const refusing = networks.find((n) => ids.some((id) => !carries(n, id)));
  if (refusing) throw usageError('network', cannotCarry(refusing));
  if ((settings.loss > 0 || sweep?.param === 'loss') && networks.some((n) => !networkOf(n).carries.loss)) {
    const lossy = networkIds.filter((n) => networkOf(n).carries.loss);
    throw usageError(sweep?.param === 'loss' ? 'sweep' : 'loss', `only the ${lossy.map((n) => networkOf(n).title).join(' or ')} loses packets: give --network ${lossy.join(',')} alone`);
  }
  return /** @type {import('../common/setup/networks.js').NetworkId[]} */ (networks); // of networkIds, checked above
}

/**
 * --burst P,R: both rates within their bounds (the lab's, server/path/conditions.js), on networks
 * that lose packets; null when not given.
 * @param {string|undefined} text
 * @param {string[]} networks
 * @returns {{ p: number, r: number } | null}
 */
function readBurst(text, networks) {
  if (text === undefined) return null;
  const parts = text.split(',').map((t) => t.trim());
  const [p, r] = parts.map((t) => (plainDecimalPattern.test(t) ? Number(t) : NaN));
  if (parts.length !== 2 || !inRange(burstBounds.p, p) || !inRange(burstBounds.r, r)) throw usageError('burst', `${burstRule}, ${got(text)}`);
  const lossless = networks.filter((n) => !networkOf(n).carries.loss);
  if (lossless.length) throw usageError('burst', `only a network that loses packets has bursts: give --network ${networkIds.filter((n) => networkOf(n).carries.loss).join(',')} alone`);
  return { p, r };
}

/**
 * --trace-down and --trace-up: a file is read and checked here (one line naming the line at fault,
 * exit 2), to be uploaded to the lab under its file name; anything else names a trace the lab has.
 * @param {Record<string, any>} values  readArgs' (see parseRunnerArgs)
 * @param {string[]} networks
 * @returns {{ traceDown?: { name: string, text?: string }, traceUp?: { name: string, text?: string } }}
 */
function readTraces(values, networks) {
  /** @type {Record<string, { name: string, text?: string }>} */
  const traces = {};
  for (const [key, flag] of [['traceDown', 'trace-down'], ['traceUp', 'trace-up']]) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const browserApplied = networks.filter((n) => !networkOf(n).labSets);
    if (browserApplied.length) throw usageError(flag, `a trace shapes a network the lab sets, not ${browserApplied.map((n) => networkOf(n).title).join(' or ')} throttling: give --network ${networkIds.filter((n) => networkOf(n).labSets).join(' or ')}`);
    if (!existsSync(raw)) {
      if (!traceNamePattern.test(raw)) throw usageError(flag, `no such file, and not the name of a trace: ${got(raw)}`);
      traces[key] = { name: raw };
      continue;
    }
    const text = readFileSync(raw, 'utf8');
    const name = traceNameOf(path.basename(raw));
    parseTrace(text, { name, field: `--${flag}` });
    traces[key] = { name, text };
  }
  return traces;
}

/** @param {Record<string, any>} values  readArgs' (see parseRunnerArgs) */
function checkCombinations(values) {
  readNetLogFlag(values);
  if (values.quick && values.suite === undefined) throw usageError('quick', 'only with --suite classic, whose grids it shortens');
  if (values.suite !== undefined) {
    if (values.sweep !== undefined) throw usageError('sweep', 'cannot be combined with --suite classic, which runs its own sweeps');
    // The grids' repeats give way to rounds until decided, which need no number.
    const fixed = fixedBySuite.find((flag) => values[flag] !== undefined && !(flag === 'repeats' && values.repeats.trim().toLowerCase() === 'auto'));
    if (fixed) throw usageError(fixed, `cannot be combined with --suite classic, which fixes ${fixedBySuite.join(', ')} per grid`);
  }
  if (values['no-servers'] && values.ui === undefined) throw usageError('no-servers', `needs --ui URL: ${uiRule.replace('must be ', '')}`);
  if (values.ui !== undefined && !values['no-servers']) throw usageError('ui', 'only with --no-servers; without it the runner starts its own lab');
  if (values.headed && values['browser-url'] !== undefined) throw usageError('headed', 'not with --browser-url: that browser shows its windows as it was started');
  // The packet network's browser runs on its browser side, next to a lab of the runner's own.
  if (/packet/i.test(values.network ?? '') && (values['browser-url'] !== undefined || values['no-servers'])) {
    throw usageError('network', 'packet starts its own lab and browser: not with --browser-url or --no-servers');
  }
}

/**
 * @param {string|undefined} text
 * @returns {import('../common/setup/presets.js').Preset[]}
 */
function readPresets(text) {
  const name = text?.trim().toLowerCase();
  if (name === undefined || name === 'none') return [/** @type {import('../common/setup/presets.js').Preset} */ (presetById('no-throttling'))];
  // Offline lets nothing through and No throttling is no preset at all: neither belongs to "all".
  if (name === 'all') return presets.filter(isThrottled);
  // The names a sweep accepts (id or label, any case or spacing), so both options agree.
  const preset = presetByName(/** @type {string} */ (text)); // name is defined
  if (!preset) throw usageError('preset', `${presetRule}, ${got(text)}`);
  return [preset];
}

/**
 * @param {Record<string, any>} values  readArgs' (see parseRunnerArgs)
 * @param {string} presetId
 */
function readSettings(values, presetId) {
  /** @type {Record<string, unknown>} */
  const given = { preset: presetId };
  for (const [flag, field] of Object.entries(fieldOfFlag)) {
    const raw = values[flag];
    if (flag === 'preset' || raw === undefined) continue;
    // The default control is one of the servers the run measures, known once they are read.
    if (field === 'control' && raw === defaultControl) continue;
    const checked = validateField(field, field === 'servers' ? raw.split(',').map((/** @type {string} */ s) => s.trim()).filter(Boolean) : raw);
    // --repeats' rule names auto too, which settings.js does not know.
    if (checked.error) throw usageError(flag, `${flag === 'repeats' ? accepts.repeats : bare(checked.error.message)}, ${got(raw)}`);
    given[field] = checked.value;
  }
  if (values.control === defaultControl) given.control = defaultControlOf(/** @type {string[]} */ (given.servers ?? defaults.servers));
  // What is left are rules across fields (bytes in flight, the control among the servers).
  const { settings, errors } = validateSettings(given);
  if (errors.length) throw usageError(/** @type {Record<string, import('../common/setup/settings.js').Field>} */ (fields)[errors[0].field].flag, errors[0].message);
  return settings;
}

/** @param {string} text */
function readSweepParam(text) {
  if (!text.includes('=')) throw usageError('sweep', `${sweepRule}, ${got(text)}`);
  const param = text.split('=')[0].trim().toLowerCase();
  if (!sweepFlags.includes(param)) throw usageError('sweep', `PARAM must be one of ${sweepFlags.join(', ')}, ${got(text)}`);
  return param;
}

/**
 * @param {string} param  a flag of sweepFlags
 * @param {string} text
 * @param {import('../common/report/result.js').Settings} settings
 * @returns {import('../common/setup/settings.js').SweepSetting}
 */
function readSweep(param, text, settings) {
  const field = /** @type {Parameters<typeof planSweep>[0]} */ (fieldOfFlag[param]);
  const valuesText = text.slice(text.indexOf('=') + 1);
  const { points, errors } = planSweep(field, valuesText, settings);
  if (errors.length) throw usageError('sweep', errors[0].message);
  // planSweep checks each value alone; a point can still break a rule across fields.
  for (const point of points) {
    const { errors: pointErrors } = validateSettings(point.settings);
    if (pointErrors.length) throw usageError('sweep', `at ${param}=${point.value}: ${pointErrors[0].message}`);
  }
  // The text as given, like the page's settings.sweep: planSweep reads it again to the same points.
  return { param: field, values: valuesText };
}

/**
 * @param {string} text
 * @returns {'classic'}
 */
function readSuite(text) {
  if (text.trim().toLowerCase() !== 'classic') throw usageError('suite', `the only suite is classic, ${got(text)}`);
  return 'classic';
}

/** @param {string} text */
function readUi(text) {
  return readUrl('ui', text, { protocols: ['http:', 'https:'], rule: uiRule }).origin;
}
