// `npm run page-loads -- --har` as a person runs it: a recorded page replayed over each protocol
// and loaded in Chromium, every request from the archive, one connection per origin, verdicts in
// the results and the files private. On the packet network over HTTP/1.1, HTTP/2 and HTTP/3, a
// page recorded with recordPages (what npm run record runs) is what is replayed. Bad input: one
// line, exit 2.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHar } from '../server/replay/archive.js';
import { createReplayHandler } from '../server/replay/handler.js';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { replayFlags } from '../runner/replay/flags.js';
import { recordPages } from '../runner/replay/record.js';
import { pageShapes } from '../runner/replay/shapes.js';
import { exitOf, startScript, runScript } from './helpers/cli.js';
import { nginxMissing } from './helpers/nginx.js';
import { caddyMissing } from './helpers/caddy.js';
import { firefoxMissing } from './helpers/firefox.js';
import { asFirefox, har, harEntry, sixOriginEntries } from './fixtures/har.js';
import { startTestLab } from './helpers/lab.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-replay-loads-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const sixFile = path.join(dir, 'six.har');
fs.writeFileSync(sixFile, JSON.stringify(har(sixOriginEntries(), 'https://www.example/')));
const origins = [...readHar(har(sixOriginEntries(), 'https://www.example/')).byOrigin.keys()];

/** Runs page-loads --har to its end; answers its exit code, stderr and results.json. */
async function pageLoads(args, { env = {}, timeoutMs = 240_000 } = {}) {
  const out = fs.mkdtempSync(path.join(dir, 'out-'));
  fs.rmSync(out, { recursive: true });
  const run = startScript('runner/commands/page-loads.js', [...args, '--out', out], { env });
  const { code } = await exitOf(run, timeoutMs);
  const file = path.join(out, 'results.json');
  const results = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).experiments[0].points.map((p) => p.result) : null;
  return { code, stderr: run.stderr, stdout: run.stdout, out, results };
}

/**
 * Every load valid, nothing missed, each recorded origin on one connection of its protocol (over
 * HTTP/1.1 Chromium may open one more for a request in parallel: at most one per request; so may
 * Firefox over any protocol, when its speculative connection and the request's race: `spread`).
 */
function assertReplayed(results, servers, protocols, { spread = false } = {}) {
  assert.equal(results.length, 1);
  const [r] = results;
  assert.deepEqual(r.settings.servers, servers);
  for (const run of r.runs) {
    assert.ok(run.valid, `${run.server} repeat ${run.repeat}: ${JSON.stringify(run.invalidReasons)}`);
    assert.equal(run.page.misses, 0, run.page.missed.join(', '));
    assert.equal(run.page.reused, 0, 'cold');
    assert.equal(run.page.unrecorded, 1, 'the one host the recording does not hold');
    assert.deepEqual(Object.keys(run.page.origins).sort(), [...origins].sort());
    for (const [origin, o] of Object.entries(run.page.origins)) {
      const protocol = protocols[servers.indexOf(run.server)];
      assert.ok(protocol === 'http/1.1' || spread ? o.connections >= 1 && o.connections <= o.requests : o.connections === 1, `${run.server} ${origin}: ${JSON.stringify(o)}`);
      assert.deepEqual(o.protocols, [protocols[servers.indexOf(run.server)]], `${run.server} ${origin}`);
    }
  }
  return r;
}

