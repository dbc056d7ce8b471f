// The nginx family (server/fronts/nginx.js): three servers on their protocols in front of the
// same handler, and a lab that runs the rest in one line without a fitting nginx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findNginx, nginxVersion } from '../server/fronts/nginx.js';
import { h1Request, h2Connect, h2Request, serverOf, startTestLab } from './helpers/lab.js';
import { h3Get } from './helpers/h3.js';
import { onPath } from '../server/fronts/child.js';

const bin = findNginx();
const nginxMissing = bin ? await nginxVersion(bin).then(() => false, (err) => err.message) : 'nginx is not installed (.ci/run puts Debian trixie\'s on bookworm; NGINX_PATH)';

test('nginx-h1, nginx-h2 and nginx-h3 answer on their protocols, through the same handler', { skip: nginxMissing, timeout: 60_000 }, async () => {
  const lab = await startTestLab({ noNginx: false });
  try {
    assert.equal(lab.fronts.nginx.status, 'running');
    const h1 = await h1Request(lab, '/option?size=0.01&delay=0', { id: 'nginx-h1' });
    assert.deepEqual([h1.status, h1.alpn, h1.body.length], [200, 'http/1.1', 0.01 * 1024 * 1024 | 0]);
    const session = await h2Connect(lab, 'nginx-h2');
    try {
      const h2 = await h2Request(session, '/option?size=0.01&delay=0');
      assert.deepEqual([h2.status, session.alpnProtocol, h2.body.length], [200, 'h2', 0.01 * 1024 * 1024 | 0]);
    } finally {
      session.close();
    }
    if (onPath('gtlsclient', process.env)) {
      const h3 = await h3Get('127.0.0.1', serverOf(lab, 'nginx-h3').port, '/option?size=0.01&delay=0');
      assert.deepEqual([h3.status, h3.body.length], [200, 0.01 * 1024 * 1024 | 0]);
    }
    assert.ok(lab.stats().find((s) => s.id === 'nginx-h1').requests >= 1, 'the handler counted the request as nginx-h1\'s');
  } finally {
    await lab.close();
  }
});

test('an nginx without HTTP/3 (bookworm\'s 1.22) leaves the family out in one line, and the lab runs the rest', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-old-nginx-'));
  const old = path.join(dir, 'nginx');
  writeFileSync(old, '#!/bin/sh\necho "nginx version: nginx/1.22.1" >&2\necho "configure arguments: --with-http_v2_module" >&2\n');
  chmodSync(old, 0o700);
  const saved = process.env.NGINX_PATH;
  process.env.NGINX_PATH = old;
  try {
    const lab = await startTestLab({ noNginx: false });
    try {
      assert.equal(lab.fronts.nginx.status, 'failed');
      assert.match(lab.fronts.nginx.reason, /nginx 1\.22\.1 is older than 1\.25.*Debian trixie/);
      assert.ok(!lab.running.some((r) => r.id.startsWith('nginx-')), 'no nginx server in the lab');
      assert.ok(lab.running.some((r) => r.id === 'h1'), 'the rest runs');
    } finally {
      await lab.close();
    }
  } finally {
    if (saved === undefined) delete process.env.NGINX_PATH;
    else process.env.NGINX_PATH = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
