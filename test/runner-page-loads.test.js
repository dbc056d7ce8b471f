// `npm run page-loads`: the Page load panel driven end to end in Chromium with the page-load
// window throttled through CDP, and its command line's refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { cannotCarry } from '../common/setup/presets.js';
import { caddyMissing } from './helpers/caddy.js';
import { runScript } from './helpers/cli.js';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { readPcapng } from '../server/packet/pcapng.js';

const pageLoads = (...args) => runScript('runner/commands/page-loads.js', args, { timeout: 170_000 });

test('page-loads under Fast 4G: Requested and Early Hints, the hinted asset requested before the HTML, files written', { timeout: 180_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-page-loads-'));
  try {
    const r = pageLoads('--repeats', '2', '--modes', 'requested,hints', '--think-ms', '200', '--preset', 'Fast 4G', '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.settings.preset, 'fast-4g');
    assert.equal(result.environment.preset.label, 'Fast 4G');
    assert.deepEqual(result.summary.map((row) => [row.mode, row.n]), [['requested', 2], ['hints', 2]]);
    const requested = result.loads.filter((l) => l.mode === 'requested');
    // Fast 4G's 165 ms latency holds the asset's response back at least that long after its request,
    // which a plain page sends only after the HTML: the window really was throttled.
    for (const l of requested) assert.ok(l.loadMs - l.documentHeadersMs >= 165, JSON.stringify(l));
    // Every hinted load acts on its 103 (server/config.js earlyHintsHoldMs says why this needed the server's help).
    const hinted = result.loads.filter((x) => x.mode === 'hints');
    assert.ok(hinted.every((l) => l.assetsRequestedEarly === 1 && l.hintActedOn), JSON.stringify(hinted));
    const csv = Papa.parse(readFileSync(path.join(out, 'page-loads-h2-node.csv'), 'utf8').trim(), { header: true });
    assert.equal(csv.data.length, 4);
    assert.ok(csv.data.every((row) => row.preset === 'fast-4g'));
    assert.deepEqual([...readFileSync(path.join(out, 'page-loads-h2-node.png')).subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('page-loads --network link under Fast 4G: the panel sets the link, loads go through it, each hinted load says whether the 103 was acted on', { timeout: 180_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-page-loads-link-'));
  try {
    const r = pageLoads('--repeats', '2', '--modes', 'requested,hints', '--think-ms', '200', '--preset', 'fast-4g', '--network', 'link', '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.environment.network.id, 'link');
    assert.equal(result.environment.network.conditions.preset, 'fast-4g');
    for (const l of result.loads) {
      // A cold load through the link pays TCP, TLS and the request before the HTML's first byte.
      assert.ok(l.documentHeadersMs >= 3 * 165, JSON.stringify(l));
      assert.equal(l.hintActedOn, l.mode === 'hints' ? l.assetsRequestedEarly > 0 : null);
    }
    const csv = Papa.parse(readFileSync(path.join(out, 'page-loads-h2-node.csv'), 'utf8').trim(), { header: true });
    assert.ok(csv.data.every((row) => row.network === 'link'));
    assert.deepEqual(csv.data.filter((row) => row.mode === 'requested').map((row) => row.hint_acted_on), ['', '']);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('page-loads --server caddy-h3 through the link: every load opens a new QUIC connection (handshake and request: two round trips before the HTML), and Caddy forwards the 103 over HTTP/3', { skip: caddyMissing, timeout: 180_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-page-loads-h3-'));
  try {
    const r = pageLoads('--server', 'caddy-h3', '--repeats', '2', '--modes', 'requested,hints', '--think-ms', '200', '--preset', 'fast-4g', '--network', 'link', '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    for (const l of result.loads) {
      assert.equal(l.protocol, 'h3', JSON.stringify(l));
      assert.ok(l.documentHeadersMs >= 2 * 165, `a load reused a connection: ${JSON.stringify(l)}`);
      if (l.mode === 'hints') assert.ok(l.hint103Ms > 0, `no 103 seen: ${JSON.stringify(l)}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('page-loads --network packet --capture --netlog: per load a sent and a received pcapng and the TLS keys, its connections with the NetLog joined, the NetLog of the session', { skip: packetNetworkMissing() ?? false, timeout: 120_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'h2lab-page-loads-capture-'));
  try {
    const r = pageLoads('--network', 'packet', '--preset', 'fast-4g', '--modes', 'requested,hints', '--repeats', '1', '--capture', '--netlog', '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(readFileSync(path.join(out, 'page-loads-h2-node.json'), 'utf8'));
    assert.equal(result.environment.netLog, 'netlog.json');
    assert.equal(result.environment.netLogError, null);
    const netLog = JSON.parse(readFileSync(path.join(out, result.environment.netLog), 'utf8'));
    assert.ok(netLog.constants && netLog.events.length > 0, 'a NetLog with its constants and events');
    assert.ok(existsSync(path.join(out, 'captures', 'keys.log')), "the session's key log");
    assert.deepEqual(result.loads.map((l) => l.mode).sort(), ['hints', 'requested']);
    for (const load of result.loads) {
      const { files, packets, whole, error, connections } = load.capture;
      assert.equal(error, null);
      assert.equal(whole, false);
      // Named per load, relative to the output folder.
      assert.equal(files.sent, `captures/${result.id}-${load.mode}-${load.repeat}.sent.pcapng`);
      assert.equal(readPcapng(readFileSync(path.join(out, files.sent))).packets.length, packets.sent);
      assert.ok(readPcapng(readFileSync(path.join(out, files.received))).packets.length > 0);
      assert.match(readFileSync(path.join(out, files.keys), 'utf8'), /^CLIENT_HANDSHAKE_TRAFFIC_SECRET /m, `${load.mode}: the load's TLS keys`);
      // The load's own connection: its handshake seen, and the NetLog's word on it.
      const opened = connections.records.filter((c) => c.handshake.startMs !== null);
      assert.ok(opened.length > 0, `${load.mode}: ${JSON.stringify(connections.records)}`);
      assert.ok(opened.some((c) => c.netlog?.protocol === 'h2'), `${load.mode}: the NetLog joined: ${JSON.stringify(opened.map((c) => c.netlog))}`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

for (const [args, message] of [
  [['--network', 'netem'], 'h2lab page-loads: --network: must be devtools, link or packet, got "netem"'],
  [['--modes', 'push,teleport'], 'h2lab page-loads: --modes: must list some of requested, preload, push, hints, got "push,teleport"'],
  [['--assets', '51'], 'h2lab page-loads: --assets: must be an integer from 1 to 50, got "51"'],
  [['--repeats', '0x3'], 'h2lab page-loads: --repeats: must be an integer from 1 to 100, got "0x3"'],
  [['--preset', 'offline', '--network', 'link'], `h2lab page-loads: --preset: ${cannotCarry('link')}, got "offline"`],
  [['--browser', 'safari'], 'h2lab page-loads: --browser: must be chromium, firefox, or a comma-separated list of them, got "safari"'],
  [['--server', 'h3'], 'h2lab page-loads: --server: must be h1, h2-spdy, h2-node, caddy-h1, caddy-h2, caddy-h3, nginx-h1, nginx-h2 or nginx-h3, got "h3"'],
  // The rules and words of npm run experiments (cli/options.js readCapture, readNetLogFlag).
  [['--capture'], 'h2lab page-loads: --capture: only on a network that carries packets (--network packet): the DevTools sees requests and TCP streams, not packets'],
  [['--capture-whole', '--network', 'link'], 'h2lab page-loads: --capture-whole: only on a network that carries packets (--network packet): the lab link sees requests and TCP streams, not packets'],
  [['--netlog', '--browser-url', 'http://127.0.0.1:9222'], 'h2lab page-loads: --netlog: not with --browser-url: a NetLog is asked for when Chromium starts, and that browser has started'],
]) {
  test(`page-loads ${args.join(' ')}: one line, exit 2, no browser`, () => {
    const r = pageLoads(...args);
    assert.equal(r.status, 2);
    assert.deepEqual(r.lines, [message]);
  });
}
