// The lab's packet captures (POST and DELETE /api/networks/<id>/capture): a run's capture goes into
// one folder under the run's name (the runner's output folder, or a new one of the lab's own under
// the system's temporary folder), written by the network that sees the packets
// (server/packet/capture.js), with the browser's TLS keys of the run beside it: the lines its key
// log (SSLKEYLOGFILE format, where the lab was told of one) gained while the capture ran. The
// folder is checked before each capture and every file created exclusively, 0600
// (server/private-files.js): another local user can neither read a run's packets and keys nor
// make the lab write through a link of theirs.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../common/setup/errors.js';
import { connectionsOf, readCaptureFiles } from './evidence/connections.js';
import { apiErrors } from './http/errors.js';
import { createPrivateFile, isSafeName, makePrivateDir, privateDirProblem, safeNameRule } from './private-files.js';

// A run's name (common/setup/urls.js runTag) is the start of its files' names.
const suffixes = ['sent.pcapng', 'received.pcapng', 'keys.log'];

/**
 * @param {{ dir?: string|null, keyLogFile?: string|null }} o  dir: where captures go (default: a
 *   new private <tmp>/h2lab-captures-XXXXXX, made at the first capture and kept after the lab, as
 *   the captures are the person's); keyLogFile: the browser's key log, whose new lines each capture keeps
 */
export function createCaptures({ dir = null, keyLogFile = null } = {}) {
  let folder = dir;
  /** @type {{ network: { capture: { stop(): Promise<import('./packet/capture.js').CaptureSummary> } }, stem: string, keys: number|null, keysFrom: number } | null} */
  let running = null;
  const keyLogSize = () => {
    try {
      return keyLogFile ? fs.statSync(keyLogFile).size : 0;
    } catch {
      return 0; // not written yet: the browser writes it at its first handshake
    }
  };

  return {
    /**
     * Starts a capture named `name` on `network` (one that sees packets); one running is ended.
     * @param {{ capture: { start(stem: string, whole: boolean): Promise<void>, stop(): Promise<import('./packet/capture.js').CaptureSummary> } }} network
     * @param {unknown} body  { name, whole }
     */
    async start(network, body) {
      const { name, whole = false } = /** @type {{ name?: unknown, whole?: unknown }} */ (body ?? {});
      if (!isSafeName(name)) throw new InputError('name', `name must be ${safeNameRule}, got ${JSON.stringify(name)}`);
      if (typeof whole !== 'boolean') throw new InputError('whole', `whole must be true or false, got ${JSON.stringify(whole)}`);
      folder ??= makePrivateDir('h2lab-captures-');
      const problem = privateDirProblem(folder);
      if (problem) throw apiErrors.captureRefused(`the capture folder ${problem}`);
      const stem = path.join(folder, name);
      const taken = suffixes.map((suffix) => `${stem}.${suffix}`).find((file) => fs.lstatSync(file, { throwIfNoEntry: false }));
      if (taken) throw apiErrors.captureRefused(`${taken} exists already: a capture never replaces a file (give the run another name)`);
      if (running) copyKeys(running); // ended by the capture below: its keys so far
      running = null;
      // The key copy's name is taken now, as the capture files' are, and filled at the stop.
      const keys = keyLogFile ? createPrivateFile(`${stem}.keys.log`) : null;
      try {
        await network.capture.start(stem, whole);
      } catch (err) {
        if (keys !== null) {
          fs.closeSync(keys);
          fs.rmSync(`${stem}.keys.log`);
        }
        throw err;
      }
      running = { network, stem, keys, keysFrom: keyLogSize() };
      return { stem };
    },
    /**
     * Ends the running capture: what it wrote, with the run's TLS keys beside it and its
     * connections read back from the files (server/evidence/connections.js).
     */
    async stop() {
      if (!running) throw new InputError('capture', 'no capture is running: start one with POST first');
      const run = running;
      running = null;
      let summary;
      try {
        summary = await run.network.capture.stop();
      } finally {
        copyKeys(run);
      }
      const files = { ...summary.files, keys: run.keys === null ? null : `${run.stem}.keys.log` };
      if (summary.error) return { ...summary, files, connections: null };
      const { connections: records, originEpochMs, skipped, error } = connectionsOf(readCaptureFiles(run.stem));
      return { ...summary, files, connections: { records, originEpochMs, skipped, error } };
    },
  };

  /**
   * Writes the key log's lines since the run started into its `<stem>.keys.log` and closes it.
   * @param {{ keys: number|null, keysFrom: number }} run
   */
  function copyKeys({ keys, keysFrom }) {
    if (keys === null || !keyLogFile) return;
    try {
      const bytes = Buffer.alloc(Math.max(0, keyLogSize() - keysFrom));
      if (!bytes.length) return;
      const fd = fs.openSync(keyLogFile, 'r');
      try {
        fs.readSync(fd, bytes, 0, bytes.length, keysFrom);
      } finally {
        fs.closeSync(fd);
      }
      fs.writeSync(keys, bytes);
    } finally {
      fs.closeSync(keys);
    }
  }
}
