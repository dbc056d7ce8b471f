// `npm run certs`: create or reuse the lab's local CA and leaf certificate.
import { X509Certificate } from 'node:crypto';
import path from 'node:path';
import { ensureCerts, sanList } from './certs.js';
import { readArgs, usageError } from '../cli/options.js';
import { certsDir, configFromEnv } from './config.js';
import { runCli } from '../cli/run.js';

const USAGE = `Usage: npm run certs -- [--san NAME]... [--dir DIR]

Creates (or reuses) a local CA and a leaf certificate for localhost, 127.0.0.1 and ::1.
The CA can sign only for those names and the --san names (name constraints), only
leaves, and for a year; new names make a new CA.

  --san NAME   extra DNS name or IP address for the leaf (repeatable;
               default from H2LAB_SAN, a comma-separated list)
  --dir DIR    where to keep the files (default: ${certsDir})
  --help       show this help`;

// Exit code is set, not forced, so stdout/stderr are flushed before Node exits.
process.exitCode = await runCli({
  name: 'certs',
  usage: USAGE,
  parse: parseOptions,
  run: async (options) => report(await ensureCerts({ dir: options.dir, sans: options.sans })),
});

/** @param {string[]} args @param {NodeJS.ProcessEnv} env */
function parseOptions(args, env) {
  const values = readArgs(args, {
    san: { type: 'string', multiple: true, accepts: 'a DNS name or IP address' },
    dir: { type: 'string', accepts: 'a directory' },
  });
  if (values.dir === '') throw usageError('dir', 'needs a directory');
  // Flags replace the environment's list rather than adding to it.
  const sans = values.san ?? configFromEnv('sans', env); // H2LAB_SAN, read as the servers read it
  sanList(sans); // reject a bad name here, as a usage error
  return { help: values.help ?? false, dir: path.resolve(values.dir ?? certsDir), sans };
}

/** @param {Awaited<ReturnType<typeof ensureCerts>>} certs */
function report({ generated, paths, spkiSha256, ca }) {
  console.log(generated ? 'Generated new certificates.' : 'Reused existing certificates.');
  console.log(`  leaf key:  ${paths.key}`);
  console.log(`  leaf cert: ${paths.cert}`);
  console.log(`  CA key:    ${paths.caKey}`);
  const until = new Date(new X509Certificate(ca).validTo).toISOString().slice(0, 10);
  console.log(`CA certificate (import into a trust store to trust the lab outside its Chrome; for the lab's names only, until ${until}): ${paths.caCert}`);
  console.log(`SPKI SHA-256 (for --ignore-certificate-errors-spki-list): ${spkiSha256}`);
}
