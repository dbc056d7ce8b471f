// Firefox's WebDriver BiDi port is the runner's alone (issue 40): during `--browser firefox` runs,
// on the lab link and on the packet network, another local user (nobody) finds Firefox's
// listening ports, connects to each on loopback and asks for a session, and gets none: the port
// is in a network namespace of the lab's own, which nobody can neither reach nor enter. The
// control: a Firefox started in this process's namespace is reached and answers. Run under the
// browser lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exitOf, startScript, waitFor } from './helpers/cli.js';
import { markEnv, markedWith, newMark, untilGone } from './helpers/processes.js';
import { bidiAs, listeningPorts } from './helpers/bidi-probe.js';
import { packetNetworkMissing } from '../server/packet/launcher.js';
import { findFirefox, launchFirefox } from '../runner/browsers/firefox.js';
import { startTestLab } from './helpers/lab.js';

const nobody = 65534;
function missing() {
  if (process.platform !== 'linux') return 'reads Linux /proc';
  if (process.getuid?.() !== 0) return 'runs the attacker as nobody (uid 65534), which needs root';
  try {
    findFirefox();
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
  if (spawnSync('certutil', ['-H']).error) return "certutil is not installed (Debian's libnss3-tools); .ci/run installs it";
  return false;
}
const skip = missing();

/**
 * What nobody gets of Firefox `pid`'s ports: each port's outcome, and whether nobody could enter
 * Firefox's network namespace (nsenter's exit code: 0 would be entered).
 * @param {number} pid
 */
async function attack(pid) {
  const ports = listeningPorts(pid);
  assert.ok(ports.length > 0, "Firefox's BiDi port is found in its namespace's table");
  const outcomes = [];
  for (const port of ports) outcomes.push({ port, ...(await bidiAs(nobody, port)) });
  const entered = spawnSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'true'], { uid: nobody, gid: nobody }).status;
  return { outcomes, entered };
}

for (const network of ['link', 'packet']) {
  test(`--browser firefox on the ${network === 'link' ? 'lab link' : 'packet network'}: another user gets no BiDi session, nor Firefox's namespace`, { skip: skip || (network === 'packet' && packetNetworkMissing()) || false, timeout: 180_000 }, async () => {
    const mark = newMark();
    const dir = mkdtempSync(path.join(tmpdir(), 'h2lab-ff-remote-'));
    const run = startScript('runner/commands/experiments.js', ['--browser', 'firefox', '--network', network, '--preset', 'fast-4g', '--servers', 'h1', '--requests', '1', '--size', '0.01', '--repeats', '50', '--connections', 'warm', '--out', dir], { env: markEnv(mark) });
    try {
      await waitFor(run, () => /runs/.test(run.stderr), 90_000);
      const firefox = markedWith(mark, '--profile');
      assert.ok(firefox, 'Firefox runs');
      const { outcomes, entered } = await attack(firefox.pid);
      for (const o of outcomes) assert.equal(o.outcome, 'unreachable', `port ${o.port}: ${JSON.stringify(o)}`);
      assert.notEqual(entered, 0, "nobody cannot enter Firefox's network namespace");
      run.child.kill('SIGINT');
      assert.equal((await exitOf(run, 30_000)).code, 130);
      assert.deepEqual(await untilGone(mark), []);
    } finally {
      run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("the control: a Firefox in this process's namespace is reached by another user, its Remote Agent answering", { skip, timeout: 120_000 }, async () => {
  const lab = await startTestLab({ named: true });
  const firefox = await launchFirefox({ caCertPath: lab.certs.paths.caCert, servers: lab.describe().servers }, { resolveTo: '127.0.0.1' });
  try {
    const pid = /** @type {number} */ (firefox.browser.process()?.pid);
    const { outcomes } = await attack(pid);
    // puppeteer holds the one session, so Firefox upgrades the other user's connection and closes
    // it: reached all the same, and an attack that asks first gets the session.
    assert.ok(outcomes.some((o) => o.outcome === 'websocket'), JSON.stringify(outcomes));
  } finally {
    await firefox.close();
    await lab.close();
  }
});