test('a recorded page of six origins is replayed to Chromium over HTTP/1.1 and HTTP/2, cold: every load valid, nothing missed, a verdict, private files', async () => {
  const { code, stderr, stdout, out, results } = await pageLoads(['--har', sixFile, '--family', 'node', '--protocols', 'h1,h2', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  const r = assertReplayed(results, ['h1', 'h2-node'], ['http/1.1', 'h2']);
  assert.equal(r.runs.length, 4);
  assert.deepEqual(r.comparisons.map((c) => [c.server, c.baseline]), [['h2-node', 'h1']]);
  assert.ok(['faster', 'slower', 'no clear difference', 'no meaningful difference'].includes(r.comparisons[0].verdict), r.comparisons[0].verdict);
  assert.equal(r.family.comparisons, 1);
  assert.match(stdout, /^# h2lab page loads · replayed\n[\s\S]*## Findings\n\n- \*\*six\*\*: HTTP\/2 \(node:http2\)/);
  assert.equal(fs.statSync(out).mode & 0o777, 0o700);
  for (const f of ['results.json', 'summary.md', 'loads.csv', 'origins.csv', 'report.html']) assert.equal(fs.statSync(path.join(out, f)).mode & 0o777, 0o600, f);
  const loads = fs.readFileSync(path.join(out, 'loads.csv'), 'utf8').trim().split('\r\n');
  assert.equal(loads.length, 1 + 4);
  assert.equal(fs.readFileSync(path.join(out, 'origins.csv'), 'utf8').trim().split('\r\n').length, 1 + 4 * origins.length);
});

test('a page that asks for what its recording lacks: the misses are counted in its loads and named, the load stays valid', async () => {
  // The script's fetch is recorded under another path of its origin: a miss, answered 404.
  const entries = sixOriginEntries().map((e) => (e.request.url.includes('data.json') ? { ...e, request: { ...e.request, url: 'https://api.example/v1/data.json?page=1' } } : e));
  const file = path.join(dir, 'missing.har');
  fs.writeFileSync(file, JSON.stringify(har(entries, 'https://www.example/')));
  const { code, stderr, results } = await pageLoads(['--har', file, '--family', 'node', '--protocols', 'h1,h2', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  // The script then reads no image from the 404's JSON and asks for "undefined": a second miss.
  for (const run of results[0].runs) {
    assert.ok(run.valid, JSON.stringify(run.invalidReasons));
    assert.deepEqual(run.page.missed, ['GET https://api.example/data.json?page=1', 'GET https://www.example/undefined'], JSON.stringify(run.page));
    assert.equal(run.page.misses, 2);
  }
});

test('a HAR without bodies, of 101 requests over 24 origins, replays as its page model: every request asked for and served, nothing missed', async () => {
  const shape = pageShapes().find((x) => x.name === 'many-origins');
  const file = path.join(dir, 'many-origins.har');
  fs.writeFileSync(file, JSON.stringify(shape.har));
  const recorded = readHar(shape.har);
  const { code, stderr, results } = await pageLoads(['--har', file, '--family', 'node', '--protocols', 'h1,h2', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  const [r] = results;
  assert.deepEqual(r.page.model, { bodies: recorded.exchanges.length, bytes: r.page.model.bytes, recordedBytes: recorded.exchanges.reduce((n, e) => n + e.size, 0) });
  for (const run of r.runs) {
    assert.ok(run.valid, `${run.server} ${run.repeat}: ${JSON.stringify(run.invalidReasons)}`);
    assert.equal(run.page.misses, 0, run.page.missed.join(', '));
    assert.equal(run.page.requests, recorded.exchanges.length, 'every recorded request, once');
    assert.deepEqual(Object.keys(run.page.origins).sort(), [...recorded.byOrigin.keys()].sort());
  }
});

test('a HAR in Firefox\'s export shape replays alike: every load valid, nothing missed, one connection per origin', async () => {
  const file = path.join(dir, 'firefox.har');
  fs.writeFileSync(file, JSON.stringify(har(asFirefox(sixOriginEntries()), 'https://www.example/', 'Firefox')));
  const { code, stderr, results } = await pageLoads(['--har', file, '--family', 'node', '--protocols', 'h1,h2', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  const r = assertReplayed(results, ['h1', 'h2-node'], ['http/1.1', 'h2']);
  assert.equal(r.page.creator, 'Firefox 1');
});

// One certificate naming every host, on one address: Chromium pools origins onto the sessions it
// may (docs/replay.md). On a page whose hosts are one site, every credentialed request joins the
// document's HTTP/2 session and the script's fetch (no credentials: privacy mode) has its own;
// with a certificate per host, no two origins share one.
test('with one certificate for all hosts Chromium pools the origins of one site, with one per host none; the result records the setting', async () => {
  const file = path.join(dir, 'same-site.har');
  fs.writeFileSync(file, JSON.stringify(har(sixOriginEntries(), 'https://www.example/')).replace(/(https?:\/\/|")([a-z0-9]+)\.example\b/g, '$1$2.site.example'));
  const loads = async (coalescing) => {
    const { code, stderr, results } = await pageLoads(['--har', file, '--family', 'node', '--protocols', 'h2', '--coalescing', coalescing, '--repeats', '2']);
    assert.equal(code, 0, stderr);
    assert.equal(results[0].settings.coalescing, coalescing);
    for (const run of results[0].runs) assert.ok(run.valid && run.page.misses === 0, JSON.stringify(run.page));
    return results[0].runs.map((run) => run.connections);
  };
  for (const n of await loads('all')) assert.ok(n <= 3, `six origins pooled onto ${n} connections`);
  assert.deepEqual(await loads('host'), [6, 6]);
});

test('the Caddy family replays with the replay\'s certificates over HTTP/1.1, HTTP/2 and HTTP/3, one connection per origin', { skip: caddyMissing }, async () => {
  const { code, stderr, results } = await pageLoads(['--har', sixFile, '--family', 'caddy', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  assertReplayed(results, ['caddy-h1', 'caddy-h2', 'caddy-h3'], ['http/1.1', 'h2', 'h3']);
});

// Firefox reaches every recorded origin through forceResolve and forcePort (HTTP/3 through its
// Alt-Svc mapping per host), trusting the replay's CA in its profile; what it hides of a
// cross-origin response (protocol, size, connection) is as the servers saw it (as-served.js).
const firefoxSkip = firefoxMissing();
test('Firefox loads the recorded page of six origins over each protocol, cold: every load valid, nothing missed, every connection fresh', { skip: firefoxSkip, timeout: 300_000 }, async () => {
  const [family, names, servers, protocols] = nginxMissing ? ['node', 'h1,h2', ['h1', 'h2-node'], ['http/1.1', 'h2']] : ['nginx', 'h1,h2,h3', ['nginx-h1', 'nginx-h2', 'nginx-h3'], ['http/1.1', 'h2', 'h3']];
  const { code, stderr, stdout, results } = await pageLoads(['--har', sixFile, '--browser', 'firefox', '--family', family, '--protocols', names, '--repeats', '2']);
  assert.equal(code, 0, stderr);
  const r = assertReplayed(results, servers, protocols, { spread: true });
  assert.equal(r.settings.browser, 'firefox');
  assert.match(r.environment.browser, /^Firefox \d+/);
  for (const run of r.runs) {
    assert.equal(run.page.reused, 0, `${run.server} repeat ${run.repeat}: a cold load opens its own connections`);
    assert.ok(run.page.bytes > 0 && run.page.fcpMs > 0, JSON.stringify(run.page));
  }
  assert.match(stdout, /as its server saw them/);
});

const packetSkip = packetNetworkMissing() ?? nginxMissing ?? false;
// On the packet network Firefox asks the replay's own DNS over HTTPS (runner/replay/doh.js), which
// gives each recorded host its own address and every other name none.
test('Firefox on the packet network reaches each recorded origin at an address of its own, and an unrecorded host at none', { skip: firefoxSkip || packetSkip, timeout: 300_000 }, async () => {
  const { code, stderr, results } = await pageLoads(['--har', sixFile, '--browser', 'firefox', '--network', 'packet', '--family', 'nginx', '--protocols', 'h1,h3', '--repeats', '1']);
  assert.equal(code, 0, stderr);
  const r = assertReplayed(results, ['nginx-h1', 'nginx-h3'], ['http/1.1', 'h3'], { spread: true });
  for (const run of r.runs) {
    const addresses = Object.values(run.page.origins).map((o) => o.addresses);
    assert.ok(addresses.every((a) => a.length === 1 && /^198\.18\.(1(2[89]|[3-9]\d)|2\d\d)\.\d+$/.test(a[0])), JSON.stringify(addresses));
    assert.equal(new Set(addresses.flat()).size, origins.length, 'one address per origin');
  }
});

test('a page recorded with recordPages replays on the packet network over HTTP/1.1, HTTP/2 and HTTP/3 (nginx) with nothing missed, one connection per origin and an address each', { skip: packetSkip, timeout: 300_000 }, async () => {
  const replay = createReplayHandler({ serverId: 'h2-node', archive: readHar(har(sixOriginEntries(), 'https://www.example/')) });
  const site = await startTestLab({}, { handlerFor: (id, shared) => (id === 'h2-node' ? replay : shared) });
  let recorded;
  try {
    const { port } = new URL(site.describe().servers.find((s) => s.id === 'h2-node').origin);
    [recorded] = await recordPages(['https://www.example/'], { out: path.join(dir, 'recorded'), trust: site.certs.spkiSha256, reach: replayFlags(origins, { protocol: 'h2', host: '127.0.0.1', port: Number(port) }) });
  } finally {
    await site.close();
  }
  const { code, stderr, results } = await pageLoads(['--har', recorded.file, '--network', 'packet', '--preset', 'fast-4g', '--repeats', '2']);
  assert.equal(code, 0, stderr);
  const r = assertReplayed(results, ['nginx-h1', 'nginx-h2', 'nginx-h3'], ['http/1.1', 'h2', 'h3']);
  assert.equal(r.environment.conditions.preset, 'fast-4g');
  assert.deepEqual(r.comparisons.map((c) => [c.server, c.baseline]), [['nginx-h2', 'nginx-h1'], ['nginx-h3', 'nginx-h1'], ['nginx-h3', 'nginx-h2']]);
  // Each origin at an address of its own in the server side's origin block, as Chromium reached it.
  for (const run of r.runs) {
    const addresses = Object.values(run.page.origins).map((o) => o.addresses);
    assert.ok(addresses.every((a) => a.length === 1 && a[0].startsWith('198.18.') && Number(a[0].split('.')[2]) >= 128), `${run.server}: ${JSON.stringify(addresses)}`);
    assert.equal(new Set(addresses.flat()).size, origins.length, `${run.server}: ${JSON.stringify(addresses)}`);
  }
});

test('page-loads --har refuses a file that is missing or not a HAR, a folder without one, and flags that cannot go together, each in one line, exit 2', () => {
  const notHar = path.join(dir, 'not.har');
  fs.writeFileSync(notHar, '{"log": 1}');
  const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
  const noPage = path.join(dir, 'no-page.har');
  fs.writeFileSync(noPage, JSON.stringify(har([harEntry('https://a.example/x.js', { mimeType: 'application/javascript', body: '1' })])));
  const cases = [
    [['--har', path.join(dir, 'nowhere.har')], '--har: cannot read'],
    [['--har', notHar], '--har:'],
    [['--har', empty], 'holds no .har file'],
    [['--har', noPage], 'names no page'],
    [['--har', sixFile, '--family', 'node', '--protocols', 'h3'], 'the node family has no h3'],
    [['--har', sixFile, '--family', 'apache'], '--family: must be nginx, caddy or node'],
    [['--har', sixFile, '--coalescing', 'some'], '--coalescing: must be host or all'],
    [['--har', sixFile, '--bodies', 'none'], '--bodies: must be recorded or model'],
    [['--har', sixFile, '--protocols', 'h4'], '--protocols: must list some of h1, h2, h3'],
    [['--har', sixFile, '--loss', '2'], 'loses no packets: give --network packet'],
    [['--har', sixFile, '--metric', 'speed'], '--metric: must be'],
    [['--har', sixFile, '--repeats', 'auto'], 'auto needs --max-repeats'],
    [['--har', sixFile, '--browser', 'safari'], '--browser: must be chromium or firefox'],
    [['--har', sixFile, '--browser', 'firefox', '--preset', 'fast-4g'], 'Firefox has no DevTools throttling: give --network packet'],
  ];
  for (const [args, mention] of cases) {
    const r = runScript('runner/commands/page-loads.js', args, { timeout: 20_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.lines.length, 1, r.stderr);
    assert.ok(r.lines[0].startsWith('h2lab page-loads: ') && r.lines[0].includes(mention), `${args.join(' ')}: ${r.lines[0]}`);
    assert.equal(r.stdout, '');
  }
});
