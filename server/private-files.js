// Files a run writes where another local user may look: captures and TLS keys. The folder is this
// user's alone, checked before use (OpenSSH's StrictModes: owner, not a link, no one else may
// write it or a folder above it, or they could move it and put theirs in its place); a file is
// created exclusively without following a link, 0600, so a name planted beforehand is refused,
// never truncated or followed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = fs.constants;
// Windows has neither (nor the links and FIFOs they guard against).
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

// A name a run's file may start with (a capture's run, a chart's experiment): up to 160 letters,
// digits, '.', '_' and '-', at least one letter or digit ('.' and '-' alone are no names), no '..'
// (the folder above) and no separator.
const namePattern = /^(?!.*\.\.)(?=.*\w)[\w.-]{1,160}$/;
export const safeNameRule = "1–160 letters, digits, '.', '_' or '-', with a letter or digit and no '..'";

/**
 * Whether `name` is safe as the start of a file name in a folder of ours, and in a message.
 * @param {unknown} name
 * @returns {name is string}
 */
export const isSafeName = (name) => typeof name === 'string' && namePattern.test(name);

/** The lines of a colon-separated account file as fields, none where it cannot be read. @param {string} file */
function accountLines(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').map((line) => line.split(':'));
  } catch {
    return [];
  }
}

/**
 * Whether group `gid` is this user's alone: a user private group (Debian's and Ubuntu's
 * accounts, where a umask of 002 leaves every new folder group-writable, harmlessly: Debian's
 * OpenSSH takes it so too), named as the user, no other member, no other user's primary group.
 * @param {number} gid
 */
function isOwnGroup(gid) {
  if (gid !== process.getgid?.()) return false;
  const { username } = os.userInfo();
  const group = accountLines('/etc/group').find((f) => Number(f[2]) === gid);
  const members = (group?.[3] ?? '').split(',').filter(Boolean);
  const sharing = accountLines('/etc/passwd').filter((f) => Number(f[3]) === gid && f[0] !== username);
  return group?.[0] === username && members.every((m) => m === username) && !sharing.length;
}

/**
 * The uid an owner shows as where this process runs in a user namespace that maps no one but
 * itself (the packet network's: launch.py maps this user to root), or null outside one. Root's
 * folders (/, /tmp, /home) show as it there, as every other user's do: above a folder, such an
 * owner is taken, and only their mode is checked.
 */
function unmappedUid() {
  try {
    if (/^\s*0\s+0\s+4294967295\s*$/.test(fs.readFileSync('/proc/self/uid_map', 'utf8'))) return null;
    return Number(fs.readFileSync('/proc/sys/kernel/overflowuid', 'utf8'));
  } catch {
    return null; // no /proc: no user namespaces
  }
}

/** @param {fs.Stats} stat */
function othersMayWrite(stat) {
  if (stat.mode & 0o1000) return false; // sticky (/tmp): others may add names there, not move ours
  return (stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && !isOwnGroup(stat.gid));
}
/** @param {fs.Stats} stat */
const modeText = (stat) => (stat.mode & 0o7777).toString(8);

/**
 * Every folder above `dir`, by the path given and by its real path (a link along the way lives in
 * a folder of the first, its target in the second).
 * @param {string} dir
 */
function foldersAbove(dir) {
  const above = new Set();
  for (let at of [path.resolve(dir), fs.realpathSync(dir)]) {
    while (path.dirname(at) !== at) above.add((at = path.dirname(at)));
  }
  return above;
}

/**
 * Why `dir` is not a folder only this user may change, or null: a real folder (not a link) of
 * this user that no other user may write (its group may, where it is this user's own), below
 * folders of root's or this user's that no other user may write (sticky ones such as /tmp aside:
 * there others cannot move what is ours).
 * @param {string} dir
 * @returns {string|null} one sentence naming the folder at fault
 */
export function privateDirProblem(dir) {
  const uid = process.getuid?.();
  if (uid === undefined) return null; // Windows: no uids or modes to check
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return `${dir} does not exist`;
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link (give the folder it points to)`;
  if (!stat.isDirectory()) return `${dir} is not a folder`;
  if (stat.uid !== uid) return `${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  if (othersMayWrite(stat)) return `${dir} is writable by other users (mode ${modeText(stat)}; chmod go-w it)`;
  const unmapped = unmappedUid();
  for (const folder of foldersAbove(dir)) {
    const up = fs.statSync(folder);
    if (up.uid !== uid && up.uid !== 0 && up.uid !== unmapped) return `${folder}, above ${dir}, belongs to uid ${up.uid}, who could put another folder in its place`;
    if (othersMayWrite(up)) return `${folder}, above ${dir}, is writable by other users (mode ${modeText(up)}), who could put another folder in its place`;
  }
  return null;
}

/**
 * A new folder `<tmp>/<prefix>XXXXXX`, this user's alone (mkdtemp: a name no one had, 0700).
 * @param {string} prefix @param {string} [tmp]
 */
export const makePrivateDir = (prefix, tmp = os.tmpdir()) => fs.mkdtempSync(path.join(tmp, prefix));

/**
 * Creates `file` for writing, 0600; a name that exists (a link to anything included) is refused
 * with EEXIST, never truncated or followed.
 * @param {string} file
 * @returns {number} the open file descriptor
 */
export const createPrivateFile = (file) => fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);

/**
 * Makes `file` a 0600 file of this user that another program (a browser's key log) appends to:
 * created, or kept as it is where an earlier run made it (not truncated), never through a link.
 * @param {string} file
 */
export function keepPrivateFile(file) {
  // O_NONBLOCK: a FIFO in its place fails at once rather than hanging the open.
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK, 0o600);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || (process.getuid && stat.uid !== process.getuid())) throw new Error(`${file} is not a file of this user`);
    fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
}
