// Validation at the edge: a route declares its parameters and this turns a raw query string
// into numbers within bounds or an HTTP 400 naming the parameter. Nothing is clamped.
import { inRange, plainDecimalPattern, plainIntegerPattern, rangeRule } from '../../common/setup/units.js';
import { errors, quote } from './errors.js';

/** @param {ParamSpec} spec */
function describe(spec) {
  if (spec.type === 'flag') return `${spec.name} must be 0 or 1`;
  return `${spec.name} must be ${rangeRule({ ...spec, integer: spec.type === 'integer' })}`;
}

/**
 * @param {string} text
 * @returns {string|undefined} undefined for broken percent-encoding
 */
function decode(text) {
  if (!text.includes('%') && !text.includes('+')) return text; // the common case, kept cheap
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** @param {ParamSpec} spec @param {string} raw */
function convert(spec, raw) {
  const value = Number(raw);
  const ok =
    spec.type === 'flag'
      ? raw === '0' || raw === '1'
      : (spec.type === 'integer' ? plainIntegerPattern : plainDecimalPattern).test(raw) && inRange(spec, value); // the pattern keeps integers whole
  if (!ok) throw errors.badParam(spec.name, `${describe(spec)}, got ${quote(raw)}`);
  return value;
}

/**
 * @typedef {object} NumberSpec  a query parameter that is a number within bounds
 * @property {string} name
 * @property {'decimal'|'integer'} type
 * @property {number} min
 * @property {number} max
 * @property {string} [unit]
 * @property {number} default  the value when the parameter is absent
 */
/**
 * @typedef {object} FlagSpec  a query parameter that is 0 or 1
 * @property {string} name
 * @property {'flag'} type
 * @property {number} default  the value when the parameter is absent
 */
/** @typedef {NumberSpec|FlagSpec} ParamSpec  one query parameter of a route */

/**
 * Compiles a route's parameter list once into a parser for its query strings.
 * @param {ParamSpec[]} specs
 * @returns {(search: string) => Record<string, number>} search is the query without '?';
 *   one value per spec; unknown parameters are ignored
 */
export function queryParser(specs) {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  return function parse(search) {
    /** @type {Map<string, string>} */
    const raw = new Map();
    for (const part of search === '' ? [] : search.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const key = decode(eq === -1 ? part : part.slice(0, eq));
      if (key === undefined) continue; // not a name of ours, whatever it is
      const bracket = key.indexOf('[');
      const spec = byName.get(bracket === -1 ? key : key.slice(0, bracket));
      if (!spec) continue; // cache-busters and other parameters are not ours
      if (key !== spec.name) throw errors.badParam(spec.name, `${describe(spec)}; ${quote(key)} is not a plain parameter`);
      if (raw.has(key)) throw errors.badParam(spec.name, `${describe(spec)}; it was given more than once`);
      const value = decode(eq === -1 ? '' : part.slice(eq + 1));
      if (value === undefined) throw errors.badParam(spec.name, `${describe(spec)}; its value has broken percent-encoding`);
      raw.set(key, value);
    }
    /** @type {Record<string, number>} */
    const values = {};
    for (const spec of specs) values[spec.name] = raw.has(spec.name) ? convert(spec, /** @type {string} */ (raw.get(spec.name))) : spec.default;
    return values;
  };
}
