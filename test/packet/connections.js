// Run under launch.py by test/packet.test.js: 1,000 TCP connections from the browser side to the
// HTTP/1.1 server, opened at once through the emulator (Fast 4G) and reset; then, once the path
// is quiet, what is left: sockets in either namespace, packets on the emulator's link, the
// lab's open connections. Also PUT /api/networks/packet's answers to bad bodies.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { onBrowserSide } from '../../server/packet/inside.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { report } from './lab-inside.js';

const count = 1_000;

// Every TCP socket between the two sides, in each namespace, and the packets each side's kernel
// dropped before the emulator read them.
function leftOver() {
  const run = (argv) => execFileSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  const across = (argv) => run(argv).split('\n').filter((l) => l.includes('198.18.0.'));
  const txDropped = (argv) => Number(run(argv).match(/TX:[^\n]*\n\s*\d+\s+\d+\s+\d+\s+(\d+)/)[1]);
  return {
    server: across(['ss', '-Htan']),
    browser: across(onBrowserSide(['ss', '-Htan'])),
    txDropped: { server: txDropped(['ip', '-s', 'link', 'show', 'h2lab-s']), browser: txDropped(onBrowserSide(['ip', '-s', 'link', 'show', 'h2lab-b'])) },
  };
}

const opener = `
const net = require('node:net');
let open = 0, failed = 0;
const sockets = [];
for (let i = 0; i < ${count}; i++) {
  const s = net.connect({ host: '${serverSideAddress}', port: Number(process.argv[1]) });
  sockets.push(s);
  s.on('error', () => (failed += 1));
  s.on('connect', () => { open += 1; if (open + failed === ${count}) done(); });
}
function done() { for (const s of sockets) s.resetAndDestroy(); console.log(JSON.stringify({ open, failed })); }
`;

async function badBodies(lab) {
  const put = (body) => fetch(`http://127.0.0.1:${new URL(lab.uiOrigin).port}/api/networks/packet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const out = [];
  for (const body of [{ preset: 'fast-4g', loss: 60 }, { preset: 'offline' }, { preset: 'fast-4g', queueBytes: 0 }, { preset: 'fast-4g', burst: { p: 1, r: 0 } }]) {
    const res = await put(body);
    out.push({ status: res.status, ...(await res.json()) });
  }
  const good = await put({ preset: 'fast-4g' });
  out.push({ status: good.status, ...(await good.json()) });
  return out;
}

await report({ preset: 'fast-4g' }, async (lab) => {
  const port = lab.running.find((r) => r.id === 'h1').port;
  const [command, ...args] = onBrowserSide([process.execPath, '-e', opener, String(port)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  await once(child, 'exit');
  const storm = JSON.parse(output);
  // Quiet: the resets crossed the path (one one-way delay) and the server closed its sockets.
  let left;
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = { ...leftOver(), counters: await lab.networks.packet.counters(), labConnections: lab.stats().reduce((n, s) => n + (s.openConnections ?? 0), 0) };
    if (!left.server.length && !left.browser.length && !left.counters.up.onLink && !left.counters.down.onLink) break;
  }
  return { storm, left, badBodies: await badBodies(lab) };
});
