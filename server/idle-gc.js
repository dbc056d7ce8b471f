// Garbage a burst of requests leaves (an abort storm, a run of thousands of requests) is collected
// once the burst is over, not during the next run: V8 left it in the heap (RSS 30+ MB up long after
// a storm, and the next storm started from there), and a collection it ran later would land in
// whichever run came next. The lab collects only while no test connection is open (a timed run
// always has one), at /api/reset, when its last connection goes, and in a storm of cut responses.
// The lab has no --expose-gc on its command line (tests and the runner start it in their own
// process), so the collector is asked of V8 once, at start; so is a heap that grows less far
// between V8's own collections (config.js memoryLimits.heapGrowingPercent).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { memoryLimits } from './config.js';

/** @type {(() => void)|null} */
let gc = null;
function fullCollection() {
  if (!gc && !globalThis.gc) v8.setFlagsFromString('--expose-gc');
  gc ??= globalThis.gc ?? /** @type {() => void} V8's, exposed just above */ (runInNewContext('gc')); // one context for every lab of the process
  return gc;
}

const heapUsed = () => v8.getHeapStatistics().used_heap_size;

/**
 * Every idleCheckIntervalMs asks quiet() (no connection open, none opened since the last check)
 * and storm() (stormCutResponses cut since the last check). While quiet or in a storm, collects in
 * full when the heap grew by heapGrowthBytes since the last collection; after settleQuietChecks
 * quiet checks in a row, collects once more if a burst was collected since.
 * @param {{ quiet: () => boolean, storm?: () => boolean, limits?: typeof memoryLimits }} o
 * @returns {{ collectIfGrown(): boolean, stop(): void }} collectIfGrown: the growth check alone,
 *   for moments known to be between runs (/api/reset, the last connection gone); true when it collected
 */
export function startIdleCollector({ quiet, storm = () => false, limits = memoryLimits }) {
  // Read by V8 at every full collection, so it holds from the next one on (the whole process's heap).
  v8.setFlagsFromString(`--heap-growing-percent=${limits.heapGrowingPercent}`);
  const collect = fullCollection();
  let baseline = heapUsed();
  let settled = true;
  const collectNow = () => {
    // The first collection frees the garbage, the second gives back the pages it emptied: after
    // a spdy abort storm, one left 100 MB of heap committed for 16 MB in use, two left 53.
    collect();
    collect();
    baseline = heapUsed();
  };
  const collectIfGrown = () => {
    if (heapUsed() - baseline < limits.heapGrowthBytes) return false;
    collectNow();
    settled = false;
    return true;
  };
  let quietChecks = 0;
  const timer = setInterval(() => {
    quietChecks = quiet() ? quietChecks + 1 : 0;
    const stormy = storm(); // asked every time: it counts since the last check
    if ((quietChecks || stormy) && collectIfGrown()) return;
    // A collection right after a burst sees a high allocation rate and leaves V8's young
    // generation at its largest; one once the lab has been quiet a while shrinks it too.
    if (!settled && quietChecks >= limits.settleQuietChecks) {
      collectNow();
      settled = true;
    }
  }, limits.idleCheckIntervalMs).unref();
  return { collectIfGrown, stop: () => clearInterval(timer) };
}
