// One point's result from the results of its parts: the shards of `npm run merge-results`, or the
// rounds of repeats until decided (common/stats/until-decided.js). Each part ran some of the point's
// repeats, numbered as in the whole, so the runs go together in repeat order and are summarized
// again.
import { summarizeResult, verdictLevel } from './stats.js';

/**
 * @param {import('../report/result.js').Result[]} parts  of one point, at least one; the first's id, start,
 *   settings and environment stand for the whole
 * @param {number} [required]  the level a verdict needs (stats.js compare): verdictLevel unless given
 * @returns {import('../report/result.js').Result}
 */
export function mergeParts(parts, required = verdictLevel) {
  const [first] = parts;
  const runs = parts.flatMap((p) => p.runs).sort((a, b) => a.repeat - b.repeat);
  const stopped = parts.find((p) => p.stopped);
  return {
    ...first,
    settings: { ...first.settings, repeats: parts.reduce((sum, p) => sum + p.settings.repeats, 0) },
    finishedAt: parts.map((p) => p.finishedAt).sort().at(-1) ?? first.finishedAt,
    runs,
    stopped: Boolean(stopped),
    stopReason: stopped?.stopReason ?? null,
    ...summarizeResult(runs, required),
  };
}
