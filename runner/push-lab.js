// `npm run push-lab`: what HTTP/2 server push would do, measured with a client that accepts it
// (Node's http2; browsers refuse push). Per server and mode (requested, push, hints): time to
// the HTML and until every asset is complete, medians and p95 over the repeats.
import { parseArgs } from 'node:util';
import { median, quantile } from 'simple-statistics';
import { runCli } from '../server/cli.js';
import { loadPage } from './push-load.js';

const modes = ['requested', 'push', 'hints'];
const usage = `Usage: npm run push-lab -- [options]
  --server h2-spdy|h2-node|both   (default both)
  --assets N       scripts the page loads, 1–50 (default 1)
  --size MiB       size of each asset (default 0.283203125, the classic 290 KiB)
  --delay ms       server think time before the HTML, 0–60,000 (default 300)
  --repeats N      loads per server and mode, 1–100 (default 10)
  --json           print [{ server, mode, htmlMs: { median, p95 }, allAssetsMs: { median, p95 }, pushed, refused, resets }]`;

function parse(args) {
  const { values } = parseArgs({
    args,
    options: {
      server: { type: 'string', default: 'both' },
      assets: { type: 'string', default: '1' },
      size: { type: 'string', default: String(290 / 1024) },
      delay: { type: 'string', default: '300' },
      repeats: { type: 'string', default: '10' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean' },
    },
  });
  const number = (name, min, max, integer) => {
    const raw = values[name];
    const n = Number(raw);
    if (!(integer ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/).test(raw) || n < min || n > max) {
      throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
  if (!['h2-spdy', 'h2-node', 'both'].includes(values.server)) throw new Error(`--server must be h2-spdy, h2-node or both, got "${values.server}"`);
  return {
    help: values.help,
    servers: values.server === 'both' ? ['h2-spdy', 'h2-node'] : [values.server],
    assets: number('assets', 1, 50, true),
    sizeMiB: number('size', 0, 64, false),
    delayMs: number('delay', 0, 60_000, false),
    repeats: number('repeats', 1, 100, true),
    json: values.json,
  };
}

const stat = (xs) => ({ median: median(xs), p95: quantile(xs, 0.95) });

async function run(o) {
  const { startLab } = await import('../server/lab.js'); // spdy warns on load: not for --help
  const lab = await startLab({ uiPort: 0, h1Port: 0, spdyPort: 0, h2Port: 0 });
  try {
    const rows = [];
    for (const id of o.servers) {
      const server = lab.running.find((r) => r.id === id);
      const loads = Object.fromEntries(modes.map((m) => [m, []]));
      const refusedBefore = server.tracker.snapshot().pushesRefused;
      for (let repeat = 0; repeat < o.repeats; repeat++) {
        // Alternate the mode order so drift favours none.
        for (const mode of repeat % 2 ? [...modes].reverse() : modes) {
          loads[mode].push(await loadPage({ origin: server.origin, ca: lab.certs.ca, mode, assets: o.assets, sizeMiB: o.sizeMiB, delayMs: o.delayMs }));
        }
      }
      const refused = server.tracker.snapshot().pushesRefused - refusedBefore;
      for (const mode of modes) {
        const l = loads[mode];
        rows.push({
          server: id,
          mode,
          htmlMs: stat(l.map((x) => x.htmlMs)),
          allAssetsMs: stat(l.map((x) => x.allAssetsMs)),
          pushed: l.reduce((n, x) => n + x.pushed, 0),
          refused: mode === 'push' ? refused : 0,
          resets: l.reduce((n, x) => n + x.resets, 0),
        });
      }
    }
    if (o.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    const f = (x) => x.toFixed(1).padStart(8);
    console.log(`h2lab push lab · Node http2 client, push enabled · ${o.assets} × ${(o.sizeMiB * 1024).toFixed(0)} KiB assets · think time ${o.delayMs} ms · ${o.repeats} loads per mode\n`);
    console.log(`  ${'server'.padEnd(8)} ${'mode'.padEnd(10)} ${'HTML median'.padStart(11)} ${'p95'.padStart(8)} ${'all assets'.padStart(11)} ${'p95'.padStart(8)}  pushed refused resets`);
    for (const r of rows) {
      console.log(`  ${r.server.padEnd(8)} ${r.mode.padEnd(10)} ${f(r.htmlMs.median).padStart(11)} ${f(r.htmlMs.p95)} ${f(r.allAssetsMs.median).padStart(11)} ${f(r.allAssetsMs.p95)}  ${String(r.pushed).padStart(6)} ${String(r.refused).padStart(7)} ${String(r.resets).padStart(6)}`);
    }
    console.log('\n  times in ms from the page request; the client asks for assets only once it has the HTML, uses pushed streams, and with hints starts on the 103');
    return rows.some((r) => r.resets) ? 1 : 0;
  } finally {
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'push-lab', usage, parse, run });
