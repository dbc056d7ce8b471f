// Run under launch.py by test/packet-leftovers.test.js: the packet network's three leftovers of
// issue 40, each against a lab on the server side. Prints one JSON line.
//
//   node test/packet/leftovers.js read-after-death   GET /api/networks/packet (and its counters)
//       before and after the emulator is killed outright
//   node test/packet/leftovers.js refused COUNT      COUNT packets the server side's TUN device
//       refuses (version 15: neither IPv4 nor IPv6), put on the browser side's device, and one UDP
//       datagram it takes: what the emulator counted, and what the server side's kernel says
//   node test/packet/leftovers.js flood SECONDS      UDP to a closed port on the server side, as
//       fast as a process on the browser side can put it on its device, while GET /api/servers is
//       asked from the browser side, as the page asks the UI (test/packet/hostile-side.py)
//   node test/packet/leftovers.js ui-link COUNT      what crosses the UI link from the browser
//       side: the UI's connection, and not COUNT datagrams put on the link's device for a port of
//       the server side (a root there may), which the same datagrams by the routes reach
import { execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { closedPort, quietCounters, startPacketLab } from './lab-inside.js';
import { ipv4 } from './corpus.js';
import { onBrowserSide } from '../../server/packet/inside.js';
import { serverSideAddress, tunDevices, uiLink } from '../../server/packet/sides.js';
import { emulatorHostPid, namespacePid } from '../helpers/proc.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /api<path> on the server side's loopback: the lab itself, beside the path. */
async function ask(lab, path) {
  const res = await fetch(`http://127.0.0.1:${new URL(lab.uiOrigin).port}/api${path}`, { signal: AbortSignal.timeout(10_000) });
  const body = await res.json();
  return { status: res.status, code: body.code ?? null, error: body.error ?? null };
}

async function readAfterDeath(lab) {
  const running = { network: await ask(lab, '/networks/packet'), counters: await ask(lab, '/networks/packet/counters') };
  process.kill(namespacePid(emulatorHostPid()), 'SIGKILL');
  await lab.networks.packet.exited;
  return { running, killed: { network: await ask(lab, '/networks/packet'), counters: await ask(lab, '/networks/packet/counters') } };
}

/** A device's receive drops in /proc/net/dev (the kernel's rx_dropped: a write it refused), on the server side. */
async function rxDropped(device) {
  const { stdout } = await promisify(execFile)('cat', ['/proc/net/dev']);
  const line = stdout.split('\n').find((l) => l.trim().startsWith(`${device}:`));
  return Number(line.split(':')[1].trim().split(/\s+/)[3]);
}

// Puts each packet (hex, argv) on the browser side's TUN device as it is: an AF_PACKET socket,
// which only a root of launch.py's namespaces has (test/packet/hostile-side.py says more).
const putOnDevice = `
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0x0800))
for packet in sys.argv[2:]:
    s.send(bytes.fromhex(packet))
`;

async function refused(lab, count) {
  // Version 15 in the first nibble: a TUN device without packet information takes only IPv4 and
  // IPv6 and fails the write with EINVAL (drivers/net/tun.c tun_get_user).
  const notIp = ipv4({ version: 15, protocol: 17, source: 40000, destination: 9 });
  const udp = ipv4({ protocol: 17, source: 40000, destination: await closedPort() });
  const before = { counters: await lab.networks.packet.counters(), rxDropped: await rxDropped(tunDevices.server) };
  const [command, ...args] = onBrowserSide(['python3', '-c', putOnDevice, tunDevices.browser, ...Array(count).fill(notIp.toString('hex')), udp.toString('hex')]);
  await promisify(execFile)(command, args);
  const after = await quietCounters(lab);
  const delta = (key) => after.up[key] - before.counters.up[key];
  return {
    sent: { refusable: count, taken: 1 },
    counted: { delivered: delta('delivered'), droppedByReceiver: Number.isFinite(delta('droppedByReceiver')) ? delta('droppedByReceiver') : null },
    kernelRxDropped: (await rxDropped(tunDevices.server)) - before.rxDropped,
  };
}

/** hostile-side.py on the browser side, spoken to in JSON lines: one answer per request, in order. */
function hostileSide() {
  const [command, ...args] = onBrowserSide(['python3', fileURLToPath(new URL('./hostile-side.py', import.meta.url))]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  return {
    ready: next(),
    ask: (request) => {
      child.stdin.write(`${JSON.stringify(request)}\n`);
      return next();
    },
    close: () => {
      child.stdin.end();
      return once(child, 'exit');
    },
  };
}

async function flood(lab, seconds) {
  const uiPort = Number(new URL(lab.uiOrigin).port);
  const side = hostileSide();
  try {
    await side.ready;
    const packet = ipv4({ protocol: 17, source: 40000, destination: await closedPort() });
    const before = await lab.networks.packet.counters();
    const { gets, ...sent } = await side.ask({ op: 'flood', seconds, hex: packet.toString('hex'), uiPort, everyMs: 250 });
    const after = await lab.networks.packet.counters();
    const answered = gets.filter((g) => g.status === 200).map((g) => g.ms).sort((x, y) => x - y);
    return {
      flood: { sent: sent.sent, packetsPerSecond: Math.round(sent.packetsPerSecond), droppedByDevice: after.up.droppedByDevice - before.up.droppedByDevice },
      gets: { count: gets.length, ok: answered.length, medianMs: answered[Math.floor(answered.length / 2)] ?? null, maxMs: answered.at(-1) ?? null, failed: gets.filter((g) => g.status !== 200) },
      after: await side.ask({ op: 'get', uiPort }),
    };
  } finally {
    await side.close();
  }
}

// From the browser side: a connection to the UI's port as the page makes it (routes decide), then
// datagrams to a port of the server side, COUNT through the routes (the TUN device) and COUNT put
// on the UI link's device whatever the routes say (SO_BINDTODEVICE); then the link's IPv6 addresses.
const fromBrowserSide = `
import json, socket, sys
ui, port, count, device = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
c = socket.socket()
c.settimeout(5)
c.connect(('${serverSideAddress}', ui))
c.close()
for via in ('routes', 'link'):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if via == 'link':
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())
    for _ in range(count):
        s.sendto(via.encode(), ('${serverSideAddress}', port))
    s.close()
print(json.dumps({'ipv6': [l.split()[-1] for l in open('/proc/net/if_inet6')]}))
`;

async function overUiLink(lab, count) {
  const socket = dgram.createSocket('udp4');
  const received = { routes: 0, link: 0 };
  socket.on('message', (m) => (received[String(m)] += 1));
  socket.bind(0, '0.0.0.0');
  await once(socket, 'listening');
  try {
    const before = await linkPackets();
    const [command, ...args] = onBrowserSide(['python3', '-c', fromBrowserSide, new URL(lab.uiOrigin).port, String(socket.address().port), String(count), uiLink.browser.device]);
    const { ipv6 } = JSON.parse((await promisify(execFile)(command, args)).stdout);
    await sleep(1_000); // the routed datagrams cross the emulator's path (Fast 4G: 82.5 ms one way)
    return { sent: count, received, ipv6, linkPackets: (await linkPackets()) - before };
  } finally {
    socket.close();
  }
}

/** Packets the server side's end of the UI link has received (/proc/net/dev). */
async function linkPackets() {
  const { stdout } = await promisify(execFile)('cat', ['/proc/net/dev']);
  const line = stdout.split('\n').find((l) => l.trim().startsWith(`${uiLink.server.device}:`));
  return Number(line.split(':')[1].trim().split(/\s+/)[1]);
}

const [mode, arg] = process.argv.slice(2);
const lab = await startPacketLab({ preset: 'fast-4g' });
try {
  const modes = { 'read-after-death': () => readAfterDeath(lab), refused: () => refused(lab, Number(arg ?? 10)), flood: () => flood(lab, Number(arg ?? 5)), 'ui-link': () => overUiLink(lab, Number(arg ?? 5)) };
  process.stdout.write(`${JSON.stringify(await modes[mode]())}\n`);
} finally {
  await lab.close();
}
