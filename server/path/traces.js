// The traces a lab knows (GET /api/traces): a constant one, synthetic ones made by
// trace-generator.js for the presets whose rates vary in life (cellular), and those uploaded to
// this lab (POST /api/traces, --trace-down FILE), kept while it runs. Conditions name a trace by
// its name (server/path/conditions.js).
import { presetById } from '../../common/presets.js';
import { InputError } from '../../common/input-error.js';
import { traceNamePattern } from '../../common/trace-name.js';
import { parseTrace } from './trace.js';
import { markovTrace } from './trace-generator.js';

// Uploaded traces kept at once: each is at most a few MB of slots; the oldest goes first.
const maxUploaded = 16;

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
    const p = /** @type {import('../../common/presets.js').Preset} */ (presetById(id)); // each id above is a preset's
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
  const loaded = new Map(); // built-ins once made, and uploads
  /** @type {string[]} */
  const uploaded = []; // names, oldest first
  return {
    /** Every trace by name: the built-ins (made on first use) and the uploads. */
    list: () => [
      ...[...builtIn].map(([name, t]) => ({ name, description: t.description, builtIn: true })),
      ...uploaded.map((name) => ({ name, description: `uploaded (sha256 ${/** @type {import('./trace.js').LoadedTrace} an upload is loaded */ (loaded.get(name)).sha256.slice(0, 12)}…)`, builtIn: false })),
    ],
    /**
     * The trace of `name`, or an InputError naming `field`.
     * @param {unknown} name  as a client gave it
     * @param {string} field
     * @returns {import('./trace.js').LoadedTrace}
     */
    get(name, field) {
      if (typeof name !== 'string') throw new InputError(field, `${field} must be the name of a trace this lab knows (GET /api/traces), got ${JSON.stringify(name)}`);
      if (!loaded.has(name) && builtIn.has(name)) loaded.set(name, parseTrace(/** @type {BuiltIn} */ (builtIn.get(name)).text(), { name, field }));
      const trace = loaded.get(name);
      if (!trace) throw new InputError(field, `${field}: no trace ${JSON.stringify(name.slice(0, 60))} in this lab; the traces are ${[...builtIn.keys(), ...uploaded].join(', ')} (or upload one: POST /api/traces)`);
      return trace;
    },
    /**
     * Adds an uploaded trace under `name` (a new text under a known name replaces it), after the one
     * strict check; the oldest upload goes past maxUploaded.
     * @param {unknown} name  as a client gave it
     * @param {unknown} text  the trace's text (parseTrace refuses anything else)
     * @param {string} [field]
     */
    add(name, text, field = 'trace') {
      if (typeof name !== 'string' || !traceNamePattern.test(name)) throw new InputError('name', `name must be 1–64 letters, digits, '.', '_' or '-', got ${JSON.stringify(String(name).slice(0, 60))}`);
      if (builtIn.has(name)) throw new InputError('name', `name ${JSON.stringify(name)} is a built-in trace's: choose another`);
      const trace = parseTrace(text, { name, field });
      if (!loaded.has(name)) uploaded.push(name);
      loaded.set(name, trace);
      while (uploaded.length > maxUploaded) loaded.delete(/** @type {string} */ (uploaded.shift()));
      return trace;
    },
  };
}
