// Traces in mahimahi's format (Winstein et al., NSDI 2013; mahimahi's link shell): each line is a
// millisecond, counted from the trace's start, at which one slot of traceBounds.slotBytes may leave;
// a repeated line is several slots in that millisecond; the trace repeats with a period of its last
// line. This reads one strictly, line by line, and says where it is wrong (InputError naming the
// field and the line): never a guess at what a malformed trace meant. An upload is read as it
// arrives (traceReader), a file at once (parseTrace).
import { createHash } from 'node:crypto';
import { InputError } from '../../common/setup/errors.js';
import { traceBounds } from '../../common/setup/path-limits.js';

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

/** @param {number} c  a character code: a blank trim() removes (space, tab, CR, VT, FF) */
const isBlank = (c) => c === 32 || c === 9 || c === 13 || c === 11 || c === 12;

/**
 * The number on text[start, end) when it is 1–10 digits with ASCII blanks at most around them (a
 * trace's every line, nearly always), read without making a string of the line: a string a line
 * cost 0.5 µs, and the collector's pauses of 75–210 ms in a 4 MB upload. Else -1: the strict read
 * (traceReader's line) decides, and says what is wrong.
 * @param {string} text @param {number} start @param {number} end
 */
function plainNumber(text, start, end) {
  let i = start;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  const first = i;
  let ms = 0;
  for (let c = text.charCodeAt(i); i < end && c >= 48 && c <= 57; c = text.charCodeAt(++i)) ms = ms * 10 + c - 48;
  const digits = i - first;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  return i === end && digits >= 1 && digits <= 10 ? ms : -1;
}

/**
 * Reads a trace a piece of text at a time, as an upload arrives (server/ui.js): each piece is
 * checked line by line as it comes, into the slots alone, so that neither the text nor its lines
 * are ever held whole and no piece holds the event loop longer than its own lines take (a 4 MB
 * trace read whole held it 0.3–1 s). The first wrong line throws (an InputError naming `field`).
 * @param {{ name: string, field: string }} o  field: what an error names ("traceDown", "--trace-down")
 */
export function traceReader({ name, field }) {
  /** @type {(message: string) => never} */
  const fail = (message) => {
    throw new InputError(field, `${field} (${name}): ${message}`);
  };
  const hash = createHash('sha256');
  let bytes = 0;
  let offsetsMs = new Float64Array(4096); // grown by doubling, cut to its lines at the end
  let lines = 0;
  let last = 0;
  let partial = ''; // the line the last piece cut
  /** @param {number} ms  the next line's */
  const add = (ms) => {
    if (lines === traceBounds.maxLines) fail(`has at least ${thousands.format(lines + 1)} lines, over ${thousands.format(traceBounds.maxLines)}`);
    if (ms < last) fail(`line ${lines + 1}: ${ms} comes after ${last}: the milliseconds must not decrease`);
    if (ms - last > traceBounds.maxGapMs) fail(`line ${lines + 1}: ${thousands.format(ms - last)} ms without a slot, longer than a run waits for progress (${thousands.format(traceBounds.maxGapMs)} ms)`);
    if (lines === offsetsMs.length) {
      const grown = new Float64Array(Math.min(offsetsMs.length * 2, traceBounds.maxLines));
      grown.set(offsetsMs);
      offsetsMs = grown;
    }
    offsetsMs[lines++] = last = ms;
  };
  /** The strict read of a line: a whole number, whatever trim() removes around it. @param {string} text  its newline gone */
  const line = (text) => {
    const trimmed = text.trim();
    if (!/^\d{1,10}$/.test(trimmed)) fail(`line ${lines + 1}: ${JSON.stringify(text.slice(0, 40))} is not a whole number of milliseconds`);
    add(Number(trimmed));
  };
  return {
    /** @param {string} text  the next piece of the trace's text */
    push(text) {
      bytes += Buffer.byteLength(text);
      if (bytes > traceBounds.maxTextBytes) fail(`is over ${thousands.format(traceBounds.maxTextBytes)} bytes; a trace is one millisecond per line`);
      hash.update(text);
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        const ms = partial ? -1 : plainNumber(text, start, end);
        if (ms >= 0) add(ms);
        else line(partial + text.slice(start, end));
        partial = '';
        start = end + 1;
      }
      partial += text.slice(start);
    },
    /** The trace, once every piece is in. @returns {LoadedTrace} */
    end() {
      if (partial) line(partial); // a last line without its newline
      if (!lines) fail('is empty: give one millisecond per line, at which one slot of 1,504 bytes may leave');
      const periodMs = last;
      if (periodMs <= 0) fail('its last line must be above 0: it is the period after which the trace repeats');
      // The gap across the wrap: from the last slot of one period to the first of the next.
      if (offsetsMs[0] > traceBounds.maxGapMs) fail(`line 1: ${thousands.format(offsetsMs[0])} ms without a slot at each repeat, longer than a run waits for progress (${thousands.format(traceBounds.maxGapMs)} ms)`);
      return {
        name,
        sha256: hash.digest('hex'),
        meanBps: (lines * traceBounds.slotBytes * 1000) / periodMs,
        periodMs,
        slots: { offsetsMs: offsetsMs.slice(0, lines), periodMs, slotBytes: traceBounds.slotBytes },
      };
    },
  };
}

/**
 * A whole trace's text at once (a file, a built-in): traceReader's one piece.
 * @param {unknown} text  the trace file's text (anything else is refused)
 * @param {{ name: string, field: string }} o  field: what an error names ("traceDown", "--trace-down")
 * @returns {LoadedTrace}
 */
export function parseTrace(text, { name, field }) {
  if (typeof text !== 'string') throw new InputError(field, `${field} (${name}): must be the text of a trace file`);
  const reader = traceReader({ name, field });
  reader.push(text);
  return reader.end();
}

/**
 * What results and GET /api/networks/<id> say of a trace: its name, hash and mean rate.
 * @param {LoadedTrace|null} t
 */
export const traceSummary = (t) => (t ? { name: t.name, sha256: t.sha256, meanBps: Math.round(t.meanBps), periodMs: t.periodMs } : null);
