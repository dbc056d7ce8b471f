// Temporary folders that say whose they are: Caddy's (its configuration and HOME) and the lab
// browsers' profiles. A process killed outright runs no exit handler, so the next one of its kind
// removes what it left, and must never remove a live one's, whichever PID namespace either runs
// in (a lab on the packet network sees its own pids, not the host's, but shares the host's /tmp).
//
// The owner is named by what is true in and out of a PID namespace: its pid in the host's /proc
// (/proc/self, since the packet network mounts no /proc of its own) and its start time there (a
// pid taken since by another process has another start time). Without /proc (not Linux) there are
// no PID namespaces to mistake: the pid alone, as seen by process.kill.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** @param {string|number} pid */
const procStat = (pid) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
// Fields after the command name (which may hold spaces and parentheses): state is the first,
// starttime (clock ticks after boot) the 20th.
/** @param {string} stat */
const statFields = (stat) => stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
/** @param {string|number} pid */
const startOf = (pid) => statFields(procStat(pid))[19];

const hasProc = fs.existsSync('/proc/self/stat');

/** This process: `<host pid>-<start time>`, or `<pid>-0` without /proc. */
function ownIdentity() {
  if (!hasProc) return `${process.pid}-0`;
  const pid = fs.readlinkSync('/proc/self');
  return `${pid}-${startOf(pid)}`;
}

/**
 * Whether the process a folder names still runs (EPERM: it does, another user's).
 * @param {number} pid @param {string|null} start  its start time in /proc, which a pid taken since differs in
 */
function isAlive(pid, start) {
  if (!hasProc) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
    }
  }
  try {
    return startOf(pid) === start;
  } catch {
    return false; // no such process
  }
}

/**
 * Folders of the form an earlier version made, `<prefix><pid>-XXXXXX`, whose pid may be a PID
 * namespace's (every packet lab was pid 2 there; the host's pid 2 is a kernel thread): alive only
 * while a Node process of that pid runs that started before the folder was made.
 * @param {number} pid @param {string} dir
 */
function isOlderFormAlive(pid, dir) {
  if (!hasProc) return isAlive(pid, null);
  try {
    // No btime line throws, as any failure here does: false below.
    const bootSeconds = Number(/** @type {RegExpExecArray} */ (/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8')))[1]);
    const startedMs = (bootSeconds + Number(startOf(pid)) / 100) * 1000; // USER_HZ is 100 on Linux
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return path.basename(command).startsWith('node') && startedMs <= fs.statSync(dir).mtimeMs;
  } catch {
    return false;
  }
}

// A profile an earlier version made carried no owner (`<prefix>XXXXXX`): alive while the Chrome
// its SingletonLock names runs ("<host>-<pid>"; Chrome removes it when it exits cleanly), or for a
// while after it was last written (a Chrome starting, which writes the lock within a second).
const unnamedGraceMs = 60_000;

/** @param {string} dir */
function isUnnamedAlive(dir) {
  try {
    if (Date.now() - fs.statSync(dir).mtimeMs < unnamedGraceMs) return true;
    const pid = /-(\d+)$/.exec(fs.readlinkSync(path.join(dir, 'SingletonLock')))?.[1];
    return pid !== undefined && isAlive(Number(pid), hasProc ? startOf(pid) : null);
  } catch {
    return false; // no lock, or its process is gone
  }
}

/**
 * Whether a folder's owner may still use it; true for names this module does not make.
 * @param {string} name @param {string} dir @param {string} prefix
 */
function isInUse(name, dir, prefix) {
  // mkdtemp adds six characters after the identity's dash.
  const owned = new RegExp(`^${prefix}(\\d+)-(\\d+)-[A-Za-z0-9]{6}$`).exec(name);
  if (owned) return isAlive(Number(owned[1]), owned[2]);
  const older = new RegExp(`^${prefix}(\\d+)-[A-Za-z0-9]{6}$`).exec(name);
  if (older) return isOlderFormAlive(Number(older[1]), dir);
  if (new RegExp(`^${prefix}[A-Za-z0-9]{6}$`).test(name)) return isUnnamedAlive(dir);
  return true;
}

/**
 * Removes the folders `<tmp>/<prefix>…` whose owner is gone: only names of the forms above, only
 * real directories of this user. One that cannot be removed is left: it must not stop the caller.
 * @param {string} prefix @param {string} [tmp]
 * @returns {string[]} the folders removed
 */
export function removeDeadOwnersDirs(prefix, tmp = os.tmpdir()) {
  /** @type {string[]} */
  const removed = [];
  for (const name of fs.readdirSync(tmp)) {
    const dir = path.join(tmp, name);
    if (!name.startsWith(prefix) || isInUse(name, dir, prefix)) continue;
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || stat.uid !== process.getuid?.()) continue;
    try {
      fs.rmSync(dir, { recursive: true });
      removed.push(dir);
    } catch {
      // another process removed it first, or a file in it is not ours to remove
    }
  }
  return removed;
}

/**
 * A new folder `<tmp>/<prefix><owner>-XXXXXX` for this process, after removing those of owners gone.
 * @param {string} prefix @param {string} [tmp]
 */
export function makeOwnedDir(prefix, tmp = os.tmpdir()) {
  removeDeadOwnersDirs(prefix, tmp);
  return fs.mkdtempSync(path.join(tmp, `${prefix}${ownIdentity()}-`));
}
