// nginx as a child of the lab: a front (fronts.js) in C, with a QUIC of its own, in front of the
// same upstream as Caddy's. Debian trixie's nginx 1.26 has HTTP/3 (--with-http_v3_module);
// bookworm's 1.22 has not (docs/notes/nginx-1.26.md says how each was checked).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { nginxLimits } from '../config.js';
import { makeOwnedDir } from '../owned-dirs.js';
import { findBinary, startChild } from './child.js';
import { nginxConfig } from './nginx-config.js';

/** The one line that says how to get an nginx with HTTP/3. */
export const installHint = 'the nginx family needs nginx 1.25 or later, with HTTP/3 built in (Debian trixie\'s nginx; .ci/run shows how on bookworm), or set NGINX_PATH';

/**
 * The nginx binary: $NGINX_PATH, else the first on PATH or in /usr/sbin (Debian's place, off a
 * person's PATH); null when there is none.
 * @param {NodeJS.ProcessEnv} [env]
 */
export const findNginx = (env = process.env) => findBinary('nginx', 'NGINX_PATH', env, ['/usr/sbin']);

/**
 * What `nginx -V` says of a binary: its version and whether it has HTTP/2 and HTTP/3.
 * @param {string} text  nginx -V's output (it writes to stderr)
 */
export function readBuild(text) {
  return {
    version: text.match(/nginx version: nginx\/(\d+\.\d+\.\d+)/)?.[1] ?? null,
    http2: text.includes('--with-http_v2_module'),
    http3: text.includes('--with-http_v3_module'),
  };
}

/** @param {string} bin */
async function build(bin) {
  const { stdout, stderr } = await promisify(execFile)(bin, ['-V'], { timeout: 5_000 });
  return readBuild(`${stdout}${stderr}`);
}

/**
 * `nginx -V`'s version, refused in one line when the binary cannot be the family's front: 'http2 on'
 * and 'http3 on' are nginx 1.25's syntax, and a front without HTTP/3 would leave the family without it.
 * @param {string} bin
 */
export async function nginxVersion(bin) {
  const { version, http3 } = await build(bin);
  if (!version) throw new Error(`${bin} -V named no version`);
  const [major, minor] = version.split('.').map(Number);
  if (major < 1 || (major === 1 && minor < 25)) throw new Error(`nginx ${version} is older than 1.25`);
  if (!http3) throw new Error(`nginx ${version} was built without HTTP/3 (no --with-http_v3_module)`);
  return version;
}

/**
 * The port of nginx's "bind() to 127.0.0.1:8443 failed (98: Address already in use)", if that is why it exited.
 * @param {string[]} lines
 */
const portInUse = (lines) => Number(lines.find((l) => l.includes('Address already in use'))?.match(/:(\d+) failed/)?.[1]) || null;

/**
 * The nginx front as the lab's fronts take one (fronts.js).
 * @type {import('./fronts.js').Front}
 */
export const nginxFront = {
  id: 'nginx',
  title: 'nginx',
  offKey: 'noNginx',
  installHint,
  find: findNginx,
  version: nginxVersion,
  async start({ bin, servers, certFiles, keyFile, limits, onDied }) {
    const dir = makeOwnedDir('h2lab-nginx-');
    for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(dir, 'tmp', t), { recursive: true, mode: 0o700 });
    const configFile = path.join(dir, 'nginx.conf');
    fs.writeFileSync(configFile, nginxConfig({ servers, certFiles, keyFile, dir, limits, root: process.getuid?.() === 0 }), { mode: 0o600 });
    return startChild({
      title: 'nginx',
      // -e stderr: nothing is opened under /var/log before the configuration is read.
      command: [bin, '-p', `${dir}/`, '-c', configFile, '-e', 'stderr'],
      env: process.env,
      listeners: servers.map((s) => ({ port: s.port, host: s.listenHost, udp: s.protocol === 'h3' })),
      limits: nginxLimits,
      // SIGQUIT: a graceful stop, whose QUIC connections get a CONNECTION_CLOSE (SIGTERM's do not).
      stopSignal: 'SIGQUIT',
      portInUse,
      cleanUp: () => fs.rmSync(dir, { recursive: true, force: true }),
      onDied,
    });
  },
  heldMaxMs: nginxLimits.heldMaxMs,
};
