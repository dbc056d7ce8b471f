// `npm run experiments -- --browser firefox` as a person runs it: bad input is one line and exit 2
// without a browser; Firefox measures on the lab link and on the packet network with every
// request on its server's protocol (Resource Timing's word: no DevTools in Firefox), its name in
// the results, its qlog kept with --netlog; `npm run page-loads` in Firefox beside Chromium; and
// nothing outlives the command, Ctrl-C included: no Firefox, no profile folder. Run under the
// browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitOf, runScript, startScript, waitFor } from './helpers/cli.js';
import { markEnv, markedWith, newMark, untilGone } from './helpers/processes.js';
import { caddyMissing } from './helpers/caddy.js';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { launchFirefox } from '../runner/browsers/firefox.js';
import { startTestLab } from './helpers/lab.js';
import { firefoxMissing } from './helpers/firefox.js';
import { networkById } from '../common/setup/networks.js';
import { serverById } from '../common/setup/servers.js';

const skip = firefoxMissing();
const script = 'runner/commands/experiments.js';
// Firefox's profiles, which none of these runs may leave behind.
const profiles = () => readdirSync(tmpdir()).filter((d) => d.startsWith('h2lab-firefox-'));

test('an unknown browser, Firefox under DevTools throttling, and a missing Firefox: one line each, exit 2', () => {
  for (const [args, env, line] of [
    [['--browser', 'safari'], {}, 'h2lab experiments: --browser: must be chromium, firefox, or a comma-separated list of them, got "safari"'],
    [['--browser', 'firefox', '--network', 'devtools'], {}, /^h2lab experiments: --browser: firefox cannot run under --network devtools: DevTools throttling needs the DevTools Protocol/],
    [['--browser', 'chromium,firefox', '--network', 'link', '--no-servers', '--ui', 'http://localhost:8080'], {}, /^h2lab experiments: --browser: firefox runs in a lab of the runner's own/],
    [['--browser', 'firefox', '--network', 'link'], { FIREFOX_PATH: '/nonexistent/firefox' }, 'h2lab experiments: --browser: FIREFOX_PATH points to a missing file: /nonexistent/firefox'],
  ]) {
    const r = runScript(script, args, { env });
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.lines.length, 1, r.stderr);
    if (typeof line === 'string') assert.equal(r.lines[0], line);
    else assert.match(r.lines[0], line);
  }
});

/**
 * Runs the experiments command in Firefox to its end; resolves its results after checking that
 * every request came on its server's protocol and that nothing of the run is left.
 * @param {string[]} args
 */
