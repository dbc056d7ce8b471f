// `npm run chrome` end to end: the Chrome it opens (headless here, through a CHROME_PATH wrapper
// that adds --headless) carries its DevTools port in the lab's address, npm run chrome announces
// that port to the lab while it runs, and the lab applies the page's preset through it; the
// profile, which trusts the lab's key for any name, reaches only the lab's names; Ctrl-C closes Chrome.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { findChrome } from '../runner/chrome.js';
import { exitOf, startScript, waitFor } from './helpers/cli.js';
import { serverOf, startTestLab } from './helpers/lab.js';

const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-open-chrome-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Evaluates an expression in a tab through its own DevTools WebSocket; resolves its value. The
 * reply is the message with the request's id (events may come first); an evaluation cut by the
 * page navigating (the lab's page settles its URL at load) is tried again, for at most 20 s.
 */
async function evaluate(wsUrl, expression, deadline = Date.now() + 20_000) {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let reply;
  try {
    ws.send(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression, awaitPromise: true, returnByValue: true } }));
    reply = await new Promise((resolve) => ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.id === 1) resolve(message);
    }));
  } finally {
    ws.close();
  }
  const cut = reply.error ?? reply.result?.exceptionDetails;
  if (!cut) return reply.result.result.value;
  if (Date.now() > deadline) throw new Error(`evaluate: ${JSON.stringify(cut)}`);
  await new Promise((r) => setTimeout(r, 200));
  return evaluate(wsUrl, expression, deadline);
}

test('npm run chrome announces its DevTools port, the lab applies the page\'s preset through it, and its profile reaches only the lab\'s names', { timeout: 90_000 }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const wrapper = path.join(dir, 'chrome');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(findChrome())} --headless=new "$@"\n`);
  chmodSync(wrapper, 0o755);
  let port;
  const run = startScript('runner/open-chrome.js', ['--url', `${lab.uiOrigin}/?preset=slow-4g&network=devtools&servers=h2-node`], { env: { CHROME_PATH: wrapper } });
  try {
    await waitFor(run, (r) => r.stdout.includes('Opened'), 30_000);
    port = /DevTools port (\d+)/.exec(run.stdout)?.[1];
    assert.ok(port, run.stdout);
    // The lab's tab, at the address npm run chrome gave it, which names that port.
    let tab;
    const deadline = Date.now() + 20_000;
    while (!tab && Date.now() < deadline) {
      const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
      tab = list.find((target) => target.type === 'page' && target.url.startsWith(lab.uiOrigin) && new URL(target.url).searchParams.get('devtools') === port);
      if (!tab) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(tab, `a lab tab with devtools=${port}`);
    // The page applied Slow 4G at load: its own requests now take at least the preset's 562.5 ms.
    // Waits at most 20 s for the page to say so, and otherwise says what it says instead.
    const explained = await evaluate(tab.webSocketDebuggerUrl, `new Promise((resolve) => { const until = Date.now() + 20000; const f = () => { const text = document.querySelector('#preset-why')?.textContent ?? '(no #preset-why: ' + document.body?.innerText.slice(0, 200) + ')'; if (/^The lab applies/.test(text) || Date.now() > until) resolve(text); else setTimeout(f, 100); }; f(); })`);
    assert.match(explained, /^The lab applies/);
    // The explanation shows as the page asks the lab to apply it; the emulation follows within
    // moments: requests are timed until one takes the preset's latency, for at most 20 s.
    const ms = await evaluate(
      tab.webSocketDebuggerUrl,
      `(async () => { const until = Date.now() + 20000; let ms = 0; while (ms < 500 && Date.now() < until) { const t = performance.now(); await fetch('/api/servers', { cache: 'no-store' }); ms = performance.now() - t; } return ms; })()`,
    );
    assert.ok(ms >= 500, `a request under Slow 4G took ${ms} ms`);
    // A lab server by the lab's name answers; the same server by another name that would reach it
    // (Chrome resolves *.localhost to loopback, and the profile trusts the lab's key for any name) does not.
    const { port: h1Port } = new URL(serverOf(lab, 'h1').origin);
    const fetched = (host) => evaluate(tab.webSocketDebuggerUrl, `fetch('https://${host}:${h1Port}/option?size=0', { cache: 'no-store' }).then((r) => r.status, (e) => e.message)`);
    assert.equal(await fetched('localhost'), 200);
    assert.equal(await fetched('elsewhere.localhost'), 'Failed to fetch');
  } finally {
    run.child.kill('SIGINT');
    const exit = await exitOf(run, 15_000);
    assert.equal(exit.code, 130, `${run.stdout}\n${run.stderr}`);
  }
  // Chrome went with it, and so did the announcement: the lab no longer uses that port unasked.
  assert.equal(execSync('ps -eo args').toString().includes(`--remote-debugging-port=${port}`), false, 'Chrome outlived npm run chrome');
  const res = await fetch(`${lab.uiOrigin}/api/emulation`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ devtoolsPort: Number(port), pageUrl: `${lab.uiOrigin}/?devtools=${port}`, preset: 'slow-4g' }),
  });
  assert.equal(res.status, 403);
  assert.equal((await res.json()).code, 'devtools-port-unconfirmed');
});
