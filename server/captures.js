// The lab's packet captures (POST and DELETE /api/networks/<id>/capture): a run's capture goes into
// one folder under the run's name (the runner's output folder, or one under the system's temporary
// folder), written by the network that sees the packets (server/packet/capture.js), with the
// browser's TLS keys of the run beside it: the lines its key log (SSLKEYLOGFILE format, where the
// lab was told of one) gained while the capture ran.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../common/input-error.js';
import { connectionsOf, readCaptureFiles } from './evidence/connections.js';

// A run's name (common/urls.js runTag): safe as a file name and in a message.
const namePattern = /^[\w.-]{1,160}$/;

/**
 * @param {{ dir?: string|null, keyLogFile?: string|null }} o  dir: where captures go (default
 *   <tmp>/h2lab-captures); keyLogFile: the browser's key log, whose new lines each capture keeps
 */
export function createCaptures({ dir = null, keyLogFile = null } = {}) {
  const folder = dir ?? path.join(os.tmpdir(), 'h2lab-captures');
  /** @type {{ network: { stopCapture(): Promise<import('./packet/capture.js').CaptureSummary> }, stem: string, keysFrom: number } | null} */
  let running = null;
  const keyLogSize = () => {
    try {
      return keyLogFile ? fs.statSync(keyLogFile).size : 0;
    } catch {
      return 0; // not written yet: the browser writes it at its first handshake
    }
  };

  return {
    folder,
    /**
     * Starts a capture named `name` on `network` (one that sees packets); one running is ended.
     * @param {{ startCapture(stem: string, whole: boolean): Promise<void>, stopCapture(): Promise<import('./packet/capture.js').CaptureSummary> }} network
     * @param {unknown} body  { name, whole }
     */
    async start(network, body) {
      const { name, whole = false } = /** @type {{ name?: unknown, whole?: unknown }} */ (body ?? {});
      if (typeof name !== 'string' || !namePattern.test(name)) throw new InputError('name', `name must be 1–160 letters, digits, '.', '_' or '-', got ${JSON.stringify(name)}`);
      if (typeof whole !== 'boolean') throw new InputError('whole', `whole must be true or false, got ${JSON.stringify(whole)}`);
      fs.mkdirSync(folder, { recursive: true });
      const stem = path.join(folder, name);
      await network.startCapture(stem, whole);
      running = { network, stem, keysFrom: keyLogSize() };
      return { stem };
    },
    /**
     * Ends the running capture: what it wrote, with the run's TLS keys beside it and its
     * connections read back from the files (server/evidence/connections.js).
     */
    async stop() {
      if (!running) throw new InputError('capture', 'no capture is running: start one with POST first');
      const { network, stem, keysFrom } = running;
      running = null;
      const summary = await network.stopCapture();
      const files = { ...summary.files, keys: keysOfRun(stem, keysFrom) };
      if (summary.error) return { ...summary, files, connections: null };
      const { connections: records, originEpochMs, skipped, error } = connectionsOf(readCaptureFiles(stem));
      return { ...summary, files, connections: { records, originEpochMs, skipped, error } };
    },
  };

  /**
   * The key log's lines since `from` as `<stem>.keys.log`; null without a key log.
   * @param {string} stem
   * @param {number} from
   */
  function keysOfRun(stem, from) {
    if (!keyLogFile) return null;
    const file = `${stem}.keys.log`;
    const size = keyLogSize();
    const bytes = Buffer.alloc(Math.max(0, size - from));
    if (bytes.length) {
      const fd = fs.openSync(keyLogFile, 'r');
      try {
        fs.readSync(fd, bytes, 0, bytes.length, from);
      } finally {
        fs.closeSync(fd);
      }
    }
    fs.writeFileSync(file, bytes);
    return file;
  }
}
