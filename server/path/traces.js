// The traces a lab knows (GET /api/traces): a constant one, synthetic ones made by
// trace-generator.js for the presets whose rates vary in life (cellular), and those uploaded to
// this lab (POST /api/traces, --trace-down FILE), kept while it runs within a budget of bytes
// (traceUploadLimits): the lab user's uploads in one, everyone else's in another, so that no
// one else's uploads push out the person's. Conditions name a trace by its name
// (server/path/conditions.js).
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { presetById } from '../../common/setup/presets.js';
import { InputError } from '../../common/setup/errors.js';
import { traceNamePattern } from '../../common/setup/trace-name.js';
import { traceUploadLimits } from './limits.js';
import { parseTrace, traceReader } from './trace.js';
import { markovTrace } from './trace-generator.js';

/**
 * Whose an upload is: the lab user's own (its page, its runner), or anyone else's (another user's,
 * through a proxy, or where the system does not say: server/peer-user.js).
 * @typedef {'own' | 'others'} Whose
 */

/** @param {number} bytes */
const mib = (bytes) => `${bytes / 2 ** 20} MiB`;
/** What the lab keeps of uploads, said where a trace is missing (and in docs/http-api.md). */
const keptUploads = `uploads are kept within ${mib(traceUploadLimits.ownKeptBytes)} of slots (8 bytes a line) of the lab user's and ${mib(traceUploadLimits.othersKeptBytes)} of everyone else's, the oldest dropped first`;

// The presets named after cellular links, whose capacity varies second by second.
const cellularPresets = ['3g', 'slow-4g', 'fast-4g', 'regular-3g', 'good-3g', 'regular-4g'];

/** @typedef {{ description: string, text: () => string }} BuiltIn */

/** The built-in traces: name → how to make its text, and what it is. */
function builtIns() {
  /** @type {Map<string, BuiltIn>} */
  const table = new Map();
  // mahimahi's own constant example: one slot per millisecond, 12.03 Mbit/s.
  table.set('constant-12mbit', { description: 'one 1,504-byte slot every millisecond: a constant 12.03 Mbit/s', text: () => '1\n' });
  for (const id of cellularPresets) {
    const p = /** @type {import('../../common/setup/presets.js').Preset} */ (presetById(id)); // each id above is a preset's
    /** @type {Array<[string, number, number]>} */
    const directions = [['down', p.downloadBps, 1], ['up', p.uploadBps, 2]];
    for (const [direction, bps, seed] of directions) {
      table.set(`markov-${id}-${direction}`, {
        description: `synthetic: ${p.label}'s ${direction === 'down' ? 'download' : 'upload'} rate on average, varying from a quarter to 1.75× every half second (server/path/trace-generator.js, seed ${seed})`,
        text: () => markovTrace({ meanBps: bps, seed }),
      });
    }
  }
  return table;
}

