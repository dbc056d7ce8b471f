// `npm run page-shapes -- [--out DIR]`: writes the replay study's page shapes (runner/replay/shapes.js)
// as HARs without bodies, which npm run page-loads -- --har DIR replays as page models.
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../cli/run.js';
import { readArgs, readOutDir } from '../../cli/options.js';
import { pageShapes } from '../replay/shapes.js';

const usage = `Usage: npm run page-shapes -- [--out DIR]
Writes the replay study's page shapes as HAR 1.2 files without bodies, one per shape; replay them
with npm run page-loads -- --har DIR.
  --out DIR   where they go (default results/page-shapes-<UTC time>/)`;

/** @param {string[]} args @param {NodeJS.ProcessEnv} env */
function parse(args, env) {
  const values = readArgs(args, { out: { type: 'string', accepts: 'a directory' } });
  return { help: values.help, out: readOutDir(values.out, env, new Date(), 'page-shapes-') };
}

process.exitCode = await runCli({
  name: 'page-shapes',
  usage,
  parse,
  async run({ out }) {
    fs.mkdirSync(out, { recursive: true });
    for (const shape of pageShapes()) {
      const file = path.join(out, `${shape.name}.har`);
      fs.writeFileSync(file, `${JSON.stringify(shape.har, null, 1)}\n`);
      console.log(`${shape.name}: ${shape.har.log.entries.length} requests, ${new Set(shape.har.log.entries.map((e) => new URL(e.request.url).origin)).size} origins (${shape.description}) → ${file}`);
    }
  },
});
