// `npm run record -- URL… [--out DIR]`: each page recorded as HAR 1.2 with its bodies, in the
// Chromium the runner uses, over whatever network this machine has (runner/replay/record.js);
// what a replay then serves (npm run page-loads -- --har, under way).
import { runCli } from '../../cli/run.js';
import { InputError } from '../../common/setup/errors.js';
import { readArgs, readOutDir } from '../../cli/options.js';
import { recordPages } from '../replay/record.js';

const usage = `Usage: npm run record -- URL… [--out DIR]
Loads each URL (https:) in a fresh headless Chromium profile and writes its HAR 1.2, bodies
included, with who initiated each request, its priority and its connection.
  --out DIR   where the HARs go, one per URL (default results/recording-<UTC time>/); the folder
              is made 0700 and each HAR 0600: a recording holds what the pages sent`;

/** @param {string[]} args @param {NodeJS.ProcessEnv} env */
function parse(args, env) {
  const values = readArgs(args, { out: { type: 'string', accepts: 'a directory' } }, { positionals: true });
  if (values.help) return { help: /** @type {const} */ (true) };
  if (!values._.length) throw new InputError('url', 'URL: give one or more pages to record (npm run record -- https://…)');
  const urls = values._.map((raw) => {
    if (!URL.canParse(raw) || new URL(raw).protocol !== 'https:') throw new InputError('url', `URL: must be an https: URL, got ${JSON.stringify(raw)}`);
    return new URL(raw).href;
  });
  return { help: /** @type {const} */ (false), urls, out: readOutDir(values.out, env, new Date(), 'recording-') };
}

process.exitCode = await runCli({
  name: 'record',
  usage,
  parse,
  async run({ urls, out }) {
    for (const r of await recordPages(urls, { out })) console.log(`${r.url}: ${r.entries} requests recorded → ${r.file}`);
  },
});
