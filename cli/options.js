// Command-line options, read the same way by every h2lab command: node's parseArgs, strict, with
// no positional arguments and no repeated flag (parseArgs would keep the last one silently, and a
// dropped value makes a different run). Every problem is one Error that names the option, says
// what it takes and what was given, "--repeats: must be an integer from 1 to 100, got "0x3"",
// for runCli (cli/run.js) to print before it exits 2.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InputError } from '../common/setup/errors.js';
import { defaultNetworkId, networkIds, networkOf } from '../common/setup/networks.js';
import { cannotCarry, carries, presetByName, presets } from '../common/setup/presets.js';
import { plainDecimalPattern, plainIntegerPattern, rangeRule } from '../common/setup/units.js';

/**
 * A bad flag (an input error of the field --flag), said as "--flag: message".
 * @param {string} flag
 * @param {string} message
 */
export const usageError = (flag, message) => new InputError(`--${flag}`, `--${flag}: ${message}`);

/** @param {unknown} raw */
export const got = (raw) => `got ${JSON.stringify(raw)}`;

/**
 * @typedef {object} OptionSpec
 * @property {'string'|'boolean'} type
 * @property {string} [short]      one-letter alias (only -h is used)
 * @property {string|boolean} [default]
 * @property {boolean} [multiple]  may be given more than once (--san)
 * @property {string} [accepts]    what a value looks like, for a flag given without one
 */

/**
 * A flag's value as parseArgs gives it: text, true/false, or a list of texts for a `multiple` flag.
 * @template {OptionSpec} O
 * @typedef {O['type'] extends 'boolean' ? boolean : O extends { multiple: true } ? string[] : string} OptionValue
 */

/**
 * What readArgs returns for `spec`: the flags given (or defaulted: a flag with a default is always there), and `help`.
 * @template {Record<string, OptionSpec>} S
 * @typedef {{ [K in keyof S as S[K] extends { default: string|boolean } ? K : never]: OptionValue<S[K]> }
 *   & { [K in keyof S as S[K] extends { default: string|boolean } ? never : K]?: OptionValue<S[K]> } & { help?: boolean }} ArgValues
 */

/**
 * Parses `args` against `spec`; returns parseArgs' values (each flag given once, as text).
 * @template {Record<string, OptionSpec>} S
 * @param {string[]} args
 * @param {S} spec  `help` (-h) is added
 * @param {{ positionals?: boolean }} [o]  positionals: the command takes arguments besides its options (URLs), returned as `_`
 * @returns {ArgValues<S> & { _: string[] }}
 */
export function readArgs(args, spec, { positionals = false } = {}) {
  /** @type {Record<string, OptionSpec>} */
  const options = { ...spec, help: { type: 'boolean', short: 'h' } };
  // parseArgs refuses keys it does not know and keys set to undefined.
  /** @type {(keyof OptionSpec)[]} */
  const known = ['type', 'short', 'multiple', 'default'];
  const parseSpec = /** @type {import('node:util').ParseArgsConfig['options']} */ (Object.fromEntries(
    Object.entries(options).map(([name, o]) => [name, /** @type {Omit<OptionSpec, 'accepts'>} */ (Object.fromEntries(known.filter((k) => o[k] !== undefined).map((k) => [k, o[k]])))]),
  ));
  let parsed;
  try {
    parsed = parseArgs({ args, options: parseSpec, strict: true, allowPositionals: positionals, tokens: true });
  } catch (err) {
    throw parseError(err, options);
  }
  const seen = new Set();
  // Node's types derive the tokens from a spec known at compile time; this one is not.
  for (const token of /** @type {Array<{ kind: 'option', name: string } | { kind: 'positional'|'option-terminator' }>} */ (parsed.tokens)) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && !options[token.name].multiple) throw usageError(token.name, 'is given more than once; give it once');
    seen.add(token.name);
  }
  // parseArgs types its values for any spec; each is what this spec's flag says it is.
  return { .../** @type {ArgValues<S>} */ (parsed.values), _: parsed.positionals };
}

// parseArgs names the offending argument in quotes; its advice (positionals after '--') does not
// apply to h2lab's commands, so the message is rewritten around that name.
/**
 * @param {any} err  any: what parseArgs threw, an Error with a code (Node's own errors are not typed so)
 * @param {Record<string, OptionSpec>} options
 * @returns {Error}
 */
