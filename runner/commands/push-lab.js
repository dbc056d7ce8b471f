// `npm run push-lab`: what HTTP/2 server push would do, measured with a client that accepts it
// (Node's http2; browsers refuse push). Per server and mode (requested, push, hints): time to
// the HTML and until every asset is complete, medians and p95 over the repeats.
import { median, quantile } from 'simple-statistics';
import { runCli } from '../../cli/run.js';
import { describePreset, isThrottled } from '../../common/setup/presets.js';
import { servers } from '../../common/setup/servers.js';
import { readArgs, readChoice, readPreset } from '../../cli/options.js';
import { pageFlagSpec, pageFlagUsage, readPageFields } from '../page-options.js';
import { loadPage } from '../push-load.js';
import { presetConditions } from '../../server/path/conditions.js';
import { twinPortNetwork } from '../../server/lab-networks.js';
import { networks } from '../../common/setup/networks.js';

// The loads go through the network of twin ports (the lab link), set to the preset.
const twinPortNetworkId = networks.find((n) => n.twinPorts)?.id;

/** @type {import('../push-load.js').LoadMode[]} */
const modes = ['requested', 'push', 'hints'];
// Servers that can push to a client over HTTP/2 (Node's http2 client here; browsers refuse push).
const pushIds = servers.filter((s) => s.capabilities.push && s.protocol === 'h2').map((s) => s.id);

const usage = `Usage: npm run push-lab -- [options]
The page of the Page load panel, loaded by Node's http2 client (which accepts push) in each mode.
  --server ${[...pushIds, 'both'].join('|')}   (default both: every server that can push)
${pageFlagUsage}
  --preset NAME      the network preset, applied by the lab link below TLS (id or label:
                     fast-4g, "Slow 4G"; default no-throttling)
  --json             print [{ server, mode, preset, htmlMs: { median, p95 }, allAssetsMs: { median, p95 }, pushed, refused, resets }]`;

/** @satisfies {Record<string, import('../../cli/options.js').OptionSpec>} */
const optionSpec = {
  server: { type: 'string', default: 'both', accepts: [...pushIds, 'both'].join(', ') },
  ...pageFlagSpec,
  preset: { type: 'string', default: 'no-throttling', accepts: 'a preset id or label' },
  json: { type: 'boolean', default: false },
};

/** @param {string[]} args */
function parse(args) {
  const values = readArgs(args, optionSpec);
  const server = readChoice('server', values.server, [...pushIds, 'both']);
  const page = readPageFields(values);
  return {
    help: values.help,
    servers: server === 'both' ? pushIds : [server],
    assets: page.assets,
    sizeMiB: page.assetKiB / 1024,
    delayMs: page.thinkMs,
    repeats: page.repeats,
    preset: readPreset('preset', values.preset, { network: twinPortNetworkId }),
    json: values.json,
  };
}

/** @typedef {ReturnType<typeof parse>} PushLabOptions */
/** @typedef {import('../browsers/session.js').StartedLab} StartedLab */
/** @typedef {Awaited<ReturnType<typeof loadPage>>} PageLoadTimes */

/** @param {number[]} xs */
const stat = (xs) => ({ median: median(xs), p95: quantile(xs, 0.95) });

/**
 * Loads through the lab link set to the preset when it limits anything, else straight to the server.
 * @param {StartedLab} lab
 * @param {{ origin: string, linkOrigin: string }} server
 * @param {import('../../common/setup/presets.js').Preset} preset
 * @returns {{ origin: string, close(): void }}
 */
function originFor(lab, server, preset) {
  if (!isThrottled(preset)) return { origin: server.origin, close() {} };
  const { network } = twinPortNetwork(lab.networks);
  network.set(presetConditions(preset.id));
  return { origin: server.linkOrigin, close: () => network.set(presetConditions('no-throttling')) };
}

/**
 * @param {StartedLab} lab
 * @param {string} id  a server that can push
 * @param {PushLabOptions} o
 */
