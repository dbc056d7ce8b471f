// `npm run page-loads -- --har FILE|DIR [options]`: recorded pages replayed by the lab over each
// protocol of a server family and loaded by Chromium or Firefox, cold by default, with repeats until decided
// and verdicts across every page's comparisons (page-loads.js). Writes results.json, loads.csv
// (a row per load), origins.csv (a row per origin of each load: the waterfall by origin) and
// report.html, and prints the report (or with --json, results.json's object).
import fs from 'node:fs';
import path from 'node:path';
import { got, readArgs, readChoice, readNumber, readOutDir, readPreset, usageError } from '../../cli/options.js';
import { InputError, UsageError } from '../../common/setup/errors.js';
import { drawSeed } from '../../common/setup/seeds.js';
import { familyOf, frontsOf, unavailableReason } from '../../common/setup/servers.js';
import { fields } from '../../common/setup/settings.js';
import { defaultNetworkId, networkOf, networks } from '../../common/setup/networks.js';
import { defaultPresetId } from '../../common/setup/presets.js';
import { addTo, readHarFile } from '../../server/replay/archive.js';
import { createReplayStage } from '../../server/replay/stage.js';
import { coalescings, makeReplayCerts } from '../../server/replay/certs.js';
import { makeOwnedDir } from '../../server/owned-dirs.js';
import { readUntilDecided, untilDecidedSpec, untilDecidedUsage } from '../../cli/until-decided.js';
import { runSession } from '../browsers/session.js';
import { loadTimeoutMs, measureReplay } from './page-loads.js';
import { pageMetrics } from './runs.js';
import { replayBrowsers } from './browser.js';
import { dohHost } from './doh.js';
import { replayData, replayFiles } from './report.js';

const protocolOf = { h1: 'http/1.1', h2: 'h2', h3: 'h3' };
const protocolNames = /** @type {Array<keyof typeof protocolOf>} */ (Object.keys(protocolOf));
// The families that replay (node has no HTTP/3).
const replayFamilies = ['nginx', 'caddy', 'node'];
const metrics = /** @type {Array<keyof typeof pageMetrics>} */ (Object.keys(pageMetrics));
const browserNames = /** @type {import('./browser.js').ReplayBrowserName[]} */ (Object.keys(replayBrowsers));
// A replay's browser reaches each origin by its own name, so not through the twin ports a network
// such as the lab link needs (common/setup/networks.js).
const replayNetworks = networks.filter((n) => !n.twinPorts).map((n) => n.id);
const lossyNetworks = networks.filter((n) => n.carries.loss).map((n) => n.id);

export const usage = `Usage: npm run page-loads -- --har FILE|DIR [options]
Replays recorded pages (HAR 1.2, from npm run record, Chrome or Firefox DevTools, WebPageTest or
sitespeed.io) from the lab, each origin under its own name, and loads them in headless Chromium
(or Firefox) over each protocol; prints per page each protocol's times and its verdict against HTTP/1.1 (and
HTTP/3 against HTTP/2), with the error rate kept across every page's comparisons.
  --har FILE|DIR     a HAR, or a folder whose .har files are each a page
  --protocols LIST   some of h1, h2, h3 (default h1,h2,h3)
  --family NAME      the servers that carry them: ${replayFamilies.join(', ')} (default nginx; node has no HTTP/3)
  --browser NAME     ${browserNames.join(' or ')} (default chromium; Firefox has no DevTools throttling:
                     give it --network packet, or no preset)
  --metric NAME      the time verdicts are on: ${metrics.slice(0, 2).map((m) => `${m} (${pageMetrics[m].title})`).join(', ')},
                     ${metrics.slice(2).map((m) => `${m} (${pageMetrics[m].title})`).join(', ')} (default load)
  --connections HOW  cold (a fresh browser context per load: new connections, no TLS resumption)
                     or warm (one context per protocol, after an untimed load, cache off) (default cold)
  --network HOW      devtools (DevTools throttling of each load's tab) or packet (real TCP and QUIC on
                     an emulated path: Linux, user namespaces, /dev/net/tun, python3) (default devtools)
  --preset NAME      the network preset (id or label; default no-throttling)
  --loss PCT         packets lost each way on the packet network, ${fields.loss.min}–${fields.loss.max} (default 0)
  --loss-seed N      the losses' base seed (default: drawn, and recorded)
  --coalescing HOW   host (a certificate per recorded host: no two origins share a connection) or
                     all (one naming every host: Chromium may pool origins onto one HTTP/2 or
                     HTTP/3 connection) (default host)
  --think HOW        recorded (wait each response's recorded server think time) or none (default none)
  --bodies HOW       recorded (the HAR's, a page model's where it has none) or model (every body
                     the page model's: how faithful a model is, beside the recorded ones) (default recorded)
  --repeats N|auto   loads per protocol and page, or auto: rounds until decided (default 6)
${untilDecidedUsage(21)}
  --out DIR          where the files go (default results/replay-<UTC time>/)
  --json             print the results on stdout instead of the report`;

