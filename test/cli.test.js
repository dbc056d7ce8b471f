// The command line: `node server/index.js` as a user runs it. Bad flags exit 2 and start-up
// failures exit 1, each with one `h2lab:` line; a normal start prints the URLs and a signal
// closes everything with exit code 0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { servers } from '../common/setup/servers.js';
import { exitOf, ownLines, startScript, waitFor } from './helpers/cli.js';
import { freePortArgs } from './helpers/lab.js';
import { caddyMissing } from './helpers/caddy.js';
import { nginxMissing } from './helpers/nginx.js';

const start = (args, options) => startScript('server/index.js', args, options);

async function expectOneLineFailure(args, { env, code, mentions }) {
  const run = start(args, { env });
  const exit = await exitOf(run);
  const lines = ownLines(run.stderr);
  assert.equal(exit.code, code, `exit code for ${args.join(' ')}; stderr: ${run.stderr}`);
  assert.equal(lines.length, 1, `exactly one line of its own on stderr: ${JSON.stringify(lines)}`);
  const [line] = lines;
  assert.match(line, /^h2lab: /);
  for (const text of mentions) assert.ok(line.includes(text), `"${line}" mentions ${text}`);
  assert.ok(!/\n\s+at /.test(run.stderr), 'no stack trace');
  assert.equal(run.stdout, '', 'nothing on stdout');
  return line;
}

const flags = ['--host', '--ui-port', ...servers.flatMap((s) => [`--${s.portFlag}`, `--${s.linkPortFlag}`]), '--max-size-mib', '--max-delay-ms', '--max-streams', '--san'];

describe('command line', () => {
  it('--help exits 0 and lists every flag', async () => {
    const run = start(['--help']);
    const exit = await exitOf(run);
    assert.equal(exit.code, 0);
    for (const flag of flags) assert.match(run.stdout, new RegExp(`${flag}\\b`), `help lists ${flag}`);
    assert.match(run.stdout, /--help/);
    assert.deepEqual(ownLines(run.stderr), []);
  });

  it('-h is --help too', async () => {
    const run = start(['-h']);
    assert.equal((await exitOf(run)).code, 0);
    assert.match(run.stdout, /--max-streams/);
  });

  for (const [args, flag] of [
    [['--bogus'], '--bogus'],
    [['--h1-port', 'abc'], '--h1-port'],
    [['--h1-port', '70000'], '--h1-port'],
    [['--h1-port', '-1'], '--h1-port'],
    [['--h1-port'], '--h1-port'],
    [['--max-size-mib', '-1'], '--max-size-mib'],
    [['--max-size-mib=-1'], '--max-size-mib'],
    [['--max-size-mib', '1e3'], '--max-size-mib'],
    [['--max-size-mib', '2000'], '--max-size-mib'],
    [['--max-delay-ms', 'soon'], '--max-delay-ms'],
    [['--max-streams', '0'], '--max-streams'],
    [['--max-streams', '1.5'], '--max-streams'],
    [['--host', 'a b'], '--host'],
    [['positional'], 'positional'],
  ]) {
    it(`${args.join(' ')} → exit 2 with one h2lab: line naming ${flag}`, async () => {
      await expectOneLineFailure(args, { code: 2, mentions: [flag] });
    });
  }

  it('env form: H2LAB_H1_PORT=abc → exit 2 naming --h1-port', async () => {
    await expectOneLineFailure([], { env: { H2LAB_H1_PORT: 'abc' }, code: 2, mentions: ['--h1-port', 'abc'] });
  });

  it('env form: H2LAB_MAX_STREAMS=0 → exit 2 naming --max-streams', async () => {
    await expectOneLineFailure([], { env: { H2LAB_MAX_STREAMS: '0' }, code: 2, mentions: ['--max-streams'] });
  });

  it('a flag wins over its environment variable', async () => {
    await expectOneLineFailure(['--h1-port', 'abc'], { env: { H2LAB_H1_PORT: '0' }, code: 2, mentions: ['--h1-port', 'abc'] });
  });

  it('a port in use → exit 1 with one h2lab: line naming the port and --h1-port', async () => {
    const blocker = net.createServer();
    await new Promise((resolve, reject) => blocker.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address();
    try {
      await expectOneLineFailure(freePortArgs.map((arg, i) => (freePortArgs[i - 1] === '--h1-port' ? String(port) : arg)), {
        code: 1,
        mentions: [String(port), '--h1-port'],
      });
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  // The Node servers, and each fronted family whose front is installed.
  const expectedIds = servers.filter((s) => !s.front || (s.front === 'caddy' && !caddyMissing) || (s.front === 'nginx' && !nginxMissing)).map((s) => s.id);
  for (const signal of ['SIGTERM', 'SIGINT']) {
    it(`normal start on free ports, /api/servers, then ${signal} → exit 0 within 5 s`, async () => {
      const run = start(freePortArgs);
      await waitFor(run, (r) => (r.stdout.match(/https:\/\/\S+\/option/g) ?? []).length >= expectedIds.length && /npm run chrome/.test(r.stdout));

      const lines = run.stdout.split('\n');
      const uiLine = lines.find((l) => l.startsWith('h2lab UI'));
      assert.ok(uiLine, `a line starting "h2lab UI": ${run.stdout}`);
      const ui = /(http:\/\/\S+?)\/?$/.exec(uiLine.trim())?.[1];
      assert.ok(ui, `UI URL in ${uiLine}`);
      const serverLines = lines.filter((l) => l.includes('https://'));
      assert.equal(serverLines.length, expectedIds.length, 'one line per server');
      // Without Caddy, one line says how to add it.
      assert.equal(lines.filter((l) => l.includes('apt-get install caddy')).length, caddyMissing ? 1 : 0);

      const res = await fetch(`${ui.replace('localhost', '127.0.0.1')}/api/servers`);
      assert.equal(res.status, 200);
      const described = await res.json();
      assert.deepEqual(described.servers.map((s) => s.id), expectedIds);
      for (const s of described.servers) {
        assert.ok(Number.isInteger(s.port) && s.port > 0, `${s.id} has a real port: ${s.port}`);
        assert.ok(serverLines.some((l) => l.includes(`:${s.port}/`)), `${s.id}'s port ${s.port} is printed`);
      }
      assert.equal(new Set(described.servers.map((s) => s.port)).size, expectedIds.length, 'a port each');

      // An open HTTP/2 session with a request waiting out a long delay must not hold up the exit.
      const h2 = described.servers.find((s) => s.id === 'h2-node');
      const session = http2.connect(`https://localhost:${h2.port}`, { ca: readFileSync(new URL('../certs/ca.crt', import.meta.url)) });
      session.on('error', () => {});
      await new Promise((resolve, reject) => session.once('connect', resolve).once('error', reject));
      const pending = session.request({ ':path': '/option?size=0&delay=30000' });
      pending.on('error', () => {});
      pending.resume();
      await new Promise((r) => setTimeout(r, 100));

      const t0 = Date.now();
      run.child.kill(signal);
      try {
        const exit = await exitOf(run, 5000);
        assert.equal(exit.code, 0, `exit code after ${signal}; stderr: ${run.stderr}`);
        assert.ok(Date.now() - t0 < 5000);
      } finally {
        session.destroy();
      }
      assert.deepEqual(ownLines(run.stderr), [], 'nothing of its own on stderr');
    });
  }
});
