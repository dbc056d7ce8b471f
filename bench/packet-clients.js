// `node bench/packet-clients.js [LOSS] [REPEATS]`: 1 MiB cold at Fast 4G through the packet network
// with LOSS % each way (default 2), by command-line clients on the browser side, no browser: curl
// over HTTP/2 from node:http2 and from Caddy, gtlsclient (ngtcp2) over HTTP/3 from Caddy. Prints
// each client's times in ms and the emulator's drops (loss down/up, queue down), REPEATS times
// (default 5): what separates the servers' congestion control from Chromium's (docs/throttling.md).
// Runs itself again under server/packet/launch.py; exit 2 with one line where that cannot run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packetNetworkMissing, rerunInside } from '../server/packet/launcher.js';
import { insidePacketNetwork, onBrowserSide } from '../server/packet/inside.js';
import { serverSideAddress } from '../server/packet/sides.js';
import { originOf, startPacketLab } from '../test/packet/lab-inside.js';

const target = '/option?size=1&delay=0';

function timed(command, args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const [nsenter, ...argv] = onBrowserSide([command, ...args]);
    const child = spawn(nsenter, argv, { stdio: 'ignore' });
    child.on('error', reject).on('exit', (code) => resolve(code === 0 ? Math.round(performance.now() - t0) : `${command} exited ${code}`));
  });
}

const curl = (port) => timed('curl', ['-sk', '--http2', '-o', '/dev/null', '--resolve', `localhost:${port}:${serverSideAddress}`, `https://localhost:${port}${target}`]);
function gtlsclient(port) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h2lab-h3-'));
  const args = ['--exit-on-all-streams-close', '--no-quic-dump', '--no-http-dump', '--sni=localhost', `--download=${dir}`, serverSideAddress, String(port), `https://localhost:${port}${target}`];
  return timed('gtlsclient', args).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}

async function main([loss = '2', repeats = '5']) {
  const lab = await startPacketLab({ preset: 'fast-4g', loss: Number(loss) });
  const port = (id) => new URL(originOf(lab, id)).port;
  const clients = { 'curl h2-node': () => curl(port('h2-node')), 'curl caddy-h2': () => curl(port('caddy-h2')), 'gtlsclient caddy-h3': () => gtlsclient(port('caddy-h3')) };
  try {
    for (let r = 0; r < Number(repeats); r++) {
      for (const [name, run] of Object.entries(clients)) {
        const before = await lab.networks.packet.counters();
        const ms = await run();
        const after = await lab.networks.packet.counters();
        const drops = (way, k) => after[way][k] - before[way][k];
        console.log(`${loss} % ${name.padEnd(20)} ${String(ms).padStart(6)} ms  lost ${drops('down', 'droppedByLoss')}/${drops('up', 'droppedByLoss')}  queue ${drops('down', 'droppedByQueue')}`);
      }
    }
  } finally {
    await lab.close();
  }
}

if (insidePacketNetwork()) await main(process.argv.slice(2));
else if (packetNetworkMissing()) {
  console.error(packetNetworkMissing());
  process.exitCode = 2;
} else process.exitCode = await rerunInside();
