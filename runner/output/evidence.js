// A runner command's evidence (`npm run experiments` and `npm run page-loads`): --capture,
// --capture-whole and --netlog as both take them (cli/options.js readCapture and readNetLogFlag
// check them), where their files go in the output folder, and the capture files named from it.
// What the files hold: docs/evidence.md.
import { UsageError } from '../../common/setup/errors.js';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { packetLimits } from '../../server/config.js';
import { keepPrivateFile, privateDirProblem } from '../../server/private-files.js';

/** readArgs specs of the evidence flags. @satisfies {Record<string, import('../../cli/options.js').OptionSpec>} */
export const evidenceSpec = {
  capture: { type: 'boolean' },
  'capture-whole': { type: 'boolean' },
  netlog: { type: 'boolean' },
};

/**
 * Usage lines of the evidence flags, their descriptions from column `column`.
 * @param {number} column  where a flag's description starts
 * @param {string} unit  what is captured at a time: run, load
 */
export function evidenceUsage(column, unit) {
  /** @param {string} flag @param {string[]} lines */
  const option = (flag, lines) => [`  ${flag}`.padEnd(column) + lines[0], ...lines.slice(1).map((l) => ' '.repeat(column) + l)].join('\n');
  return [
    option('--capture', [
      `on the packet network: each ${unit}'s packets as pcapng in DIR/captures/,`,
      'what entered the emulator (drops marked with their cause) and what left',
      `it, each packet's first ${packetLimits.captureHeaderBytes} bytes, with the browser's TLS keys of the ${unit}`,
    ]),
    option('--capture-whole', ['the same with whole packets (larger; Wireshark decrypts them with the keys)']),
    option('--netlog', ["Chromium's NetLog of the session in DIR/netlog.json; Firefox's qlog of each", 'QUIC connection in DIR/qlog/']),
  ].join('\n');
}

/**
 * Where the evidence goes in the output folder (made now: the lab and the browser write there as
 * they go): captures/ with the browser's key log, Chromium's NetLog, and Firefox's qlog files
 * (qlog/, kept as Firefox closes). runSession's `evidence`. captures/ holds TLS keys: it is this
 * user's alone (0700, checked: server/private-files.js), its key log made 0600 before the browser
 * appends to it; one that is not is refused in one line (exit 2).
 * @param {{ out: string, capture: { whole: boolean } | null, netlog: boolean }} o
 */
export function evidencePaths(o) {
  if (!o.capture && !o.netlog) return undefined;
  const captureDir = o.capture ? path.join(o.out, 'captures') : null;
  mkdirSync(o.out, { recursive: true });
  const keyLogFile = captureDir && path.join(captureDir, 'keys.log');
  if (captureDir && keyLogFile) {
    mkdirSync(captureDir, { mode: 0o700, recursive: true });
    const problem = privateDirProblem(captureDir);
    if (problem) throw new UsageError(`--out: the capture folder ${problem}`);
    keepPrivateFile(keyLogFile);
  }
  return { captureDir, keyLogFile, netLogFile: o.netlog ? path.join(o.out, 'netlog.json') : null, qlogDir: o.netlog ? path.join(o.out, 'qlog') : null };
}

/**
 * Names each record's capture files from the output folder (in place), so that it can move with them.
 * @param {Array<{ capture?: import('../../common/report/result.js').CaptureRecord }>} records  runs or page loads
 * @param {string} out
 */
export function captureFilesFrom(records, out) {
  for (const { capture } of records) {
    if (!capture) continue;
    for (const [kind, file] of Object.entries(capture.files)) if (file) capture.files[/** @type {keyof typeof capture.files} */ (kind)] = path.relative(out, file);
  }
}
