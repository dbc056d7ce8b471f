// Whether this machine can run the Caddy family's tests (CI installs Caddy, .ci/run, so there
// they always run), and probes of the Caddy processes a lab started. HTTP/3 requests: h3.js.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { findCaddy } from '../../server/fronts/caddy.js';
import { serverOf } from './lab.js';

const run = promisify(execFile);

export const caddyMissing = findCaddy() ? false : 'Caddy is not installed (apt-get install caddy); .ci/run installs it';

/** The Caddy processes a process started: [{ pid, config }] (ps exits 1 when it finds none). */
export async function caddyChildren(parentPid) {
  const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(parentPid)]).catch((err) => ({ stdout: err.stdout ?? '' }));
  return [...stdout.matchAll(/^\s*(\d+) .*caddy run --config (\S+)/gm)].map(([, pid, config]) => ({ pid: Number(pid), config }));
}

/** The pid of an in-process lab's Caddy: the child whose configuration has caddy-h1's port. */
export async function caddyPidOf(lab) {
  const listen = `:${serverOf(lab, 'caddy-h1').port}"`;
  const mine = (await caddyChildren(process.pid)).filter((c) => fs.readFileSync(c.config, 'utf8').includes(listen));
  assert.equal(mine.length, 1, `one Caddy for this lab: ${JSON.stringify(mine)}`);
  return mine[0].pid;
}
