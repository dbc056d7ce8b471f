// Processes as Linux's /proc shows them, for the tests of process trees and the packet network.
// Inside launch.py's namespaces /proc is still the host's: these are host pids.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const pids = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);

/** The parent's pid (the field after the command name, which may hold spaces and parentheses). */
export const parentOf = (pid) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);

/** `root` and the pid of every process under it. */
export function tree(root) {
  const children = new Map();
  for (const pid of pids()) {
    try {
      const parent = parentOf(pid);
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch {
      // gone meanwhile
    }
  }
  const all = [];
  for (const queue = [root]; queue.length; ) {
    const pid = queue.shift();
    all.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return all;
}

/** The host pid of the packet emulator in this process's PID namespace. */
export function emulatorHostPid() {
  const ours = readlinkSync('/proc/self/ns/pid');
  for (const pid of pids()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('server/packet/emulator.js') && readlinkSync(`/proc/${pid}/ns/pid`) === ours) return pid;
    } catch {
      // gone, or another user's
    }
  }
  throw new Error('no emulator process in this PID namespace');
}

/** A host pid as the innermost PID namespace numbers it (the last of NSpid): what process.kill takes there. */
export const namespacePid = (pid) => Number(/^NSpid:.*\s(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
