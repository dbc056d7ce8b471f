// Replays the lab's page starts (POST /api/replays): the HAR the page sent, kept in a private
// folder while it runs, read and replayed by `npm run page-loads -- --har` as a child of the lab
// (runner/commands/page-loads.js). A child, because a replay runs a lab of its own (its servers
// serve the recording, under the replay's certificates) and its own headless browsers, on free
// ports beside this lab; and because the lab's servers do not import the runner. One at a time:
// the machine's cores are the measurement's. A child never outlives the lab or the request that
// started it: it is stopped when the request closes, and setpriv --pdeathsig tells it when the lab dies.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { onPath } from '../fronts/child.js';
import { makeOwnedDir } from '../owned-dirs.js';
import { InputError } from '../../common/setup/errors.js';
import { apiErrors, errors, quote } from '../http/errors.js';
import { archiveLimits } from './archive.js';

export const replayJobLimits = {
  maxHarBytes: archiveLimits.maxFileBytes, // what the command reads from a file (archive.js says why)
  // A replay stopped midway shuts its browsers, servers and packet network down on SIGTERM
  // (runner/browsers/session.js); one that has not within this long is killed, with its group.
  stopGraceMs: 10_000,
};

// Flags the lab sets itself: where the HAR and the files are, and how the child answers.
const setByLab = ['har', 'out', 'json', 'check', 'help'];

/**
 * The query as the command's flags: each parameter one `--name=value` (a value never reads as a
 * flag). Anything the command does not take, it refuses by name (--check).
 * @param {Record<string, unknown>} query
 */
function flagsOf(query) {
  return Object.entries(query).map(([name, value]) => {
    if (!/^[a-z][a-z-]{0,30}$/.test(name)) throw errors.badParam(name.slice(0, 40), `${quote(name, 40)} is not a replay's setting`);
    if (setByLab.includes(name)) throw errors.badParam(name, `${name} is the lab's to set, not the page's`);
    if (typeof value !== 'string') throw errors.badParam(name, `give ${name} once, as text`);
    return `--${name}=${value}`;
  });
}

/** @typedef {import('../../common/setup/replay-answer.js').ReplayOutcome} ReplayOutcome */
/** @typedef {import('../../common/setup/replay-answer.js').ReplayPageInfo} ReplayPageInfo */
/** @typedef {(args: string[]) => { c: import('node:child_process').ChildProcess, exited: Promise<number|null> }} Child  the command as a child of the lab */

/**
 * @param {{ script: string, resultsDir: string, env?: NodeJS.ProcessEnv }} o
 *   script: runner/commands/page-loads.js; resultsDir: where each replay's folder goes
 */
