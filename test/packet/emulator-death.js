// Run under launch.py by test/packet.test.js: the emulator stopped (SIGSTOP: a question times
// out), then continued, then killed outright, with the lab's control API asked at each step:
// the lab must go on answering, and say 503 naming why where the emulator is needed.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { report } from './lab-inside.js';

/**
 * The emulator's pid in this PID namespace (the last of NSpid), found in /proc (the host's) as
 * the child of this process running emulator.js.
 */
function emulatorPid() {
  const self = readlinkSync('/proc/self');
  const host = readdirSync('/proc').find((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      return stat[1] === self && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('emulator.js');
    } catch {
      return false;
    }
  });
  return Number(/^NSpid:.*\s(\d+)$/m.exec(readFileSync(`/proc/${host}/status`, 'utf8'))[1]);
}

await report({ preset: 'fast-4g' }, async (lab) => {
  const api = `http://127.0.0.1:${new URL(lab.uiOrigin).port}/api`;
  const ask = async (path, init) => {
    const t0 = performance.now();
    const res = await fetch(`${api}${path}`, init);
    const body = await res.json();
    return { status: res.status, code: body.code, error: body.error, ms: Math.round(performance.now() - t0) };
  };
  const put = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ preset: 'slow-4g' }) };
  const pid = emulatorPid();
  const steps = { running: await ask('/network/counters') };
  process.kill(pid, 'SIGSTOP');
  steps.stopped = await ask('/network/counters');
  process.kill(pid, 'SIGCONT');
  steps.continued = await ask('/network/counters');
  process.kill(pid, 'SIGKILL');
  await lab.packet.exited;
  steps.killed = { counters: await ask('/network/counters'), set: await ask('/network', put), servers: await ask('/servers'), network: await ask('/network') };
  return steps;
});
