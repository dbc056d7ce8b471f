// Traces in mahimahi's format (Winstein et al., NSDI 2013; mahimahi's link shell): each line is a
// millisecond, counted from the trace's start, at which one slot of traceBounds.slotBytes may leave;
// a repeated line is several slots in that millisecond; the trace repeats with a period of its last
// line. This reads one strictly, line by line, and says where it is wrong (InputError naming the
// field and the line): never a guess at what a malformed trace meant.
import { createHash } from 'node:crypto';
import { InputError } from '../../common/input-error.js';
import { traceBounds } from '../../common/path-limits.js';

/**
 * A trace the lab can run: its slots (rate.js traceRate) and what results record of it.
 * @typedef {object} LoadedTrace
 * @property {string} name
 * @property {string} sha256   of the text as given
 * @property {number} meanBps  bytes per second on average: slots × slotBytes per period
 * @property {number} periodMs
 * @property {import('./rate.js').Trace} slots
 */

const thousands = new Intl.NumberFormat('en-US');

/**
 * @param {unknown} text  the trace file's text (anything else is refused)
 * @param {{ name: string, field: string }} o  field: what an error names ("traceDown", "--trace-down")
 * @returns {LoadedTrace}
 */
export function parseTrace(text, { name, field }) {
  /** @type {(message: string) => never} */
  const fail = (message) => {
    throw new InputError(field, `${field} (${name}): ${message}`);
  };
  if (typeof text !== 'string') fail('must be the text of a trace file');
  if (Buffer.byteLength(text) > traceBounds.maxTextBytes) fail(`is over ${thousands.format(traceBounds.maxTextBytes)} bytes; a trace is one millisecond per line`);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop(); // the newline that ends the last line
  if (lines.length > traceBounds.maxLines) fail(`has ${thousands.format(lines.length)} lines, over ${thousands.format(traceBounds.maxLines)}`);
  if (!lines.length) fail('is empty: give one millisecond per line, at which one slot of 1,504 bytes may leave');
  const offsetsMs = new Float64Array(lines.length);
  let last = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!/^\d{1,10}$/.test(line)) fail(`line ${i + 1}: ${JSON.stringify(lines[i].slice(0, 40))} is not a whole number of milliseconds`);
    const ms = Number(line);
    if (ms < last) fail(`line ${i + 1}: ${ms} comes after ${last}: the milliseconds must not decrease`);
    if (ms - last > traceBounds.maxGapMs) fail(`line ${i + 1}: ${thousands.format(ms - last)} ms without a slot, longer than a run waits for progress (${thousands.format(traceBounds.maxGapMs)} ms)`);
    offsetsMs[i] = last = ms;
  }
  const periodMs = last;
  if (periodMs <= 0) fail('its last line must be above 0: it is the period after which the trace repeats');
  // The gap across the wrap: from the last slot of one period to the first of the next.
  if (offsetsMs[0] > traceBounds.maxGapMs) fail(`line 1: ${thousands.format(offsetsMs[0])} ms without a slot at each repeat, longer than a run waits for progress (${thousands.format(traceBounds.maxGapMs)} ms)`);
  const meanBps = (lines.length * traceBounds.slotBytes * 1000) / periodMs;
  return {
    name,
    sha256: createHash('sha256').update(text).digest('hex'),
    meanBps,
    periodMs,
    slots: { offsetsMs, periodMs, slotBytes: traceBounds.slotBytes },
  };
}

/**
 * What results and GET /api/networks/<id> say of a trace: its name, hash and mean rate.
 * @param {LoadedTrace|null} t
 */
export const traceSummary = (t) => (t ? { name: t.name, sha256: t.sha256, meanBps: Math.round(t.meanBps), periodMs: t.periodMs } : null);
