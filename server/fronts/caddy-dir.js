// Caddy's private directory (its configuration, and its HOME) in the system's temp directory. Its
// name carries the lab's pid, so that a later lab can tell what a lab that died left behind (one
// killed with SIGKILL runs no exit handler) from a running lab's, and remove it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const prefix = 'h2lab-caddy-';
// mkdtemp adds six characters after the pid's dash.
const ownName = new RegExp(`^${prefix}(\\d+)-[A-Za-z0-9]{6}$`);

/** Whether a process with this pid exists (EPERM: it does, another user's). */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/**
 * Removes the directories makeCaddyDir() made for labs whose process is gone: only names of its
 * own form, only real directories of this user. A pid taken since by another process keeps its
 * directory (the safe side). One that cannot be removed is left: it must not stop the lab.
 * @returns {string[]} the directories removed
 */
export function removeStaleCaddyDirs(tmp = os.tmpdir()) {
  const removed = [];
  for (const name of fs.readdirSync(tmp)) {
    const pid = Number(ownName.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    const dir = path.join(tmp, name);
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || stat.uid !== process.getuid?.()) continue;
    try {
      fs.rmSync(dir, { recursive: true });
      removed.push(dir);
    } catch {
      // another lab removed it first, or a file in it is not ours to remove
    }
  }
  return removed;
}

/** A new directory for this lab's Caddy, after removing those of labs that died. */
export function makeCaddyDir() {
  removeStaleCaddyDirs();
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}${process.pid}-`));
}
