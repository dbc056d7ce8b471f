// Export and import of the whole result object. An import is checked for the fields every
// consumer relies on, so a wrong file fails with a message instead of half-drawn charts.
export const resultJson = (result) => JSON.stringify(result, null, 2);

export function parseResultJson(text) {
  let result;
  try {
    result = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${err.message}`);
  }
  const missing = ['id', 'startedAt', 'settings', 'environment', 'runs', 'summary'].filter((k) => !(k in (result ?? {})));
  if (missing.length) throw new Error(`not an h2lab result: missing ${missing.join(', ')}`);
  if (!Array.isArray(result.runs)) throw new Error('not an h2lab result: runs is not a list');
  if (!Array.isArray(result.settings?.servers)) throw new Error('not an h2lab result: settings.servers is not a list');
  result.comparisons ??= [];
  return result;
}
