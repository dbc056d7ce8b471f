// `npm run experiments -- --browser firefox` as a person runs it: bad input is one line and exit 2
// without a browser; Firefox measures on the lab link and on the packet network with every
// request on its server's protocol (Resource Timing's word: no DevTools in Firefox), its name in
// the results, its qlog kept with --netlog; and nothing outlives the command, Ctrl-C included:
// no Firefox, no profile folder. Run under the browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitOf, runScript, startScript, waitFor } from './helpers/cli.js';
import { markEnv, markedWith, newMark, untilGone } from './helpers/processes.js';
import { caddyMissing } from './helpers/caddy.js';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { findFirefox, firefoxInstallHint, launchFirefox } from '../runner/firefox.js';
import { startTestLab } from './helpers/lab.js';
import { networkById } from '../common/networks.js';
import { serverById } from '../common/servers.js';

/** Why Firefox cannot run here, or false: it runs in CI (.ci/run installs both). */
function firefoxMissing() {
  try {
    findFirefox();
  } catch {
    return `Firefox is not installed: ${firefoxInstallHint}; .ci/run installs it`;
  }
  if (spawnSync('certutil', ['-H']).error) return "certutil is not installed (Debian's libnss3-tools); .ci/run installs it";
  return false;
}
const skip = firefoxMissing();
const script = 'runner/experiments.js';
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
    return { results, qlogs, mark, before };
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

test('Firefox on the packet network, with --netlog: HTTP/3 on its own name, its qlog kept, nothing left', { skip: skip || packetNetworkMissing() || false, timeout: 260_000 }, async () => {
  const servers = caddyMissing ? ['h2-node'] : ['h2-node', 'caddy-h3'];
  const measured = measureInFirefox(['--network', 'packet', '--preset', 'fast-4g', '--connections', 'warm', '--netlog', '--servers', servers.join(',')]);
  await checkMeasured(measured, servers);
  if (!caddyMissing) assert.ok(measured.qlogs.some((f) => f.endsWith('.sqlog')), `a qlog of the HTTP/3 connection: ${measured.qlogs}`);
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

test('Firefox crashing mid-run fails the run with the reason, and leaves nothing', { skip, timeout: 120_000 }, async () => {
  const mark = newMark();
  const before = profiles();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
  const run = startScript(script, ['--browser', 'firefox', '--network', 'link', '--preset', 'fast-4g', '--servers', 'h1', '--requests', '1', '--size', '0.01', '--repeats', '50', '--connections', 'warm', '--out', dir], { env: markEnv(mark) });
  try {
    await waitFor(run, () => /runs/.test(run.stderr), 90_000);
    process.kill(markedWith(mark, '--profile').pid, 'SIGKILL'); // Firefox's main process
    const { code } = await exitOf(run, 30_000);
    assert.equal(code, 1, run.stderr);
    assert.match(run.stderr, /h2lab experiments: stopped after \d+ of 50 runs \(Firefox exited/);
    assert.ok(readdirSync(dir).includes('results.json'), 'what finished is written');
    assert.deepEqual(await untilGone(mark), []);
    assert.deepEqual(profiles().filter((d) => !before.includes(d)), []);
  } finally {
    run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Firefox that stops answering mid-run (SIGSTOP): the run fails with the reason, what finished is written, nothing left', { skip, timeout: 150_000 }, async () => {
  const mark = newMark();
  const before = profiles();
  const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-test-'));
  const run = startScript(script, ['--browser', 'firefox', '--network', 'link', '--preset', 'fast-4g', '--servers', 'h1', '--requests', '1', '--size', '0.01', '--repeats', '50', '--connections', 'warm', '--out', dir], { env: markEnv(mark) });
  try {
    await waitFor(run, () => /runs/.test(run.stderr), 90_000);
    process.kill(markedWith(mark, '--profile').pid, 'SIGSTOP'); // alive, and silent: its replies never come
    const { code } = await exitOf(run, 60_000);
    assert.equal(code, 1, run.stderr);
    assert.match(run.stderr, /h2lab experiments: stopped after \d+ of 50 runs \(Firefox stopped answering: a probe went \d+ s without a reply/);
    assert.ok(readdirSync(dir).includes('results.json'), 'what finished is written');
    assert.deepEqual(await untilGone(mark), []);
    assert.deepEqual(profiles().filter((d) => !before.includes(d)), []);
  } finally {
    run.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

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
