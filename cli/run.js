// The shape every h2lab command shares: usage errors exit 2 and other failures exit 1, each
// with one line on stderr and no stack trace; --help prints the usage and exits 0.
import { InputError, UsageError } from '../common/setup/errors.js';

/**
 * A command's exit code for what it threw, by the error's kind (common/setup/errors.js): what the person
 * gave wrong, a flag or a usage found wrong only by trying, 2; anything else 1.
 * @param {unknown} err
 */
export const exitCodeOf = (err) => (err instanceof InputError || err instanceof UsageError ? 2 : 1);

/**
 * @template {{ help?: boolean }} O
 * @param {object} o
 * @param {string} o.name e.g. 'certs', printed as "h2lab certs: …"
 * @param {string} o.usage
 * @param {(args: string[], env: NodeJS.ProcessEnv) => O} o.parse throws on bad usage; { help: true } asks for usage
 * @param {(options: Exclude<O, { help: true }>) => Promise<number|void>} o.run its number is the exit code (default 0); not called for --help
 * @param {(err: Error) => void} [o.cleanup] called when run throws, before the message
 * @param {string[]} [args]
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<number>} the exit code
 */
export async function runCli({ name, usage, parse, run, cleanup }, args = process.argv.slice(2), env = process.env) {
  /** @param {Error} err @param {number} code */
  const fail = (err, code) => {
    console.error(`h2lab ${name}: ${String(err.message).replaceAll('\n', ' ')}`);
    return code;
  };
  let options;
  try {
    options = parse(args, env);
  } catch (err) {
    return fail(/** @type {Error} */ (err), 2);
  }
  if (options.help) {
    console.log(usage);
    return 0;
  }
  try {
    return /** @type {number|undefined} */ (await run(/** @type {Exclude<O, { help: true }>} */ (options))) ?? 0;
  } catch (thrown) {
    const err = /** @type {Error} */ (thrown); // h2lab throws Errors only
    cleanup?.(err);
    return fail(err, exitCodeOf(err));
  }
}