/** @satisfies {Record<string, import('../../cli/options.js').OptionSpec>} */
const spec = {
  har: { type: 'string', accepts: 'a HAR file or a folder of them' },
  protocols: { type: 'string', default: protocolNames.join(','), accepts: `some of ${protocolNames.join(', ')}` },
  family: { type: 'string', default: 'nginx', accepts: replayFamilies.join(', ') },
  browser: { type: 'string', default: 'chromium', accepts: browserNames.join(' or ') },
  metric: { type: 'string', default: 'load', accepts: metrics.join(', ') },
  connections: { type: 'string', default: 'cold', accepts: 'cold or warm' },
  network: { type: 'string', default: defaultNetworkId, accepts: replayNetworks.join(' or ') },
  preset: { type: 'string', default: 'no-throttling', accepts: 'a preset id or label' },
  loss: { type: 'string', default: '0', accepts: `${fields.loss.min}–${fields.loss.max}` },
  'loss-seed': { type: 'string', accepts: 'a whole number' },
  think: { type: 'string', default: 'none', accepts: 'recorded or none' },
  coalescing: { type: 'string', default: 'host', accepts: coalescings.join(' or ') },
  bodies: { type: 'string', default: 'recorded', accepts: 'recorded or model' },
  repeats: { type: 'string', default: '6', accepts: 'a whole number or auto' },
  ...untilDecidedSpec,
  out: { type: 'string', accepts: 'a directory' },
  json: { type: 'boolean', default: false },
};

/**
 * @param {string[]} args @param {NodeJS.ProcessEnv} env @param {Date} [now]
 */
