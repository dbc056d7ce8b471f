// A recorded multi-origin page replayed to Chromium over HTTP/1.1, HTTP/2 and HTTP/3: every
// request served from the archive under its own name, one connection per origin (HTTP/1.1: no
// more than its requests), and a name the recording does not hold resolved to nothing, never
// looked up (the NetLog says what was).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHar, readHarFile } from '../server/replay/archive.js';
import { createReplayHandler } from '../server/replay/handler.js';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { readNetLog } from '../runner/output/netlog.js';
import { replayFlags } from '../runner/replay/flags.js';
import { loadReplayedPage } from '../runner/replay/load.js';
import { recordPages } from '../runner/replay/record.js';
import { nginxMissing } from './helpers/nginx.js';
import { har, sixOriginEntries } from './fixtures/har.js';
import { startTestLab } from './helpers/lab.js';

const entries = sixOriginEntries();
const archive = readHar(har(entries, 'https://www.example/'));
const origins = [...archive.byOrigin.keys()];
const servers = [
  { id: 'h1', protocol: 'http/1.1' },
  { id: 'h2-node', protocol: 'h2' },
  // Caddy 2.6.2 answers only the names its certificates hold (it has no fallback_sni): its family
  // replays once the replay has certificates of its own. nginx serves its one certificate to any name.
  ...(nginxMissing ? [] : [{ id: 'nginx-h3', protocol: 'h3' }]),
];

const replays = {};
let lab;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-replay-browser-'));
before(async () => {
  lab = await startTestLab({ noNginx: Boolean(nginxMissing) }, { handlerFor: (id, shared) => (servers.some((s) => s.id === id) ? (replays[id] = createReplayHandler({ serverId: id, archive })) : shared) });
});
after(async () => {
  await lab?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every name Chromium's resolver was asked for, from its NetLog (runner/output/netlog.js reads one cut short, too). */
function resolvedNames(file) {
  const { log } = readNetLog(file);
  assert.ok(log, `a NetLog in ${file}`);
  const request = log.constants.logEventTypes.HOST_RESOLVER_MANAGER_REQUEST;
  return [...new Set(log.events.filter((e) => e.type === request && e.params?.host).map((e) => e.params.host))];
}

for (const { id, protocol } of servers) {
  test(`Chromium loads a recorded page of ${origins.length} origins from ${id} over ${protocol}: all from the archive, one connection each (HTTP/1.1: one per request at most), nothing else looked up`, async () => {
    const server = lab.describe().servers.find((s) => s.id === id);
    const { port } = new URL(server.origin);
    const netLogFile = path.join(dir, `${id}.netlog.json`);
    const browser = await launchBrowser(lab, { reach: replayFlags(origins, { protocol, host: '127.0.0.1', port: Number(port) }), netLogFile });
    let load;
    try {
      load = await loadReplayedPage(browser.context, 'https://www.example/');
    } finally {
      await browser.close();
    }
    const r = replays[id].replay;
    assert.equal(r.misses, 0, `missed: ${r.missed.join(', ')}`);
    assert.equal(r.served.exact, entries.length);
    assert.deepEqual(Object.keys(load.origins).sort(), [...origins, 'https://outside.example'].sort());
    for (const origin of origins) {
      const { connections, requests } = load.origins[origin];
      // HTTP/1.1 answers one request at a time per connection: two that overlap (img.example's
      // two images) may rightly open a second one. Multiplexed protocols keep one.
      if (protocol === 'http/1.1') assert.ok(connections >= 1 && connections <= requests, `${origin}: ${JSON.stringify(load.origins[origin])}`);
      else assert.equal(connections, 1, `${origin}: ${JSON.stringify(load.origins[origin])}`);
      assert.deepEqual(load.origins[origin].protocols, [protocol], origin);
    }
    assert.equal(load.failed, 1, 'the one name the recording does not hold');
    assert.ok(load.loadMs > 0 && load.fcpMs > 0, JSON.stringify(load));
    // All done is the last request's end, the image the fetch's callback adds included. (Not
    // against the load event: DevTools' times count from the document's request, a few ms after
    // the navigation's start, and the event fires after the last load ends.)
    const late = load.records.find((x) => x.url === 'https://img2.example/late.png');
    assert.ok(late?.endMs && load.doneMs === Math.max(...load.records.map((x) => x.endMs ?? 0)) && load.doneMs >= late.endMs, JSON.stringify(load));
    assert.deepEqual(resolvedNames(netLogFile).filter((host) => !host.includes('127.0.0.1')), [], 'only the lab\'s address was resolved');
  });
}

test('a page the lab serves is recorded with its bodies, initiators and connections, and its recording replays with nothing missed', async () => {
  const server = lab.describe().servers.find((s) => s.id === 'h2-node');
  const out = path.join(dir, 'recorded');
  const [recorded] = await recordPages(['https://www.example/'], { out, trust: lab.certs.spkiSha256, reach: replayFlags(origins, { protocol: 'h2', host: '127.0.0.1', port: Number(new URL(server.origin).port) }) });
  assert.equal(fs.statSync(out).mode & 0o777, 0o700);
  assert.equal(fs.statSync(recorded.file).mode & 0o777, 0o600);
  const again = readHarFile(recorded.file);
  assert.deepEqual([...again.byOrigin.keys()].sort(), [...origins].sort(), 'every origin, and not the one that did not resolve');
  assert.equal(again.exchanges.length, entries.length, JSON.stringify(again.skipped));
  for (const e of again.exchanges) {
    assert.ok(e.body?.length > 0, `${e.url} has its body`);
    assert.equal(e.protocol, 'h2', e.url);
    assert.ok(e.connection, `${e.url} has its connection`);
  }
  // Who asked, as Chromium tells it: the stylesheet for its image, the script for its fetch. The
  // image the fetch's callback adds Chromium reports as 'other', with no stack to name the script.
  const initiatorOf = (url) => again.exchanges.find((e) => e.url === url).initiator;
  assert.equal(initiatorOf('https://img.example/bg.png'), 'https://static.example/site.css');
  assert.equal(initiatorOf('https://api.example/data.json?page=1'), 'https://cdn.example/app.js');
  assert.equal(initiatorOf('https://cdn.example/app.js'), 'https://www.example/');
  const replay = createReplayHandler({ serverId: 'h1', archive: again });
  const second = await startTestLab({}, { handlerFor: (id, shared) => (id === 'h1' ? replay : shared) });
  try {
    const { port } = new URL(second.describe().servers.find((s) => s.id === 'h1').origin);
    const browser = await launchBrowser(second, { reach: replayFlags([...again.byOrigin.keys()], { protocol: 'http/1.1', host: '127.0.0.1', port: Number(port) }) });
    try {
      await loadReplayedPage(browser.context, 'https://www.example/');
    } finally {
      await browser.close();
    }
  } finally {
    await second.close();
  }
  assert.equal(replay.replay.misses, 0, replay.replay.missed.join(', '));
  assert.equal(replay.replay.served.exact, entries.length);
});
