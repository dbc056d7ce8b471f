// The command line: `node server/index.js` as a user runs it. Bad flags exit 2 and start-up
// failures exit 1, each with one `h2lab:` line; a normal start prints the URLs and a signal
// closes everything with exit code 0.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const children = new Set();

after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the CLI; `exited` resolves { code, signal } and stdout/stderr accumulate as text. */
function start(args, { env = {} } = {}) {
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('H2LAB_')));
  const child = spawn(process.execPath, ['server/index.js', ...args], {
    cwd: root,
    env: { ...cleanEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const run = { child, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (c) => (run.stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (run.stderr += c));
  run.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return run;
}

/** Resolves when the child exits; a hang kills it and fails instead of blocking the suite. */
async function exitOf(run, timeoutMs = 15_000) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`no exit within ${timeoutMs} ms; stdout: ${run.stdout} stderr: ${run.stderr}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([run.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until the child's output satisfies `ready`, or fails (and kills it) after the timeout. */
async function waitFor(run, ready, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!ready(run)) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}; stderr: ${run.stderr}`);
    if (Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`not ready within ${timeoutMs} ms; stdout: ${run.stdout} stderr: ${run.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** stderr without the spdy package's deprecation warnings. */
const ownLines = (stderr) =>
  stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('DeprecationWarning') && !l.includes('--trace-deprecation'));

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

const flags = ['--host', '--ui-port', '--h1-port', '--spdy-port', '--h2-port', '--max-size-mib', '--max-delay-ms', '--max-streams', '--san'];

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
      await expectOneLineFailure(['--ui-port', '0', '--h1-port', String(port), '--spdy-port', '0', '--h2-port', '0'], {
        code: 1,
        mentions: [String(port), '--h1-port'],
      });
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT']) {
    it(`normal start on free ports, /api/servers, then ${signal} → exit 0 within 5 s`, async () => {
      const run = start(['--ui-port', '0', '--h1-port', '0', '--spdy-port', '0', '--h2-port', '0']);
      await waitFor(run, (r) => (r.stdout.match(/https:\/\//g) ?? []).length >= 3 && /npm run chrome/.test(r.stdout));

      const lines = run.stdout.split('\n');
      const uiLine = lines.find((l) => l.startsWith('h2lab UI'));
      assert.ok(uiLine, `a line starting "h2lab UI": ${run.stdout}`);
      const ui = /(http:\/\/\S+?)\/?$/.exec(uiLine.trim())?.[1];
      assert.ok(ui, `UI URL in ${uiLine}`);
      const serverLines = lines.filter((l) => l.includes('https://'));
      assert.equal(serverLines.length, 3, 'one line per server');

      const res = await fetch(`${ui.replace('localhost', '127.0.0.1')}/api/servers`);
      assert.equal(res.status, 200);
      const described = await res.json();
      assert.deepEqual(described.servers.map((s) => s.id).sort(), ['h1', 'h2-node', 'h2-spdy']);
      for (const s of described.servers) {
        assert.ok(Number.isInteger(s.port) && s.port > 0, `${s.id} has a real port: ${s.port}`);
        assert.ok(serverLines.some((l) => l.includes(`:${s.port}/`)), `${s.id}'s port ${s.port} is printed`);
      }
      assert.equal(new Set(described.servers.map((s) => s.port)).size, 3, 'three different ports');

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