function measureInFirefox(args) {
  const mark = newMark();
  const before = profiles();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
  try {
    const r = runScript(script, ['--browser', 'firefox', '--requests', '3', '--size', '0.01', '--delay', '0', '--repeats', '1', '--quiet', '--out', dir, ...args], { env: markEnv(mark), timeout: 240_000 });
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(readFileSync(path.join(dir, 'results.json'), 'utf8'));
    const qlogs = results.environment.qlog ? readdirSync(path.join(dir, results.environment.qlog)) : [];
    // Each captured run's TLS keys, by server: what Firefox's NSS wrote (SSLKEYLOGFILE) while it ran.
    const runs = results.experiments[0].points[0].result.runs;
    const keys = Object.fromEntries(runs.filter((run) => run.capture?.files.keys).map((run) => [run.server, readFileSync(path.join(dir, run.capture.files.keys), 'utf8')]));
    return { results, qlogs, keys, mark, before };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {ReturnType<typeof measureInFirefox>} measured */
async function checkMeasured({ results, mark, before }, servers) {
  assert.match(results.environment.browser, /^Firefox \(headless\)\/\d+\./);
  const result = results.experiments[0].points[0].result;
  assert.equal(result.environment.browserName, 'firefox');
  assert.match(result.environment.crossCheckSkipped, /Firefox has no DevTools Protocol/);
  assert.deepEqual(result.runs.map((r) => r.server).sort(), [...servers].sort());
  for (const run of result.runs) {
    assert.equal(run.valid, true, `${run.server}: ${JSON.stringify(run.invalidReasons)}`);
    assert.deepEqual([...new Set(run.requests.map((q) => q.protocol))], [serverById(run.server).protocol], run.server);
  }
  assert.deepEqual(await untilGone(mark), [], 'no process of the run is left');
  assert.deepEqual(profiles().filter((d) => !before.includes(d)), [], 'no profile folder is left');
}

test('Firefox on the lab link: every request on its protocol, Firefox named in the results, nothing left', { skip, timeout: 260_000 }, async () => {
  // Warm: a cold reset of an HTTP/3 server costs Firefox its QUIC idle timeout (client/lab/api.js).
  // Fast 4G: unthrottled, Firefox's calibration through the link failed now and then (docs/browsers.md).
  const servers = caddyMissing ? ['h1', 'h2-node'] : ['h1', 'h2-node', 'caddy-h2', 'caddy-h3'];
  await checkMeasured(measureInFirefox(['--network', 'link', '--preset', 'fast-4g', '--connections', 'warm', '--servers', servers.join(',')]), servers);
});

test('Firefox on the packet network, with --netlog and --capture: HTTP/3 on its own name, its qlog kept, the TLS keys of each run, nothing left', { skip: skip || packetNetworkMissing() || false, timeout: 260_000 }, async () => {
  const servers = caddyMissing ? ['h2-node'] : ['h2-node', 'caddy-h3'];
  const measured = measureInFirefox(['--network', 'packet', '--preset', 'fast-4g', '--connections', 'cold', '--netlog', '--capture', '--servers', servers.join(',')]);
  await checkMeasured(measured, servers);
  if (!caddyMissing) assert.ok(measured.qlogs.some((f) => f.endsWith('.sqlog')), `a qlog of the HTTP/3 connection: ${measured.qlogs}`);
  // A cold run's new connection, TCP or QUIC: its handshake's and its traffic's secrets.
  for (const server of servers) assert.match(measured.keys[server] ?? '', /^SERVER_HANDSHAKE_TRAFFIC_SECRET [0-9a-f]{64} [0-9a-f]{64,96}$[\s\S]*^CLIENT_TRAFFIC_SECRET_0 /m, server);
});

test('Ctrl-C mid-run ends Firefox and removes its profile', { skip, timeout: 120_000 }, async () => {
  const mark = newMark();
  const before = profiles();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
  const run = startScript(script, ['--browser', 'firefox', '--network', 'link', '--preset', 'fast-4g', '--servers', 'h1', '--requests', '1', '--size', '0.01', '--repeats', '50', '--out', dir], { env: markEnv(mark) });
  try {
    // The progress bar's first line: the page is loaded in Firefox and the runs have begun.
    await waitFor(run, () => /runs/.test(run.stderr), 90_000);
    assert.ok(profiles().length > before.length, 'the run made a profile');
    run.child.kill('SIGINT');
    const { code } = await exitOf(run, 30_000);
    assert.equal(code, 130);
    assert.deepEqual(await untilGone(mark), []);
    assert.deepEqual(profiles().filter((d) => !before.includes(d)), []);
  } finally {
    run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

// Firefox gone (SIGKILL), or alive and silent (SIGSTOP: its replies never come, runner/browsers/watchdog.js).
for (const [what, signal, reason, timeout] of [
  ['crashing', 'SIGKILL', /\(Firefox exited/, 30_000],
  ['that stops answering (SIGSTOP)', 'SIGSTOP', /\(Firefox stopped answering: a probe went \d+ s without a reply/, 60_000],
]) {
  test(`Firefox ${what} mid-run fails the run with the reason, what finished is written, nothing left`, { skip, timeout: 90_000 + timeout }, async () => {
    const mark = newMark();
    const before = profiles();
    const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
    const run = startScript(script, ['--browser', 'firefox', '--network', 'link', '--preset', 'fast-4g', '--servers', 'h1', '--requests', '1', '--size', '0.01', '--repeats', '50', '--connections', 'warm', '--out', dir], { env: markEnv(mark) });
    try {
      await waitFor(run, () => /runs/.test(run.stderr), 90_000);
      process.kill(markedWith(mark, '--profile').pid, signal); // Firefox's main process
      const { code } = await exitOf(run, timeout);
      assert.equal(code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`h2lab experiments: stopped after \\d+ of 50 runs ${reason.source}`));
      assert.ok(readdirSync(dir).includes('results.json'), 'what finished is written');
      assert.deepEqual(await untilGone(mark), []);
      assert.deepEqual(profiles().filter((d) => !before.includes(d)), []);
    } finally {
      run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("the page in Firefox offers only the lab's networks: DevTools throttling is Chromium's", { skip, timeout: 120_000 }, async () => {
  const lab = await startTestLab({ named: true });
  const firefox = await launchFirefox({ caCertPath: lab.certs.paths.caCert, servers: lab.describe().servers }, { resolveTo: '127.0.0.1' });
  try {
    const page = await firefox.browser.newPage();
    await page.goto(`${lab.uiOrigin}/?network=devtools`);
    await page.waitForFunction(() => /** @type {any} */ (window).h2lab?.ready !== undefined);
    const option = await page.$eval('#settings select[name=network] option[value=devtools]', (o) => ({ disabled: o.disabled, text: o.text }));
    assert.deepEqual(option, { disabled: true, text: `${networkById('devtools')?.option} (Chromium only)` });
    assert.equal(await page.$eval('#settings select[name=network] option[value=link]', (o) => o.disabled), false);
    await page.click('#run');
    assert.match(await page.$eval('#settings-errors', (e) => e.textContent), /^DevTools throttling applies Chromium's presets through Chromium's DevTools, which Firefox \d+ does not have: choose the lab link or the packet network/);
  } finally {
    await firefox.close();
    await lab.close();
  }
});

test('page-loads in Chromium and Firefox through the lab link: each browser its own folder, its name in its result, Early Hints acted on, nothing left', { skip, timeout: 260_000 }, async () => {
  const mark = newMark();
  const before = profiles();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
  try {
    const r = runScript('runner/commands/page-loads.js', ['--browser', 'chromium,firefox', '--network', 'link', '--preset', 'fast-4g', '--repeats', '2', '--modes', 'requested,hints', '--think-ms', '200', '--out', dir], { env: markEnv(mark), timeout: 240_000 });
    assert.equal(r.status, 0, r.stderr);
    for (const [name, browser] of [['chromium', /^(Chrome|Chromium \(headless\))\/\d+\./], ['firefox', /^Firefox \(headless\)\/\d+\./]]) {
      const result = JSON.parse(readFileSync(path.join(dir, name, 'page-loads-h2-node.json'), 'utf8'));
      assert.match(result.environment.browser, browser);
      assert.equal(result.environment.browserName, name);
      assert.equal(result.environment.network.id, 'link');
      assert.deepEqual(result.summary.map((row) => [row.mode, row.n]), [['requested', 2], ['hints', 2]], name);
      assert.ok(result.loads.every((l) => l.protocol === 'h2'), `${name}: ${result.loads.map((l) => l.protocol)}`);
      // A cold load through the link pays TCP, TLS and the request before the HTML's first byte.
      assert.ok(result.loads.every((l) => l.documentHeadersMs >= 3 * 165), name);
      assert.ok(result.loads.filter((l) => l.mode === 'hints').every((l) => l.hintActedOn), `${name} acts on the 103`);
      assert.ok(readdirSync(path.join(dir, name)).includes('report.html'), name);
    }
    assert.deepEqual(await untilGone(mark), [], 'no process of the run is left');
    assert.deepEqual(profiles().filter((d) => !before.includes(d)), [], 'no profile folder is left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('page-loads refuses Firefox under DevTools throttling: one line, exit 2', () => {
  const r = runScript('runner/commands/page-loads.js', ['--browser', 'firefox']);
  assert.equal(r.status, 2);
  assert.equal(r.lines.length, 1, r.stderr);
  assert.match(r.lines[0], /^h2lab page-loads: --browser: firefox cannot run under --network devtools: /);
});
