// `npm run chrome` end to end: the Chrome it opens (headless here, through a CHROME_PATH that
// passes its DevTools pipe through and lets this test send commands of its own: fixtures/
// chrome-pipe-spy.js) opens no DevTools port; npm run chrome holds a channel to the lab, named in
// the lab's address, and the lab applies the page's preset through it; the lab's page may reach the
// lab's servers without a Local Network Access prompt; the profile, which trusts the lab's key for
// any name, reaches only the lab's names; Ctrl-C closes Chrome and the channel.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChrome } from '../runner/browsers/chrome.js';
import { exitOf, startScript, waitFor } from './helpers/cli.js';
import { serverOf, startTestLab } from './helpers/lab.js';
import { tree } from './helpers/proc.js';

const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-open-chrome-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const spySocket = path.join(dir, 'spy.sock');
const argsFile = path.join(dir, 'args.jsonl');
const spy = fileURLToPath(new URL('./fixtures/chrome-pipe-spy.js', import.meta.url));

function wrapper() {
  const file = path.join(dir, 'chrome');
  writeFileSync(file, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(spy)} "$@"\n`);
  chmodSync(file, 0o755);
  return { CHROME_PATH: file, H2LAB_SPY_CHROME: findChrome(), H2LAB_SPY_SOCKET: spySocket, H2LAB_SPY_ARGS: argsFile };
}

/** One DevTools command through the spy; resolves its result. */
function send(method, params = {}, sessionId = undefined) {
  return new Promise((resolve, reject) => {
    const c = net.connect(spySocket);
    let text = '';
    c.setEncoding('utf8').on('data', (d) => {
      text += d;
      if (!text.includes('\n')) return;
      c.end();
      const answer = JSON.parse(text);
      if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
      else resolve(answer.result);
    });
    c.on('error', reject);
    c.write(`${JSON.stringify({ method, params, ...(sessionId && { sessionId }) })}\n`);
  });
}

/** Evaluates `expression` in the tab; an evaluation cut by the page navigating is tried again, for at most 20 s. */
async function evaluate(sessionId, expression, deadline = Date.now() + 20_000) {
  const reply = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId).catch((err) => ({ exceptionDetails: err.message }));
  if (!reply.exceptionDetails) return reply.result.value;
  if (Date.now() > deadline) throw new Error(`evaluate: ${JSON.stringify(reply.exceptionDetails)}`);
  await new Promise((r) => setTimeout(r, 200));
  return evaluate(sessionId, expression, deadline);
}

/** The TCP ports `pids` listen on (their sockets' inodes against /proc/net/tcp{,6}'s listening rows). */
function listeningPorts(pids) {
  const inodes = new Set();
  for (const pid of pids) {
    let fds;
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // exited meanwhile
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith('socket:[')) inodes.add(link.slice(8, -1));
      } catch {
        // closed meanwhile
      }
    }
  }
  const ports = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9])) ports.push(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return ports;
}

test("npm run chrome opens no DevTools port: the lab applies the page's preset through its channel, the page needs no local network prompt, the profile reaches only the lab's names", { timeout: 90_000 }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const applied = [];
  const apply = lab.pageNetwork.apply;
  lab.pageNetwork.apply = (request) => apply(request).then((answer) => (applied.push({ request, answer }), answer));
  const run = startScript('runner/commands/open-chrome.js', ['--url', `${lab.uiOrigin}/?preset=slow-4g&network=devtools&servers=h2-node`], { env: wrapper() });
  let channel;
  try {
    await waitFor(run, (r) => r.stdout.includes('Opened'), 30_000);
    assert.match(run.stdout, /applies presets in this Chrome through this command/);
    const [args] = readFileSync(argsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(args.includes('--remote-debugging-pipe') && !args.some((a) => a.startsWith('--remote-debugging-port')), args.join(' '));
    // The lab's tab, at the address npm run chrome gave it, which names its channel.
    let tab;
    const deadline = Date.now() + 20_000;
    while (!tab && Date.now() < deadline) {
      const { targetInfos } = await send('Target.getTargets');
      tab = targetInfos.find((target) => target.type === 'page' && target.url.startsWith(lab.uiOrigin) && /^[0-9a-f]{32}$/.test(new URL(target.url).searchParams.get('devtools') ?? ''));
      if (!tab) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(tab, 'a lab tab with devtools=<channel>');
    channel = new URL(tab.url).searchParams.get('devtools');
    const { sessionId } = await send('Target.attachToTarget', { targetId: tab.targetId, flatten: true });
    // No process of this Chrome listens on any TCP port: nothing else on the machine can drive it.
    const chromePid = Number(execSync(`pgrep -f -n ${JSON.stringify(spy)}`).toString().trim());
    assert.deepEqual(listeningPorts(tree(chromePid)), []);
    // The permission Chrome 156 would otherwise ask the person for is the lab page's already.
    assert.equal(await evaluate(sessionId, `navigator.permissions.query({ name: 'local-network-access' }).then((s) => s.state)`), 'granted');
    // The page applied Slow 4G at load: its own requests now take at least the preset's 562.5 ms.
    const explained = await evaluate(sessionId, `new Promise((resolve) => { const until = Date.now() + 20000; const f = () => { const text = document.querySelector('#preset-why')?.textContent ?? '(no #preset-why: ' + document.body?.innerText.slice(0, 200) + ')'; if (/^The lab applies/.test(text) || Date.now() > until) resolve(text); else setTimeout(f, 100); }; f(); })`);
    assert.match(explained, /^The lab applies/);
    const ms = await evaluate(
      sessionId,
      `(async () => { const until = Date.now() + 20000; let ms = 0; while (ms < 500 && Date.now() < until) { const t = performance.now(); await fetch('/api/servers', { cache: 'no-store' }); ms = performance.now() - t; } return ms; })()`,
    );
    assert.ok(ms >= 500, `a request under Slow 4G took ${ms} ms`);
    // Applied through the channel, to the lab's one tab.
    assert.ok(applied.some((a) => a.request.devtoolsChannel === channel && a.answer.preset === 'slow-4g' && a.answer.targets === 1), JSON.stringify(applied));
    // A lab server by the lab's name answers; the same server by another name that would reach it
    // (Chrome resolves *.localhost to loopback, and the profile trusts the lab's key for any name) does not.
    const { port: h1Port } = new URL(serverOf(lab, 'h1').origin);
    const fetched = (host) => evaluate(sessionId, `fetch('https://${host}:${h1Port}/option?size=0', { cache: 'no-store' }).then((r) => r.status, (e) => e.message)`);
    assert.equal(await fetched('localhost'), 200);
    assert.equal(await fetched('elsewhere.localhost'), 'Failed to fetch');
  } finally {
    run.child.kill('SIGINT');
    const exit = await exitOf(run, 15_000);
    assert.equal(exit.code, 130, `${run.stdout}\n${run.stderr}`);
  }
  // Chrome went with it, and so did the channel: a page naming it is told so.
  assert.equal(execSync('ps -eo args').toString().includes(spy), false, 'Chrome outlived npm run chrome');
  const res = await fetch(`${lab.uiOrigin}/api/emulation`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ devtoolsChannel: channel, pageUrl: `${lab.uiOrigin}/?devtools=${channel}`, preset: 'slow-4g' }),
  });
  assert.equal(res.status, 409);
  assert.equal((await res.json()).code, 'devtools-channel-unknown');
});
