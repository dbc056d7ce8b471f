// Trace uploads (POST /api/traces) within a budget (issue 40, item 5): the bytes kept are bounded
// (traceUploadLimits: the lab user's uploads and everyone else's, each within its own), an upload
// is read and checked as it arrives, one at a time of each party's, and a body over the limit is
// refused while it is read, its connection closed. Before: 17 of the largest uploads kept 244 MiB,
// uploads were read whole at any number at once, and another user's pushed out the person's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { traceBounds } from '../common/setup/path-limits.js';
import { traceUploadLimits } from '../server/config.js';
import { startTestLab } from './helpers/lab.js';

const nobody = 65534;
const skipOtherUser = (process.platform !== 'linux' && 'the peer user comes from /proc/net/tcp (Linux)')
  || (process.getuid?.() !== 0 && 'runs another user (nobody, uid 65534), which needs root');

const uiOf = (lab) => lab.uiOrigin.replace('localhost', '127.0.0.1');
// The largest trace there may be: traceBounds.maxLines lines (4 MB of text), 16 MB of slots.
const largest = '1\n'.repeat(traceBounds.maxLines);

/** POSTs `text` as the trace `name`; resolves { status, code }. */
async function upload(lab, name, text) {
  const res = await fetch(`${uiOf(lab)}/api/traces?name=${name}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });
  const body = await res.json();
  return { status: res.status, code: body.code };
}

/** The bytes of slots the lab keeps of its uploads, read off each trace. */
const keptBytes = (lab) => lab.traces.list().filter((t) => !t.builtIn).reduce((sum, t) => sum + lab.traces.get(t.name, 'x').slots.offsetsMs.byteLength, 0);

test(`17 of the largest uploads keep at most ${traceUploadLimits.ownKeptBytes / 2 ** 20} MiB of slots, the newest kept`, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  for (let i = 0; i < 17; i++) assert.deepEqual(await upload(lab, `big-${i}`, largest), { status: 200, code: undefined }, `upload ${i}`);
  const kept = keptBytes(lab);
  t.diagnostic(`kept ${(kept / 2 ** 20).toFixed(1)} MiB of slots in ${lab.traces.list().filter((trace) => !trace.builtIn).length} uploads`);
  assert.ok(kept <= traceUploadLimits.ownKeptBytes, `${kept} bytes kept`);
  assert.ok(lab.traces.list().some((trace) => trace.name === 'big-16'), 'the newest is kept');
  const gone = await fetch(`${uiOf(lab)}/api/networks/link`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ traceDown: 'big-0', uploadBps: -1 }) });
  assert.match((await gone.json()).error, /uploads are kept within 32 MiB .* the oldest dropped first/, 'a trace dropped says the budget');
});

/**
 * POSTs a trace chunked (no content-length), writing 64 KiB pieces of valid lines as fast as the lab
 * takes them, after `first`, up to `totalBytes`; resolves { status, code, sentAtAnswer, sentAtClose, closed } once
 * the connection closes or 3 s after the answer.
 */
function streamUpload(lab, totalBytes, first = '') {
  return new Promise((resolve) => {
    const { port } = new URL(uiOf(lab));
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/traces?name=endless', agent: false, headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' } });
    // Lines of 8 bytes (spaces before the number are allowed): the byte limit comes before the lines'.
    const piece = Buffer.from(`${'1'.padStart(7)}\n`.repeat(8 * 1024));
    const out = { status: 0, code: undefined, sentAtAnswer: 0, sentAtClose: 0, closed: false };
    let sent = first.length;
    req.write(first);
    const write = () => {
      while (sent < totalBytes && !req.destroyed) {
        sent += piece.length;
        if (!req.write(piece)) return req.once('drain', write);
      }
    };
    req.on('response', (res) => {
      out.status = res.statusCode;
      out.sentAtAnswer = sent;
      let body = '';
      res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => (out.code = body && JSON.parse(body).code));
      setTimeout(() => resolve(out), 3_000).unref();
    });
    req.on('error', () => {});
    req.on('close', () => {
      out.closed = true;
      out.sentAtClose = sent;
      resolve(out);
    });
    write();
  });
}

test('a body over the limit is refused while it is read: 413 once it passes, the connection closed, the rest unread; a wrong line too', async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const limit = traceBounds.maxTextBytes;
  const answer = await streamUpload(lab, 8 * limit);
  t.diagnostic(JSON.stringify(answer));
  assert.deepEqual([answer.status, answer.code], [413, 'body-too-large']);
  assert.ok(answer.sentAtAnswer < limit + 8 * 2 ** 20, `answered once ${answer.sentAtAnswer} bytes were sent`);
  // What the sockets' buffers on loopback hold at most, beyond what the lab read.
  assert.ok(answer.closed && answer.sentAtClose < 3 * limit, `closed: ${answer.closed} after ${answer.sentAtClose} bytes sent`);
  // A wrong line ends the reading as well.
  const wrong = await streamUpload(lab, 8 * limit, 'x\n');
  assert.deepEqual([wrong.status, wrong.code], [400, 'invalid-field']);
  assert.ok(wrong.closed && wrong.sentAtClose < 2 * limit, `a wrong first line: closed: ${wrong.closed} after ${wrong.sentAtClose} bytes sent`);
  // One that says its length over the limit is refused before a byte of it is read.
  const declared = await new Promise((resolve, reject) => {
    const { port } = new URL(uiOf(lab));
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/traces?name=declared', agent: false, headers: { 'content-type': 'text/plain', 'content-length': limit + 1 } });
    req.on('response', (res) => resolve(res.statusCode));
    req.on('error', reject);
    req.write('1\n');
  });
  assert.equal(declared, 413);
});

test("one of the lab user's uploads is read at a time: others meanwhile get 429 trace-upload-busy; the next after it goes through", async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  const { port } = new URL(uiOf(lab));
  // The first upload sends a piece and holds the rest.
  const first = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/traces?name=slow', agent: false, headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' } });
  const firstAnswer = once(first, 'response');
  first.write('1\n2\n');
  await new Promise((resolve) => setTimeout(resolve, 500)); // the lab reads it
  const meanwhile = await Promise.all(Array.from({ length: 5 }, (_, i) => upload(lab, `meanwhile-${i}`, largest)));
  assert.deepEqual(meanwhile.map((a) => `${a.status} ${a.code}`), Array(5).fill('429 trace-upload-busy'));
  first.end('3\n');
  const [res] = await firstAnswer;
  res.resume();
  assert.equal(res.statusCode, 200);
  assert.deepEqual(await upload(lab, 'after', '1\n'), { status: 200, code: undefined });
});

// nobody's flood: `workers` uploads at a time until `seconds` pass, each again as soon as it is
// answered, of the largest trace and of a one-line one in turn, each under a name of its own.
const flood = `
  const http = require('node:http');
  const [uiPort, seconds, workers, lines] = process.argv.slice(1).map(Number);
  const texts = ['1\\n'.repeat(lines), '1\\n'];
  const until = Date.now() + seconds * 1000;
  const answers = {};
  let open = workers;
  let n = 0;
  function one() {
    if (Date.now() > until) { if (--open === 0) console.log(JSON.stringify(answers)); return; }
    const i = n++;
    const req = http.request({ host: '127.0.0.1', port: uiPort, agent: false, method: 'POST', path: '/api/traces?name=theirs-' + i, headers: { 'content-type': 'text/plain' } });
    let done = false;
    const next = (what) => {
      if (done) return;
      done = true;
      answers[what] = (answers[what] ?? 0) + 1;
      req.destroy();
      one();
    };
    req.on('response', (res) => { res.resume(); next(res.statusCode); });
    req.on('error', (err) => next(err.code));
    req.end(texts[i % 2]);
  }
  for (let i = 0; i < workers; i++) one();`;

test("another user's uploads at any rate neither hold up nor push out the person's", { skip: skipOtherUser }, async (t) => {
  const lab = await startTestLab();
  t.after(() => lab.close());
  assert.equal((await upload(lab, 'mine', '1\n2\n')).status, 200);
  const seconds = 8;
  const child = spawn(process.execPath, ['-e', flood, new URL(uiOf(lab)).port, seconds, 4, traceBounds.maxLines].map(String), { uid: nobody, gid: nobody, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the flood under way
  const own = [];
  for (let i = 0; i < 4; i++) {
    const started = performance.now();
    const answer = await upload(lab, `mine-${i}`, i ? `${i}\n` : largest);
    own.push(`${answer.status} in ${Math.round(performance.now() - started)} ms`);
    assert.equal(answer.status, 200, `the person's upload ${i}: ${answer.code}`);
  }
  await once(child, 'exit');
  const theirs = JSON.parse(out);
  t.diagnostic(`the person's: ${own.join(', ')}; nobody's: ${JSON.stringify(theirs)}`);
  assert.ok((theirs[200] ?? 0) >= 17, `nobody's uploads taken: ${JSON.stringify(theirs)}`);
  const names = lab.traces.list().map((trace) => trace.name);
  assert.ok(names.includes('mine') && names.includes('mine-3'), "the person's uploads are all kept");
  assert.ok(keptBytes(lab) <= traceUploadLimits.ownKeptBytes + traceUploadLimits.othersKeptBytes, `${keptBytes(lab)} bytes kept in all`);
});
