// Temporary folders that name their owner (server/owned-dirs.js): a process removes those whose
// owner is gone and never a live one's, on the host and from inside the packet network's PID
// namespace, where process.kill sees other pids than /tmp's names (a packet lab once removed a
// running host lab's Caddy folder, and every packet lab's folder was named pid 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeOwnedDir, removeDeadOwnersDirs } from '../server/owned-dirs.js';
import { launchPyArgs, packetNetworkMissing } from '../server/packet/launcher.js';

const prefix = 'h2lab-test-';
const linux = process.platform === 'linux';
const ownedDirs = fileURLToPath(new URL('../server/owned-dirs.js', import.meta.url));

const startOf = (pid) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19];
};

async function deadPid() {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid;
}

/** A private temporary folder holding folders of the given names; their paths by name. */
function place(names) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-owned-'));
  const dirs = Object.fromEntries(names.map((n) => [n, path.join(tmp, n)]));
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir);
  return { tmp, dirs };
}

const left = (tmp) => fs.readdirSync(tmp).sort();

test('a folder is removed once its owner is gone: a dead pid, a pid taken since, an old form of a kernel pid; never a live one', { skip: !linux && 'Linux only (/proc)' }, async (t) => {
  const dead = await deadPid();
  const me = fs.readlinkSync('/proc/self');
  const { tmp, dirs } = place([
    `${prefix}${dead}-${startOf(me)}-Dead01`, // gone
    `${prefix}${me}-1-Reused`, // this pid, another start time: the owner was another process
    `${prefix}${me}-${startOf(me)}-Alive1`, // this process
    `${prefix}2-Ns0002`, // an earlier version's packet lab (pid 2 in its namespace; the host's is a kernel thread)
    `${prefix}${process.pid}-Older1`, // an earlier version's, of this live Node process started before it
    `${prefix}Unlck1`, // an earlier version's profile, no Chrome lock, not written for a while
    `${prefix}Locked`, // the same, locked by a live process
    `${prefix}other-name`, // not a name these folders have
  ]);
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const longAgo = new Date(Date.now() - 3_600_000);
  fs.symlinkSync(`${os.hostname()}-${process.pid}`, path.join(dirs[`${prefix}Locked`], 'SingletonLock'));
  for (const name of [`${prefix}Unlck1`, `${prefix}Locked`]) fs.utimesSync(dirs[name], longAgo, longAgo);
  const removed = removeDeadOwnersDirs(prefix, tmp).map((d) => path.basename(d)).sort();
  assert.deepEqual(removed, [`${prefix}${dead}-${startOf(me)}-Dead01`, `${prefix}${me}-1-Reused`, `${prefix}2-Ns0002`, `${prefix}Unlck1`].sort());
  const made = path.basename(makeOwnedDir(prefix, tmp));
  assert.match(made, new RegExp(`^${prefix}${me}-${startOf(me)}-\\w{6}$`), 'named by the host pid and start time');
  assert.deepEqual(left(tmp), [`${prefix}${me}-${startOf(me)}-Alive1`, `${prefix}${process.pid}-Older1`, `${prefix}Locked`, `${prefix}other-name`, made].sort());
});

test('from inside the packet network: a live host process keeps its folder, a dead one loses its, and the folder made inside names the host pid', { skip: packetNetworkMissing() ?? false }, async (t) => {
  const me = fs.readlinkSync('/proc/self');
  const live = `${prefix}${me}-${startOf(me)}-HostLv`;
  const dead = `${prefix}${await deadPid()}-${startOf(me)}-Dead02`;
  const { tmp } = place([live, dead]);
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const script = `import(${JSON.stringify(ownedDirs)}).then(({ makeOwnedDir }) => console.log(JSON.stringify({ made: makeOwnedDir(${JSON.stringify(prefix)}, ${JSON.stringify(tmp)}), pid: process.pid, host: require('node:fs').readlinkSync('/proc/self') })))`;
  const { stdout } = await promisify(execFile)('python3', launchPyArgs(['--', process.execPath, '-e', script]));
  const inside = JSON.parse(stdout.trim().split('\n').at(-1));
  assert.equal(inside.pid, 2, 'the command is pid 2 of its namespace');
  assert.notEqual(inside.host, '2');
  assert.match(path.basename(inside.made), new RegExp(`^${prefix}${inside.host}-\\d+-\\w{6}$`));
  // Making its own, it removed the dead one's and kept the live host process's.
  assert.deepEqual(left(tmp), [live, path.basename(inside.made)].sort());
  // Its owner is gone now (the command exited): the next one removes it, and still keeps the live one's.
  removeDeadOwnersDirs(prefix, tmp);
  assert.deepEqual(left(tmp), [live]);
});
