// A lab in its own process for the server benchmark, so its peak RSS is the servers' alone.
// `--bare` swaps the shared handler for one that answers 1 KiB with the same header names and
// sizes but fixed values: the same transport, framework and bytes on the wire, without the
// handler's routing, validation, timing and bookkeeping.
import { parseArgs } from 'node:util';
import { freePorts, startLab } from '../server/lab.js';

const { values } = parseArgs({ options: { bare: { type: 'boolean', default: false } } });
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
  return Object.assign((ex) => ex.respond(200, headers, kib), { rawResponse: shared.rawResponse });
};

const lab = await startLab(
  freePorts,
  values.bare ? { handlerFor: bare } : {},
);
process.send({ servers: lab.describe().servers });
// If the benchmark dies (h2load failed, Ctrl-C), do not outlive it.
process.on('disconnect', () => lab.close().finally(() => process.exit(0)));
process.on('message', async (msg) => {
  if (msg === 'rss') process.send({ maxRssKiB: process.resourceUsage().maxRSS });
  if (msg === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ cpuUs: user + system });
  }
  if (msg === 'close') {
    await lab.close();
    process.exit(0);
  }
});
