// `npm start`: the lab from the command line. Bad flags exit 2, start-up failures exit 1, both
// with one line; SIGINT/SIGTERM let in-flight responses finish, close everything and exit 0.
import { ConfigError, helpText, parentCheckIntervalMs, parseConfig } from './config.js';
import { forceQuicFlag } from '../common/setup/quic.js';

// Started by npm, the lab must not outlive the shell npm ran it in (the poll at the end). That
// shell's pid is taken here, before lab.js loads (about half a second) and the lab starts: once
// the shell is gone this process has another parent (init, or a subreaper), and a pid taken then
// is the new parent's, so the poll never sees a change. Taken after the UI line, as it was, a
// shell killed on seeing that line could go first on a loaded machine (the lab ran on).
const startedIn = process.ppid;
const { LabError, startLab } = await import('./lab.js');

/** @param {string} message @param {number} code @returns {never} */
function fail(message, code) {
  process.stderr.write(`h2lab: ${message}\n`);
  process.exit(code);
}

let config;
try {
  config = parseConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(`${err.message} (see --help)`, 2);
  throw err;
}
if (config.help) {
  console.log(helpText());
  process.exit(0);
}

/** @type {import('./lab.js').Lab} */
let lab;
try {
  lab = await startLab(config, { onNotice: (line) => process.stderr.write(`h2lab: ${line}\n`) });
} catch (err) {
  fail(err instanceof LabError ? err.message : `could not start: ${/** @type {Error} */ (err).message}`, 1);
}

const width = Math.max(...lab.running.map((r) => r.label.length));
console.log(`h2lab UI  ${lab.uiOrigin}/`);
for (const r of lab.running) {
  console.log(`  ${r.label.padEnd(width)}  ${r.origin}/option?size=0.1&delay=10  (lab link: ${r.linkOrigin})`);
}
if (lab.certs.caReplaced) {
  console.log(`  A new local CA replaced ${lab.certs.paths.caCert} (expired, or made for other names): import it again where you had imported the old one.`);
}
// A family whose front is missing or unfit: one line each, with the fix.
for (const front of Object.values(lab.fronts)) if (front.status === 'missing' || front.status === 'failed') console.log(`  (${front.reason})`);
const quic = forceQuicFlag(lab.describe().servers);
console.log(
  `Chrome: npm run chrome  (or start it with --user-data-dir=<new dir> ` +
    `--ignore-certificate-errors-spki-list=${lab.certs.spkiSha256}${quic ? ` ${quic}` : ''})`,
);

// In-flight responses finish (or are reset after shutdownGraceMs, config.js) before the exit.
let closing = false;
async function shutdown() {
  if (closing) process.exit(0); // a second signal: do not wait for the grace time
  closing = true;
  try {
    await lab.shutdown();
  } finally {
    process.exit(0);
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, shutdown);
// Started by npm: the lab never outlives the command (npm's SIGTERM stops at its shell), whether
// the shell went while the lab started or later.
if (process.env.npm_lifecycle_event) {
  setInterval(() => process.ppid !== startedIn && !closing && shutdown(), parentCheckIntervalMs).unref();
}
