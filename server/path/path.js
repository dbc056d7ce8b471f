// The emulated path, both directions: one conditions object (conditions.js) in force, and per
// direction (direction.js) its stages: a rate (rate.js), the delay (delay.js) and the queue
// discipline the conditions name (queue.js: droptail by default, or CoDel).
// The lab link and the packet network each compose one; the packet network adds loss per packet
// (packets.js). down: server → browser, up: browser → server.
import { oneWayDelayMs } from './delay.js';
import { createDirection } from './direction.js';
import { queueDisciplines } from './queue.js';
import { constantRate, traceRate } from './rate.js';

/** @typedef {import('./conditions.js').PathConditions} PathConditions */
/** @typedef {'down'|'up'} Dir  down: server → browser, up: browser → server */

/**
 * @param {PathConditions} initial
 */
export function createPath(initial) {
  let conditions = initial;
  // What each direction reads on every piece, made once per change of conditions (not per packet).
  /** @type {Record<Dir, import('./direction.js').DirectionConditions>} */
  let views;
  /** @param {PathConditions} c @param {Dir} dir @param {number} epochMs */
  const rateOf = (c, dir, epochMs) => {
    const trace = dir === 'down' ? c.traceDown : c.traceUp;
    return trace ? traceRate(trace.slots, epochMs) : constantRate(dir === 'down' ? c.downloadBps : c.uploadBps);
  };
  /** @param {PathConditions} c */
  const adopt = (c) => {
    const now = performance.now(); // a trace starts when its conditions are set
    conditions = c;
    // A discipline of its own per direction, new with each change of conditions, as a trace starts
    // afresh: CoDel's state is about the queue under the conditions before.
    /** @param {Dir} dir */
    const view = (dir) => ({ rate: rateOf(c, dir, now), oneWayMs: oneWayDelayMs(c), queueBytes: c.queueBytes, queue: queueDisciplines[c.queue ?? 'droptail']() });
    views = { down: view('down'), up: view('up') };
  };
  adopt(initial);
  /** @param {Dir} dir */
  const direction = (dir) => createDirection(() => views[dir]);
  const down = direction('down');
  const up = direction('up');
  return {
    down,
    up,
    conditions: () => conditions,
    /**
     * For the next pieces and those queued alike: what is not sent yet pays the new conditions.
     * @param {PathConditions} next
     */
    set(next) {
      adopt(next);
      down.retime();
      up.retime();
    },
    clear() {
      down.clear();
      up.clear();
    },
  };
}