export function createReplayJobs({ script, resultsDir, env = process.env }) {
  const setpriv = onPath('setpriv', env);
  /** @type {Set<import('node:child_process').ChildProcess>} */
  const children = new Set();
  let busy = false;
  const killAll = () => children.forEach((c) => killGroup(c, 'SIGKILL'));
  process.on('exit', killAll);

  /** @type {Child} its own process group, told by the kernel when the lab dies */
  const child = (args) => {
    const command = [process.execPath, script, ...args];
    const c = spawn(setpriv ?? command[0], setpriv ? ['--pdeathsig', 'SIGTERM', ...command] : command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(c);
    const exited = /** @type {Promise<number|null>} */ (new Promise((resolve) => {
      c.on('error', () => resolve(null));
      c.on('close', (code) => resolve(code));
    })).finally(() => children.delete(c));
    return { c, exited };
  };

  /**
   * Starts a replay of the HAR `body` brings (read as it arrives, refused past maxHarBytes) under
   * the query's settings; resolves once the command accepted them, with the pages and a run.
   * @param {{ query: Record<string, unknown>, name: string, body: AsyncIterable<Buffer> }} o
   *   name: the page's name (the HAR's file name without .har)
   */
  async function start({ query, name, body }) {
    if (busy) throw apiErrors.replayBusy();
    if (!/^[\w .-]{1,80}$/.test(name) || name.startsWith('.')) throw errors.badParam('name', `name must be 1 to 80 letters, digits, spaces, dots, dashes or underscores, not starting with a dot, got ${quote(name, 80)}`);
    const flags = flagsOf(query);
    busy = true;
    const dir = makeOwnedDir('h2lab-replay-upload-');
    const done = () => {
      fs.rmSync(dir, { recursive: true, force: true });
      busy = false;
    };
    try {
      const har = path.join(dir, `${name}.har`);
      await pipeline(body, fs.createWriteStream(har, { flags: 'wx', mode: 0o600 }));
      const pages = await check(child, har, flags, dir);
      return { pages, run: (/** @type {(line: string) => void} */ onLine, /** @type {AbortSignal} */ signal) => replay(har, flags, onLine, signal).finally(done) };
    } catch (err) {
      done();
      throw err;
    }
  }

  /**
   * The replay itself: progress a line at a time, then its files.
   * @param {string} har @param {string[]} flags @param {(line: string) => void} onLine @param {AbortSignal} signal  the page went: stop it
   * @returns {Promise<ReplayOutcome>}
   */
  async function replay(har, flags, onLine, signal) {
    const out = path.join(resultsDir, `replay-${new Date().toISOString().slice(0, 23).replaceAll(':', '-').replace('.', '-')}`); // to the millisecond: one replay may follow another within a second
    const { c, exited } = child([`--har=${har}`, '--json', `--out=${out}`, ...flags]);
    const stop = () => stopChild(c);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    let stdout = '';
    let last = '';
    c.stdout?.on('data', (d) => (stdout += d));
    const lines = readline.createInterface({ input: /** @type {import('node:stream').Readable} piped */ (c.stderr) });
    lines.on('line', (line) => line && onLine((last = line)));
    const [exitCode] = await Promise.all([exited, once(lines, 'close')]);
    signal.removeEventListener('abort', stop);
    if (!stdout.trim()) return { failed: { exitCode, error: last || `the replay ended ${exitCode} and wrote nothing` } };
    /** @param {string} file */
    const read = (file) => fs.readFileSync(path.join(out, file), 'utf8');
    return { done: { exitCode: exitCode ?? 1, out, data: JSON.parse(stdout), files: Object.fromEntries(['loads.csv', 'origins.csv', 'report.html'].map((f) => [f, read(f)])) } };
  }

  return {
    start,
    /** Stops every replay under way; resolves once each has exited. */
    async close() {
      const exits = [...children].map((c) => new Promise((resolve) => {
        c.once('close', resolve);
        stopChild(c);
      }));
      await Promise.all(exits);
      process.off('exit', killAll);
    },
  };
}

/**
 * Asks the command, which reads the options and the HAR as a run would: the pages, or a 400.
 * @param {Child} child @param {string} har @param {string[]} flags @param {string} dir  the upload's folder, left out of messages
 */
async function check(child, har, flags, dir) {
  const { c, exited } = child([`--har=${har}`, '--check', ...flags]);
  let out = '';
  let err = '';
  c.stdout?.on('data', (d) => (out += d));
  c.stderr?.on('data', (d) => (err += d));
  const code = await exited;
  let answer;
  try {
    answer = JSON.parse(out);
  } catch {
    throw new Error(`the replay's check ended ${code} without an answer: ${err.trim().split('\n').at(-1) ?? ''}`);
  }
  if ('error' in answer) throw new InputError(answer.field ?? 'har', String(answer.error).replaceAll(`${dir}${path.sep}`, ''), answer.code);
  return /** @type {ReplayPageInfo[]} */ (answer.pages);
}

/**
 * SIGTERM, then its whole group killed: once it has exited (a helper it left behind goes with
 * it), or after the grace if it has not; never later, when its group id may be another's.
 * @param {import('node:child_process').ChildProcess} c
 */
function stopChild(c) {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill('SIGTERM');
  const timer = setTimeout(() => killGroup(c, 'SIGKILL'), replayJobLimits.stopGraceMs).unref();
  c.once('exit', () => {
    clearTimeout(timer);
    killGroup(c, 'SIGKILL');
  });
}

/** @param {import('node:child_process').ChildProcess} c @param {NodeJS.Signals} signal */
function killGroup(c, signal) {
  try {
    if (c.pid) process.kill(-c.pid, signal);
  } catch {
    // already gone
  }
}