export function parse(args, env, now = new Date()) {
  const values = readArgs(args, spec);
  if (values.help) return { help: /** @type {const} */ (true) };
  if (values.har === undefined) throw usageError('har', 'needs a HAR file or a folder of them');
  const family = readChoice('family', values.family, replayFamilies);
  const servers = readProtocols(values.protocols, family);
  const network = readChoice('network', values.network, replayNetworks);
  const preset = readPreset('preset', values.preset, { network });
  const browser = readChoice('browser', values.browser, browserNames);
  if (browser === 'firefox' && !networkOf(network).labSets && preset.id !== defaultPresetId) throw usageError('preset', `Firefox has no DevTools throttling: give --network ${networks.filter((n) => n.labSets && !n.twinPorts).map((n) => n.id).join(' or ')} for ${preset.label}, ${got(values.preset)}`);
  const loss = readNumber('loss', values.loss, fields.loss);
  if (loss > 0 && !networkOf(network).carries.loss) throw usageError('loss', `the ${networkOf(network).title} loses no packets: give --network ${lossyNetworks.join(' or ')}, ${got(values.loss)}`);
  if (values['loss-seed'] !== undefined && loss === 0) throw usageError('loss-seed', 'seeds losses: give it with --loss above 0');
  const lossSeed = values['loss-seed'] === undefined ? (loss > 0 ? drawSeed(fields.lossSeed) : undefined) : readNumber('loss-seed', values['loss-seed'], fields.lossSeed);
  const untilDecided = readUntilDecided(values);
  const repeats = untilDecided ? untilDecided.maxRepeats : readNumber('repeats', values.repeats, fields.repeats);
  /** @type {import('./page-loads.js').ReplaySettings} */
  const settings = {
    servers,
    browser,
    control: '',
    metric: readChoice('metric', values.metric, metrics),
    connections: readChoice('connections', values.connections, /** @type {const} */ (['cold', 'warm'])),
    network,
    preset: preset.id,
    loss,
    ...(lossSeed === undefined ? {} : { lossSeed }),
    think: readChoice('think', values.think, /** @type {const} */ (['recorded', 'none'])),
    coalescing: readChoice('coalescing', values.coalescing, coalescings),
    bodies: readChoice('bodies', values.bodies, /** @type {const} */ (['recorded', 'model'])),
    repeats,
    ...(untilDecided ? { maxRepeats: untilDecided.maxRepeats, ...(untilDecided.aimPercent === null ? {} : { aimPercent: untilDecided.aimPercent }) } : {}),
    timeoutMs: loadTimeoutMs,
  };
  const pages = readPages(values.har, env).map((p) => (settings.bodies === 'model' ? { ...p, archive: withoutBodies(p.archive) } : p));
  return { help: /** @type {const} */ (false), pages, settings, untilDecided, out: readOutDir(values.out, env, now, 'replay-'), json: values.json };
}

/**
 * --protocols in the family's servers (node's HTTP/2: node:http2, as the Page load panel's).
 * @param {string} text @param {string} family
 */
function readProtocols(text, family) {
  const asked = text.split(',').map((p) => p.trim()).filter(Boolean);
  const unknown = asked.find((p) => !protocolNames.includes(/** @type {any} */ (p)));
  if (unknown !== undefined || !asked.length) throw usageError('protocols', `must list some of ${protocolNames.join(', ')}, ${got(text)}`);
  return [...new Set(asked)].map((p) => {
    const server = familyOf(family).find((s) => s.protocol === protocolOf[/** @type {keyof typeof protocolOf} */ (p)] && s.id !== 'h2-spdy');
    if (!server) throw usageError('protocols', `the ${family} family has no ${p}: give --family nginx or caddy for HTTP/3`);
    return server.id;
  });
}

/**
 * --har: a HAR, or a folder whose .har files are each a page (read in name order).
 * @param {string} raw @param {NodeJS.ProcessEnv} env
 * @returns {import('./page-loads.js').ReplayPage[]}
 */
function readPages(raw, env) {
  const where = path.resolve(env.INIT_CWD ?? process.cwd(), raw);
  const isDir = fs.existsSync(where) && fs.statSync(where).isDirectory();
  const files = isDir ? fs.readdirSync(where).filter((f) => f.toLowerCase().endsWith('.har')).sort().map((f) => path.join(where, f)) : [where];
  if (!files.length) throw usageError('har', `${raw} holds no .har file`);
  return files.map((file) => {
    const archive = readHarFile(file);
    if (!archive.pageUrl) throw usageError('har', `${file} names no page and holds no HTML document to load`);
    if (!archive.byOrigin.has(new URL(archive.pageUrl).origin)) throw usageError('har', `${file}: its page ${archive.pageUrl} is not among its recorded responses`);
    return { name: path.basename(file).replace(/\.har$/i, ''), file, url: archive.pageUrl, archive };
  });
}

/**
 * The archive with every body left to the page model (--bodies model).
 * @param {import('../../server/replay/archive.js').Archive} archive
 * @returns {import('../../server/replay/archive.js').Archive}
 */
