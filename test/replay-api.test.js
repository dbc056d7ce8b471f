// POST /api/replays: a HAR the page sends, replayed by the lab in Chromium as `npm run page-loads
// -- --har` replays it (server/replay/jobs.js). Settings and HAR are refused before anything runs
// (400 naming the field); a replay answers its pages, its progress and its files; one runs at a
// time; the page going stops it, and nothing of it is left: no process, no upload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { har, sixOriginEntries } from './fixtures/har.js';
import { startChromium } from './helpers/chromium.js';
import { startTestLab } from './helpers/lab.js';

const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-replay-api-'));
const six = JSON.stringify(har(sixOriginEntries(), 'https://www.example/'));
/** @type {Awaited<ReturnType<typeof startTestLab>>} */
let lab;
let api = '';
before(async () => {
  lab = await startTestLab({ resultsDir });
  api = `${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api`;
});
after(async () => {
  await lab.close();
  fs.rmSync(resultsDir, { recursive: true, force: true });
});

/** @param {string} query @param {string} body @param {Record<string, string>} [headers] @param {AbortSignal} [signal] */
const post = (query, body = six, headers = {}, signal = undefined) =>
  fetch(`${api}/replays?${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal });

/** The lab's uploads of this process's replays that are still on disk. */
const uploads = () => fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith('h2lab-replay-upload-'));
/** Processes of a replay: the command with --har (pgrep exits 1 when there are none). */
const replayProcesses = () => {
  try {
    return execFileSync('pgrep', ['-f', 'page-loads.js --har='], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

/** Reads the answer's lines as they come. @param {Response} res */
async function* events(res) {
  let partial = '';
  for await (const piece of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (res.body))) {
    const lines = (partial + Buffer.from(piece).toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) yield JSON.parse(line);
  }
}

test('settings and HARs the replay cannot take are refused before anything runs, naming the field', async () => {
  const kept = uploads().length;
  const cases = [
    ['family=nodex', six, 400, 'family', /must be nginx, caddy or node/],
    ['protocols=h4', six, 400, 'protocols', /some of h1, h2, h3/],
    ['repeats=0', six, 400, 'repeats', /repeats/],
    ['nope=1', six, 400, 'nope', /unknown option/],
    ['out=/tmp/elsewhere', six, 400, 'out', /the lab's to set/],
    ['har=/etc/passwd', six, 400, 'har', /the lab's to set/],
    ['name=../x', six, 400, 'name', /letters, digits/],
    ['', 'not json', 400, 'har', /^har: page\.har is not JSON/],
    ['name=mine', JSON.stringify({ log: { version: '1.2' } }), 400, 'har', /^har: mine\.har is not a HAR/],
  ];
  for (const [query, body, status, field, message] of cases) {
    const res = await post(query, body);
    const answer = await res.json();
    assert.equal(res.status, status, `${query}: ${JSON.stringify(answer)}`);
    assert.equal(answer.field, field, query);
    assert.match(answer.error, message, query);
    assert.doesNotMatch(answer.error, /h2lab-replay-upload-/, 'the upload\'s folder is the lab\'s business');
  }
  const plain = await post('', six, { 'content-type': 'text/plain' });
  assert.equal(plain.status, 415);
  assert.equal((await plain.json()).code, 'not-json');
  const elsewhere = await post('', six, { origin: 'https://elsewhere.example' });
  assert.equal(elsewhere.status, 403);
  assert.equal((await elsewhere.json()).code, 'not-lab-page');
  const get = await fetch(`${api}/replays`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  assert.equal(uploads().length, kept, 'no upload is kept');
});

test('a HAR over the stated size is refused by its content-length before it is read', async () => {
  const { port, hostname } = new URL(api);
  const status = await new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path: '/api/replays', headers: { 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', reject);
    req.write('{');
  });
  assert.equal(status, 413);
});

test('a replay the page starts answers its pages, its progress and its files, and a second waits its turn', async () => {
  const res = await post('name=six&family=node&protocols=h1,h2&repeats=2');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
  const seen = [];
  let busy = null;
  for await (const event of events(res)) {
    seen.push(event);
    if (seen.length === 1) busy = await post('name=six&family=node');
  }
  assert.ok(busy);
  assert.equal(busy.status, 409);
  assert.equal((await busy.json()).code, 'replay-busy');
  assert.deepEqual(seen[0], { pages: [{ name: 'six', url: 'https://www.example/', origins: 6, responses: 7 }] });
  assert.equal(seen.filter((e) => / · repeat \d: \d+ ms$/.test(e.line ?? '')).length, 4, JSON.stringify(seen));
  const { done } = seen.at(-1);
  assert.ok(done, JSON.stringify(seen.at(-1)));
  assert.equal(done.exitCode, 0);
  assert.equal(path.dirname(done.out), resultsDir);
  const [result] = done.data.experiments[0].points.map((p) => p.result);
  assert.deepEqual(result.settings.servers, ['h1', 'h2-node']);
  assert.equal(result.runs.length, 4);
  for (const run of result.runs) {
    assert.ok(run.valid, JSON.stringify(run.invalidReasons));
    assert.equal(run.page.misses, 0);
  }
  assert.match(done.files['report.html'], /## Findings|<h2[^>]*>Findings<\/h2>/);
  assert.equal(done.files['loads.csv'].trim().split('\r\n').length, 1 + 4);
  assert.equal(fs.statSync(done.out).mode & 0o777, 0o700);
  for (const f of fs.readdirSync(done.out)) assert.equal(fs.statSync(path.join(done.out, f)).mode & 0o777, 0o600, f);
  assert.deepEqual(uploads(), [], 'the upload went with the replay');
});

test('the page going stops the replay: its processes end and its upload goes', async () => {
  const stop = new AbortController();
  const res = await post('name=six&family=node&protocols=h1,h2&repeats=20', six, {}, stop.signal);
  assert.equal(res.status, 200);
  for await (const event of events(res)) {
    if (event.line) break; // a load measured: the replay runs
  }
  assert.ok(replayProcesses().length > 0, 'a replay runs');
  stop.abort();
  const deadline = Date.now() + 20_000;
  while ((replayProcesses().length || uploads().length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(replayProcesses(), []);
  assert.deepEqual(uploads(), []);
  const next = await post('family=nodex');
  assert.equal(next.status, 400, 'the lab takes the next one');
});

test('a page gone while its HAR is checked starts no replay that outlives it', async () => {
  const stop = new AbortController();
  const asked = post('name=six&family=node&protocols=h1,h2&repeats=20', six, {}, stop.signal).catch((err) => err);
  await new Promise((r) => setTimeout(r, 150)); // sent, and being checked
  stop.abort();
  assert.equal((await asked).name, 'AbortError');
  const deadline = Date.now() + 20_000;
  let next;
  do {
    await new Promise((r) => setTimeout(r, 250));
    next = await post('family=nodex');
  } while (next.status === 409 && Date.now() < deadline);
  assert.equal(next.status, 400, 'the lab takes the next one');
  while ((replayProcesses().length || uploads().length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(replayProcesses(), []);
  assert.deepEqual(uploads(), []);
});

test('in the page: the Recorded page panel sends a HAR, shows the replay\'s progress and its report, and says which setting the lab refused', { timeout: 120_000 }, async () => {
  const file = path.join(resultsDir, 'six.har');
  fs.writeFileSync(file, six);
  const started = await startChromium([`--ignore-certificate-errors-spki-list=${lab.certs.spkiSha256}`]);
  const browser = await chromium.connectOverCDP(started.endpoint);
  try {
    const page = await browser.contexts()[0].newPage();
    await page.goto(lab.uiOrigin);
    await page.waitForFunction(() => !document.querySelector('#replay-run')?.disabled, null, { timeout: 60_000 }); // the servers checked
    const form = page.locator('#replay-form');
    await form.locator('input[name=har]').setInputFiles(file);
    await form.locator('select[name=family]').selectOption('node');
    await form.locator('input[name=protocols][value=h3]').uncheck();
    await form.locator('input[name=repeats]').fill('0');
    await page.click('#replay-run');
    await page.waitForFunction(() => document.querySelector('#replay-errors')?.textContent !== '', null, { timeout: 30_000 });
    assert.match(await page.locator('#replay-errors').textContent() ?? '', /^The lab refused repeats: repeats/);
    assert.equal(await form.locator('input[name=repeats]').getAttribute('aria-invalid'), 'true');
    await form.locator('input[name=repeats]').fill('2');
    await page.click('#replay-run');
    await page.waitForSelector('#replay-report:not([hidden])', { timeout: 90_000 });
    assert.equal(await page.locator('#replay-errors').textContent(), '');
    assert.match(await page.locator('#replay-log').textContent() ?? '', /^six: https:\/\/www\.example\/ · 6 origins, 7 recorded responses\n[\s\S]*six · h2-node · repeat 2: \d+ ms/);
    assert.match(await page.locator('#replay-files').textContent() ?? '', new RegExp(`^Written to ${resultsDir}/replay-`));
    assert.match(await page.locator('#progress-text').textContent() ?? '', /^Replay done/);
    const report = page.frameLocator('#replay-report');
    assert.match(await report.locator('h1').textContent() ?? '', /^h2lab page loads · replayed/);
    assert.match(await report.locator('li').first().textContent() ?? '', /^six: HTTP\/2 \(node:http2\)/);
    assert.equal(await page.locator('#replay-exports').isVisible(), true);
  } finally {
    await browser.close();
    await started.stop();
  }
});
