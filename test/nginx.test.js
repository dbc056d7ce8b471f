// The nginx family (server/fronts/nginx.js): three servers on their protocols in front of the
// same handler, and a lab that runs the rest in one line without a fitting nginx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nginxMissing } from './helpers/nginx.js';
import { h1Request, h2Connect, h2Request, serverOf, startTestLab } from './helpers/lab.js';
import { h3Get } from './helpers/h3.js';
import { onPath } from '../server/fronts/child.js';
import { exitOf, startScript, waitFor } from './helpers/cli.js';
import { isGone, until } from './helpers/processes.js';
import { freePortArgs, ids, request } from './helpers/lab.js';

const run = promisify(execFile);

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

/** The nginx processes a process started: [{ pid, config }] (ps exits 1 when it finds none). */
async function nginxChildren(parentPid) {
  const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(parentPid)]).catch((err) => ({ stdout: err.stdout ?? '' }));
  return [...stdout.matchAll(/^\s*(\d+) \S*nginx -p \S+ -c (\S+)/gm)].map(([, pid, config]) => ({ pid: Number(pid), config }));
}

test('nginx killed under a running lab: one notice, its three servers unavailable, the rest, reset and close still work', { skip: nginxMissing, timeout: 60_000 }, async () => {
  const notices = [];
  const lab = await startTestLab({ noNginx: false }, { onNotice: (line) => notices.push(line) });
  try {
    const mine = (await nginxChildren(process.pid)).filter((c) => readFileSync(c.config, 'utf8').includes(`:${serverOf(lab, 'nginx-h1').port} ssl;`));
    assert.equal(mine.length, 1, `one nginx for this lab: ${JSON.stringify(mine)}`);
    process.kill(mine[0].pid, 'SIGKILL');
    await until(() => notices.length > 0, 5_000, 'a notice');
    for (const id of ['nginx-h1', 'nginx-h2', 'nginx-h3']) assert.equal(serverOf(lab, id).available, false, `${id} unavailable`);
    assert.equal(lab.fronts.nginx.status, 'exited');
    for (const id of ids) assert.equal((await request(lab, id, '/option?size=0.01')).status, 200, `${id} still answers`);
    await lab.reset({ hold: true });
    await lab.release();
    assert.equal(notices.length, 1, `exactly one notice: ${JSON.stringify(notices)}`);
    assert.match(notices[0], /nginx/);
  } finally {
    await lab.close();
  }
});

test('no orphan: SIGKILL to the lab takes its nginx along within 5 s', { skip: nginxMissing, timeout: 30_000 }, async () => {
  const cli = startScript('server/index.js', [...freePortArgs, '--no-caddy']);
  await waitFor(cli, (r) => /npm run chrome/.test(r.stdout), 20_000);
  const children = await nginxChildren(cli.child.pid);
  assert.equal(children.length, 1, `one nginx child: ${JSON.stringify(children)}`);
  const [{ pid, config }] = children;
  try {
    cli.child.kill('SIGKILL');
    await until(() => isGone(pid), 5_000, `nginx (pid ${pid}) gone after SIGKILL to the lab`);
    assert.equal((await exitOf(cli, 5_000)).signal, 'SIGKILL');
  } finally {
    if (!isGone(pid)) process.kill(pid, 'SIGKILL');
    rmSync(path.dirname(config), { recursive: true, force: true }); // a SIGKILLed lab cannot remove it
  }
});

test("SIGTERM to the lab: its nginx gone and nginx's private folder removed", { skip: nginxMissing, timeout: 30_000 }, async () => {
  const cli = startScript('server/index.js', [...freePortArgs, '--no-caddy']);
  await waitFor(cli, (r) => /npm run chrome/.test(r.stdout), 20_000);
  const [{ pid, config }] = await nginxChildren(cli.child.pid);
  cli.child.kill('SIGTERM');
  assert.equal((await exitOf(cli, 10_000)).code, 0, cli.stderr);
  assert.equal(isGone(pid), true, 'nginx gone');
  assert.equal(existsSync(path.dirname(config)), false, `${path.dirname(config)} removed`);
});

test('no nginx anywhere: npm start runs the rest and says in one line what is missing and how to add it', { skip: existsSync('/usr/sbin/nginx') && 'this machine has /usr/sbin/nginx, which the lab always finds', timeout: 30_000 }, async () => {
  const emptyDir = mkdtempSync(path.join(tmpdir(), 'h2lab-nopath-'));
  const cli = startScript('server/index.js', [...freePortArgs, '--no-caddy'], { env: { PATH: emptyDir, NGINX_PATH: '' } });
  try {
    await waitFor(cli, (r) => /npm run chrome/.test(r.stdout), 20_000);
    const about = cli.stdout.split('\n').filter((l) => /nginx/i.test(l));
    assert.equal(about.length, 1, cli.stdout);
    assert.match(about[0], /nginx.*1\.25 or later.*NGINX_PATH/);
    assert.match(cli.stdout, /HTTP\/1\.1 +https:/, 'the rest runs');
  } finally {
    cli.child.kill('SIGTERM');
    await exitOf(cli, 10_000);
    rmSync(emptyDir, { recursive: true, force: true });
  }
});