async function measure(lab, id, o) {
  // pushIds are Node servers, which every lab runs.
  const server = /** @type {StartedLab['running'][number]} */ (lab.running.find((/** @type {{ id: string }} */ r) => r.id === id));
  const route = originFor(lab, server, o.preset);
  const loads = /** @type {Record<import('../push-load.js').LoadMode, PageLoadTimes[]>} */ (Object.fromEntries(modes.map((m) => [m, /** @type {PageLoadTimes[]} */ ([])])));
  const refusedBefore = server.tracker.snapshot().pushesRefused;
  try {
    for (let repeat = 0; repeat < o.repeats; repeat++) {
      // Alternate the mode order so drift favours none.
      for (const mode of repeat % 2 ? [...modes].reverse() : modes) {
        loads[mode].push(await loadPage({ origin: route.origin, ca: lab.certs.ca, mode, assets: o.assets, sizeMiB: o.sizeMiB, delayMs: o.delayMs }));
      }
    }
  } finally {
    route.close();
  }
  const refused = server.tracker.snapshot().pushesRefused - refusedBefore;
  return modes.map((mode) => {
    const l = loads[mode];
    return {
      server: id,
      mode,
      preset: o.preset.id,
      htmlMs: stat(l.map((x) => x.htmlMs)),
      allAssetsMs: stat(l.map((x) => x.allAssetsMs)),
      pushed: l.reduce((n, x) => n + x.pushed, 0),
      refused: mode === 'push' ? refused : 0,
      resets: l.reduce((n, x) => n + x.resets, 0),
    };
  });
}

/**
 * @param {Awaited<ReturnType<typeof measure>>} rows
 * @param {PushLabOptions} o
 */
function printTable(rows, o) {
  /** @param {number} x */
  const f = (x) => x.toFixed(1).padStart(8);
  console.log(`h2lab push lab · Node http2 client, push enabled · ${o.assets} × ${(o.sizeMiB * 1024).toFixed(0)} KiB assets · think time ${o.delayMs} ms · ${o.repeats} loads per mode`);
  console.log(`network: ${describePreset(o.preset)}${isThrottled(o.preset) ? ' (the lab link, below TLS)' : ' (loopback)'}\n`);
  console.log(`  ${'server'.padEnd(8)} ${'mode'.padEnd(10)} ${'HTML median'.padStart(11)} ${'p95'.padStart(8)} ${'all assets'.padStart(11)} ${'p95'.padStart(8)} ${'vs requested'.padStart(12)}  pushed refused resets`);
  for (const r of rows) {
    const requested = /** @type {typeof r} */ (rows.find((x) => x.server === r.server && x.mode === 'requested')); // every server has one
    const ratio = `${(r.allAssetsMs.median / requested.allAssetsMs.median).toFixed(2)}×`;
    console.log(`  ${r.server.padEnd(8)} ${r.mode.padEnd(10)} ${f(r.htmlMs.median).padStart(11)} ${f(r.htmlMs.p95)} ${f(r.allAssetsMs.median).padStart(11)} ${f(r.allAssetsMs.p95)} ${ratio.padStart(12)}  ${String(r.pushed).padStart(6)} ${String(r.refused).padStart(7)} ${String(r.resets).padStart(6)}`);
  }
  console.log('\n  times in ms from the page request; "vs requested" compares the all-assets medians; the client asks for');
  console.log('  assets only once it has the HTML, uses pushed streams, and with hints starts on the 103');
}

/** @param {PushLabOptions} o */
async function run(o) {
  const { startLab, freePorts } = await import('../../server/lab.js'); // spdy warns on load: not for --help
  const lab = /** @type {StartedLab} */ (await startLab(freePorts));
  try {
    const rows = [];
    for (const id of o.servers) rows.push(...(await measure(lab, id, o)));
    if (o.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    else printTable(rows, o);
    return rows.some((r) => r.resets) ? 1 : 0;
  } finally {
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'push-lab', usage, parse, run });
