// Run under launch.py by test/packet.test.js: the emulator stopped (SIGSTOP: a question times
// out), then continued, then killed outright, with the lab's control API asked at each step:
// the lab must go on answering, and say 503 naming why where the emulator is needed.
import { spawn } from 'node:child_process';
import { onBrowserSide } from '../../server/packet/inside.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { report } from './lab-inside.js';
import { emulatorHostPid, namespacePid } from '../helpers/proc.js';

const floodDatagrams = 12_000;
const flood = `
const socket = require('node:dgram').createSocket('udp4');
const [address, count] = [process.argv[1], Number(process.argv[2])];
let sent = 0;
const next = () => (sent++ < count ? socket.send(Buffer.alloc(16), 9, address, next) : socket.close());
next();
`;

await report({ preset: 'fast-4g' }, async (lab) => {
  const api = `http://127.0.0.1:${new URL(lab.uiOrigin).port}/api`;
  const ask = async (path, init) => {
    const t0 = performance.now();
    const res = await fetch(`${api}${path}`, init);
    const body = await res.json();
    return { status: res.status, code: body.code, error: body.error, ms: Math.round(performance.now() - t0), body };
  };
  const put = { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ preset: 'slow-4g' }) };
  const pid = namespacePid(emulatorHostPid()); // process.kill here takes this namespace's pids
  const steps = { running: await ask('/networks/packet/counters') };
  process.kill(pid, 'SIGSTOP');
  // Meanwhile the browser side sends more datagrams than its TUN device queues (launch.py's
  // TX_QUEUE_PACKETS): its kernel drops the rest, which the counters must show.
  const [command, ...args] = onBrowserSide([process.execPath, '-e', flood, serverSideAddress, String(floodDatagrams)]);
  const flooding = new Promise((resolve, reject) => spawn(command, args, { stdio: 'inherit' }).on('exit', resolve).on('error', reject));
  steps.stopped = await ask('/networks/packet/counters');
  await flooding;
  process.kill(pid, 'SIGCONT');
  const before = steps.running.body.up;
  steps.continued = await ask('/networks/packet/counters');
  steps.flood = { sent: floodDatagrams, droppedByDevice: steps.continued.body.up.droppedByDevice - before.droppedByDevice };
  process.kill(pid, 'SIGKILL');
  await lab.networks.packet.exited;
  steps.killed = { counters: await ask('/networks/packet/counters'), set: await ask('/networks/packet', put), servers: await ask('/servers'), network: await ask('/networks/packet') };
  return steps;
});
