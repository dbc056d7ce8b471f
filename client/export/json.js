// Export and import of the whole result object (an exported report carries it too). An import is
// checked for its schema version and the fields every consumer relies on, so a wrong file fails
// with a message instead of half-drawn charts.
import { checkSchema } from '../../common/report/result.js';
import { reportData } from '../../common/report/report-html.js';

/**
 * The result as pretty JSON in pieces, one per run and the rest, for a Blob: a run of 10,000
 * requests is a few MB, but 100 repeats × 3 servers of them would pass the longest string V8
 * can make (about 512 MB). Joined, the pieces are JSON.stringify(result, null, 2) with `runs`
 * moved to the end.
 * @param {object & { runs?: unknown }} result  a Result; any object is written as JSON
 * @returns {string[]}
 */
export function resultJsonParts(result) {
  const { runs, ...rest } = result;
  const head = JSON.stringify(rest, null, 2);
  if (!Array.isArray(runs)) return [head];
  /** @param {unknown} run */
  const indented = (run) => `    ${JSON.stringify(run, null, 2).replaceAll('\n', '\n    ')}`;
  const opening = `${head === '{}' ? '{' : `${head.slice(0, -2)},`}\n  "runs": [`;
  if (!runs.length) return [`${opening}]\n}`];
  return [`${opening}\n`, ...runs.flatMap((run, i) => [i ? ',\n' : '', indented(run)]), '\n  ]\n}'];
}

/**
 * A result from an exported JSON file or from the data inside an exported report (.html).
 * @param {string} text
 * @returns {import('../../common/report/result.js').Result}
 */
export function parseResultJson(text) {
  /** @type {any} until checked below: a file's JSON can be anything */
  let result;
  if (text.trimStart().startsWith('<')) {
    result = reportData(text);
    if (Array.isArray(result?.experiments)) {
      throw new Error(`a report of npm run experiments (${result.experiments.length} experiments): import one run's report or JSON from the page instead`);
    }
  } else {
    try {
      result = JSON.parse(text);
    } catch (err) {
      throw new Error(`not JSON: ${/** @type {Error} */ (err).message}`, { cause: err });
    }
  }
  const looksLikeOne = typeof result === 'object' && result !== null && ('schemaVersion' in result || 'runs' in result);
  if (!looksLikeOne) throw new Error('not an h2lab result');
  checkSchema(result, 'experiment');
  const missing = ['id', 'startedAt', 'settings', 'environment', 'runs', 'summary'].filter((k) => !(k in result));
  if (missing.length) throw new Error(`not an h2lab result: missing ${missing.join(', ')}`);
  if (!Array.isArray(result.runs)) throw new Error('not an h2lab result: runs is not a list');
  if (!Array.isArray(result.settings?.servers)) throw new Error('not an h2lab result: settings.servers is not a list');
  return result;
}