function withoutBodies(archive) {
  const exchanges = archive.exchanges.map((e) => ({ ...e, body: null, truncated: false }));
  /** @type {Map<string, typeof exchanges>} */
  const byOrigin = new Map();
  for (const e of exchanges) addTo(byOrigin, e.origin, e);
  return { ...archive, exchanges, byOrigin, counts: { ...archive.counts, withoutBody: exchanges.length, truncated: 0 } };
}

/**
 * What the lab's API asks before it starts a replay (server/replay/jobs.js, `--check`): the
 * options read as a run would read them, answered as one JSON line: the pages, or the first
 * input error with its field (the flag's name, as the API's query parameter).
 * @param {string[]} args @param {NodeJS.ProcessEnv} env
 * @returns {{ pages: Array<{ name: string, url: string, origins: number, responses: number }> } | { error: string, code: string, field: string|null }}
 */
export function check(args, env) {
  try {
    const o = parse(args, env);
    if (o.help) throw usageError('help', 'is not an option of a replay the lab starts');
    return { pages: o.pages.map((p) => ({ name: p.name, url: p.url, origins: p.archive.byOrigin.size, responses: p.archive.exchanges.length })) };
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    return { error: err.message.replace(/^--/, ''), code: err.code, field: err.field?.replace(/^--/, '') ?? null };
  }
}

/** @typedef {Exclude<ReturnType<typeof parse>, { help: true }>} ReplayOptions */

/** @param {ReplayOptions} o */
export async function run(o) {
  const dir = makeOwnedDir('h2lab-replay-certs-');
  try {
    const recorded = o.pages.flatMap((p) => [...p.archive.byOrigin.keys()].map((origin) => new URL(origin).hostname.replace(/^\[|\]$/g, '')));
    // Firefox on the packet network asks the replay's own DNS, which these certificates serve too (doh.js).
    const hosts = o.settings.browser === 'firefox' && networkOf(o.settings.network).ownLab ? [...recorded, dohHost] : recorded;
    return await replayWith(o, await makeReplayCerts(hosts, { coalescing: o.settings.coalescing, dir }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The session: the lab serving the replay's certificates, and the loads.
 * @param {ReplayOptions} o @param {import('../../server/replay/certs.js').ReplayCerts} served
 */
async function replayWith(o, served) {
  const stage = createReplayStage(o.settings.servers);
  const packet = networkOf(o.settings.network).ownLab;
  /** @param {import('../browsers/session.js').Session} session */
  const work = async ({ lab, described }) => {
    const started = Date.now();
    const results = await measureReplay(o.pages, o.settings, { lab: /** @type {NonNullable<typeof lab>} */ (lab), stage, packet, trust: { spkiSha256: served.spkiSha256, caCertPath: served.caFile, certs: served }, untilDecided: o.untilDecided, log: (line) => process.stderr.write(`${line}\n`) });
    const software = Object.fromEntries(described.servers.filter((s) => o.settings.servers.includes(s.id)).map((s) => [s.id, s.software ?? '']));
    const files = await replayFiles(results, { out: o.out, software, wallMs: Date.now() - started });
    process.stdout.write(o.json ? `${JSON.stringify(replayData(results, software, Date.now() - started))}\n` : files.markdown);
    process.stderr.write(`Wrote ${files.written.join(', ')}\n`);
    return results.every((r) => r.runs.every((load) => load.valid)) ? 0 : 1;
  };
  return runSession({ packet, servers: true, browsers: [], fronts: frontsOf(o.settings.servers), labHooks: { handlerFor: stage.handlerFor, served } }, work, {
    check: (described) => {
      for (const id of o.settings.servers) {
        const why = unavailableReason(described, id, o.settings.network);
        if (why) throw new UsageError(`--protocols: ${id} cannot run here: ${why}`);
      }
    },
  });
}