function parseError(err, options) {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? '';
  const flag = quoted.split(' ')[0].replace(/^--?/, '');
  const names = Object.keys(options).map((name) => `--${name}`).join(', ');
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new InputError(quoted, `${quoted}: unknown option; the options are ${names}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new InputError('argv', `${JSON.stringify(quoted)}: unexpected argument; this command takes only options (${names})`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const option = options[flag];
      if (option?.type === 'boolean') return usageError(flag, 'takes no value');
      // Also "--repeats -5": parseArgs will not take a value that starts with a dash.
      if (option) return usageError(flag, `needs a value${option.accepts ? `: ${option.accepts}` : ''}`);
      return new InputError('argv', err.message.split('\n')[0]);
    }
    default:
      return err;
  }
}

/**
 * A plain decimal (or integer) within bounds: no sign, exponent, hex (`0x3`) or unit.
 * @param {string} flag
 * @param {unknown} raw
 * @param {import('../common/setup/units.js').Range} bounds
 */
export function readNumber(flag, raw, bounds) {
  const n = Number(raw);
  const pattern = bounds.integer ? plainIntegerPattern : plainDecimalPattern;
  if (!pattern.test(String(raw)) || n < bounds.min || n > bounds.max) throw usageError(flag, `must be ${rangeRule(bounds)}, ${got(raw)}`);
  return n;
}

/**
 * One of a fixed list.
 * @template {string} C
 * @param {string} flag
 * @param {unknown} raw
 * @param {readonly C[]} choices
 * @returns {C}
 */
export function readChoice(flag, raw, choices) {
  if (!choices.includes(/** @type {C} */ (raw))) throw usageError(flag, `must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, ${got(raw)}`);
  return /** @type {C} */ (raw);
}

/**
 * A preset by id or label (any case or spacing), of those `network` can carry (common/setup/presets.js carries).
 * @param {string} flag
 * @param {string} raw
 * @param {{ network?: string }} [o]  who applies it (settings.network, an id of common/setup/networks.js)
 */
export function readPreset(flag, raw, { network = defaultNetworkId } = {}) {
  const preset = presetByName(raw);
  if (preset && !carries(network, preset.id)) throw usageError(flag, `${cannotCarry(network)}, ${got(raw)}`);
  if (!preset) {
    throw usageError(flag, `must be one of ${presets.filter((p) => carries(network, p.id)).map((p) => p.id).join(', ')} (or its label), ${got(raw)}`);
  }
  return preset;
}

/**
 * --out: a directory the user typed is relative to where they typed it (npm runs scripts in the
 * package root and passes that place as INIT_CWD); by default results/<prefix><UTC time>.
 * @param {string|undefined} text
 * @param {Record<string, string|undefined>} env
 * @param {Date} now
 * @param {string} [prefix]
 */
export function readOutDir(text, env, now, prefix = '') {
  if (text !== undefined && text.trim() === '') throw usageError('out', 'needs a directory');
  if (text !== undefined) return path.resolve(env.INIT_CWD ?? process.cwd(), text);
  // An ISO time without ':' (not allowed in Windows file names) sorts by date; results/ is the project's.
  const stamp = now.toISOString().slice(0, 19).replaceAll(':', '-');
  return path.resolve('results', `${prefix}${stamp}`);
}

/**
 * readArgs for a command whose options are all numbers (the benchmarks): returns { help, <flag>: number }.
 * @param {string[]} args
 * @param {Record<string, import('../common/setup/units.js').Range & { default: number }>} numbers
 */
export function readNumberArgs(args, numbers) {
  /** @type {Record<string, OptionSpec>} */
  const spec = Object.fromEntries(Object.entries(numbers).map(([flag, b]) => [flag, { type: 'string', default: String(b.default), accepts: rangeRule(b) }]));
  const values = readArgs(args, spec);
  return { help: values.help ?? false, ...Object.fromEntries(Object.entries(numbers).map(([flag, b]) => [flag, readNumber(flag, values[flag], b)])) };
}

/**
 * A URL with one of `protocols` (e.g. ['http:', 'https:']); `rule` says what is expected.
 * @param {string} flag
 * @param {string} raw
 * @param {{ protocols: string[], rule: string }} o
 */
export function readUrl(flag, raw, { protocols, rule }) {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !protocols.includes(url.protocol)) throw usageError(flag, `${rule}, ${got(raw)}`);
  return url;
}

/** The DevTools endpoint of a Chrome someone else started (--browser-url). */
export const browserUrlRule = 'must be the DevTools endpoint of a running Chrome, such as http://127.0.0.1:9222';
/** @param {string} raw */
export const readBrowserUrl = (raw) => readUrl('browser-url', raw, { protocols: ['http:', 'https:', 'ws:', 'wss:'], rule: browserUrlRule }).href;

/**
 * --capture and --capture-whole (both runner commands): only where every network of the run sees packets.
 * @param {{ capture?: boolean, 'capture-whole'?: boolean }} values  readArgs'
 * @param {readonly string[]} networks  the run's networks (ids of common/setup/networks.js)
 * @returns {{ whole: boolean } | null}
 */
export function readCapture(values, networks) {
  const flag = values['capture-whole'] ? 'capture-whole' : values.capture ? 'capture' : null;
  if (!flag) return null;
  const blind = networks.map(networkOf).find((n) => !n.capturesPackets);
  if (blind) {
    const can = networkIds.filter((id) => networkOf(id).capturesPackets).join(', ');
    throw usageError(flag, `only on a network that carries packets (--network ${can}): the ${blind.title} sees requests and TCP streams, not packets`);
  }
  return { whole: flag === 'capture-whole' };
}

/**
 * --netlog (both runner commands): Chromium logs only when the runner starts it.
 * @param {{ netlog?: boolean, 'browser-url'?: string }} values  readArgs'
 */
export function readNetLogFlag(values) {
  if (values.netlog && values['browser-url'] !== undefined) throw usageError('netlog', 'not with --browser-url: a NetLog is asked for when Chromium starts, and that browser has started');
  return values.netlog ?? false;
}
