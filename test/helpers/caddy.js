// Whether this machine can run the Caddy family's tests (CI installs Caddy, .ci/run, so there
// they always run), and clients and probes for them: HTTP/3 through gtlsclient (Debian
// ngtcp2-client; Node has no HTTP/3 client), and the Caddy processes a lab started.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findCaddy } from '../../server/fronts/caddy.js';
import { serverOf } from './lab.js';

const run = promisify(execFile);

export const caddyMissing = findCaddy() ? false : 'Caddy is not installed (apt-get install caddy); .ci/run installs it';
const onPath = (name) => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).some((dir) => fs.existsSync(path.join(dir, name)));
export const h3Missing = caddyMissing || (onPath('gtlsclient') ? false : 'gtlsclient is not installed (apt-get install ngtcp2-client): Node has no HTTP/3 client');

/** One request over HTTP/3 with gtlsclient: { status, headers (final response), informational[], body }. */
export async function h3Request(lab, target, { method = 'GET' } = {}) {
  const { port } = serverOf(lab, 'caddy-h3');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-h3-'));
  try {
    const args = ['--exit-on-all-streams-close', '--no-quic-dump', '--no-http-dump', '--sni=localhost', `--download=${dir}`, `--http-method=${method}`];
    const { stderr } = await run('gtlsclient', [...args, '127.0.0.1', String(port), `https://127.0.0.1:${port}${target}`], { timeout: 15_000, maxBuffer: 16 * 2 ** 20 });
    // Each response's fields print as `http: stream 0x0 [name: value]`, a 103's before the final one's.
    const responses = [];
    for (const [, name, value] of stderr.matchAll(/^http: stream 0x0 \[(:?[^:]+): (.*)\]$/gm)) {
      if (name === ':status') responses.push({ status: Number(value), headers: {} });
      else responses.at(-1).headers[name] = value;
    }
    assert.ok(responses.length, `gtlsclient printed no response: ${stderr.split('\n').slice(-5).join(' | ')}`);
    const files = fs.readdirSync(dir);
    const body = files.length ? fs.readFileSync(path.join(dir, files[0])) : Buffer.alloc(0);
    return { ...responses.at(-1), informational: responses.slice(0, -1), body };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

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