export function createTraceLibrary() {
  const builtIn = builtIns();
  /** @type {Map<string, import('./trace.js').LoadedTrace>} */
  const made = new Map(); // built-ins once made
  /** @type {Map<string, { trace: import('./trace.js').LoadedTrace, whose: Whose }>} */
  const uploads = new Map(); // by name, oldest first
  /** @type {Record<Whose, number>} */
  const keptBytes = { own: 0, others: 0 };
  const budget = { own: traceUploadLimits.ownKeptBytes, others: traceUploadLimits.othersKeptBytes };
  /** @param {import('./trace.js').LoadedTrace} trace */
  const bytesOf = (trace) => trace.slots.offsetsMs.byteLength;
  /** @param {string} name */
  const drop = (name) => {
    const upload = uploads.get(name);
    if (!upload) return;
    keptBytes[upload.whose] -= bytesOf(upload.trace);
    uploads.delete(name);
  };
  /**
   * A name an upload of `whose` may take, before anything is read: not a built-in's, not another's upload's.
   * @param {unknown} name @param {Whose} whose
   * @returns {string}
   */
  const nameFor = (name, whose) => {
    if (typeof name !== 'string' || !traceNamePattern.test(name)) throw new InputError('name', `name must be 1–64 letters, digits, '.', '_' or '-', got ${JSON.stringify(String(name).slice(0, 60))}`);
    if (builtIn.has(name)) throw new InputError('name', `name ${JSON.stringify(name)} is a built-in trace's: choose another`);
    if (uploads.has(name) && uploads.get(name)?.whose !== whose) {
      throw new InputError('name', `name ${JSON.stringify(name)} is ${whose === 'own' ? "another user's" : "the lab user's"} upload: choose another`);
    }
    return name;
  };
  /**
   * Keeps `trace` as the newest upload of `whose` (a new text under a known name replaces it),
   * dropping that party's oldest until its uploads fit their budget.
   * @param {import('./trace.js').LoadedTrace} trace @param {Whose} whose
   */
  const keep = (trace, whose) => {
    drop(trace.name);
    for (const [name, upload] of uploads) {
      if (keptBytes[whose] + bytesOf(trace) <= budget[whose]) break;
      if (upload.whose === whose) drop(name);
    }
    uploads.set(trace.name, { trace, whose });
    keptBytes[whose] += bytesOf(trace);
    return trace;
  };
  return {
    /** Every trace by name: the built-ins (made on first use) and the uploads. */
    list: () => [
      ...[...builtIn].map(([name, t]) => ({ name, description: t.description, builtIn: true })),
      ...[...uploads].map(([name, { trace }]) => ({ name, description: `uploaded (sha256 ${trace.sha256.slice(0, 12)}…)`, builtIn: false })),
    ],
    /**
     * The trace of `name`, or an InputError naming `field`.
     * @param {unknown} name  as a client gave it
     * @param {string} field
     * @returns {import('./trace.js').LoadedTrace}
     */
    get(name, field) {
      if (typeof name !== 'string') throw new InputError(field, `${field} must be the name of a trace this lab knows (GET /api/traces), got ${JSON.stringify(name)}`);
      if (!made.has(name) && builtIn.has(name)) made.set(name, parseTrace(/** @type {BuiltIn} */ (builtIn.get(name)).text(), { name, field }));
      const trace = made.get(name) ?? uploads.get(name)?.trace;
      if (!trace) throw new InputError(field, `${field}: no trace ${JSON.stringify(name.slice(0, 60))} in this lab (${keptUploads}); the traces are ${[...builtIn.keys(), ...uploads.keys()].join(', ')} (or upload one: POST /api/traces)`);
      return trace;
    },
    /**
     * Adds the lab user's trace whose whole text is at hand under `name`, after the one strict check.
     * @param {unknown} name  as a client gave it
     * @param {unknown} text  the trace's text (parseTrace refuses anything else)
     * @param {string} [field]
     */
    add(name, text, field = 'trace') {
      return keep(parseTrace(text, { name: nameFor(name, 'own'), field }), 'own');
    },
    /**
     * Adds an upload as it arrives (UTF-8 text, a piece at a time): its name is checked before a
     * byte is read, each piece as it comes; the first wrong line stops the reading.
     * @param {unknown} name  as a client gave it
     * @param {AsyncIterable<Buffer>} body  bounded by whoever reads it (server/ui.js)
     * @param {Whose} whose
     */
    async upload(name, body, whose) {
      const reader = traceReader({ name: nameFor(name, whose), field: 'trace' });
      const text = new StringDecoder('utf8');
      for await (const piece of body) {
        reader.push(text.write(piece));
        // Pieces already received come one after another without a turn of the event loop between
        // them: 2 MB of them held it 190–310 ms. One piece a turn holds it a few milliseconds.
        await nextTurn();
      }
      reader.push(text.end());
      nameFor(name, whose); // again: another party may have taken the name while this one was read
      return keep(reader.end(), whose);
    },
  };
}
