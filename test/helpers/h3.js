// HTTP/3 requests for the tests, with gtlsclient (Debian ngtcp2-client): Node has no HTTP/3 client.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { caddyMissing } from './caddy.js';
import { serverOf } from './lab.js';

const run = promisify(execFile);
const onPath = (name) => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).some((dir) => fs.existsSync(path.join(dir, name)));

/** false when HTTP/3 can be tested here (Caddy and gtlsclient installed), else why not. */
export const h3Missing = caddyMissing || (onPath('gtlsclient') ? false : 'gtlsclient is not installed (apt-get install ngtcp2-client): Node has no HTTP/3 client');

/**
 * One request over HTTP/3 to host:port (an address: 127.0.0.1 or ::1).
 * @returns {Promise<{ status, headers, informational: object[], body: Buffer }>} headers: the final response's
 */
export async function h3Get(host, port, target, { method = 'GET' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-h3-'));
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  try {
    const args = ['--exit-on-all-streams-close', '--no-quic-dump', '--no-http-dump', '--sni=localhost', `--download=${dir}`, `--http-method=${method}`];
    const { stderr } = await run('gtlsclient', [...args, host, String(port), `https://${authority}${target}`], { timeout: 15_000, maxBuffer: 16 * 2 ** 20 });
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

/** One request over HTTP/3 to a lab's caddy-h3. */
export const h3Request = (lab, target, options) => h3Get('127.0.0.1', serverOf(lab, 'caddy-h3').port, target, options);
