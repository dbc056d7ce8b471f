// A lab in its own process for the server benchmark, so its peak RSS is the servers' alone.
// `--fronts caddy,nginx` adds those families (bench/front.js): each front runs as this process's
// child, and each fronted server's entry carries upstreamPort, the cleartext hop's port on 127.0.0.1.
// `--bare` swaps the shared handler for one that answers 1 KiB with the same header names and
// sizes but fixed values: the same transport, framework and bytes on the wire, without the
// handler's routing, validation, timing and bookkeeping.
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { freePorts, startLab } from '../server/lab.js';

const { values } = parseArgs({ options: { bare: { type: 'boolean', default: false }, fronts: { type: 'string', default: '' } } });
const fronts = values.fronts.split(',');
const kib = Buffer.alloc(1024, ' ');
const bareHeaders = (id) => ({
  'cache-control': 'no-store',
  'access-control-allow-origin': 'http://localhost:8080',
  'timing-allow-origin': 'http://localhost:8080',
  'access-control-expose-headers': 'x-server, x-connection-id, server-timing',
  vary: 'origin',
  'x-server': id,
  'x-connection-id': '1',
  date: new Date().toUTCString(),
  'content-type': 'application/octet-stream',
  'content-length': '1024',
  'server-timing': 'delay;dur=0.001',
});
const bare = (id, shared) => {
  const headers = bareHeaders(id);
  return { handle: (ex) => ex.respond(200, headers, kib), rawResponse: shared.rawResponse };
};

const lab = await startLab(
  { ...freePorts, noCaddy: !fronts.includes('caddy'), noNginx: !fronts.includes('nginx') },
  values.bare ? { handlerFor: bare } : {},
);
const described = lab.describe();
const { servers } = described;
const upstreamPortOf = (id) => lab.running.find((r) => r.id === id).upstreamPort;
process.send({ servers: servers.map((s) => ({ ...s, upstreamPort: upstreamPortOf(s.id) })), fronts: described.fronts });
// Connections opened to each cleartext upstream: how often a front (or the benchmark) connects anew.
const upstreamConnections = {};
for (const r of lab.running.filter((one) => one.upstreamPort)) {
  upstreamConnections[r.id] = 0;
  r.server.on('connection', () => upstreamConnections[r.id]++);
}
// If the benchmark dies (h2load failed, Ctrl-C), do not outlive it.
process.on('disconnect', () => lab.close().finally(() => process.exit(0)));
process.on('message', async (msg) => {
  if (msg === 'stats') process.send({ stats: lab.stats(), upstreamConnections });
  if (msg === 'rss') process.send({ maxRssKiB: process.resourceUsage().maxRSS });
  if (msg === 'v8heap') process.send({ v8HeapBytes: v8.getHeapStatistics().total_physical_size });
  if (msg === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ cpuUs: user + system });
  }
  if (msg === 'close') {
    await lab.close();
    process.exit(0);
  }
});
