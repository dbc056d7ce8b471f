// The one base of every error h2lab throws on purpose, and its kinds. `code` is stable (docs/http-api.md
// lists every one, test/error-codes.test.js holds them to it), `field` names the value at fault or is
// null, and the kind says how a command ends (cli/run.js exitCodeOf): what a person gave wrong exits
// 2, anything else 1. The control API answers each with its status in one place (server/ui.js).
export class H2labError extends Error {
  /**
   * @param {string} code  stable, for programs to match
   * @param {string} message  one sentence for a person
   * @param {{ field?: string|null, cause?: unknown }} [o]
   */
  constructor(code, message, { field = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.code = code;
    this.field = field;
  }
}

/**
 * A value a person or a client gave that the lab refuses: a request's field, a command-line flag,
 * a config variable, a trace's line. The control API answers 400, a command exits 2.
 */
export class InputError extends H2labError {
  /**
   * @param {string} field  the body field, query parameter or flag at fault ("rttMs", "--preset")
   * @param {string} message  one sentence for a person, naming the field and its bounds
   * @param {string} [code]  which rule it broke
   */
  constructor(field, message, code = 'invalid-field') {
    super(code, message, { field });
  }
}

/**
 * A command's usage found wrong only by trying: a server or browser that cannot run here, a folder
 * that is not the person's alone, results that are not a run's. Exits 2 like a bad flag.
 */
export class UsageError extends H2labError {
  /** @param {string} message  one line, naming the flag or file at fault */
  constructor(message) {
    super('usage', message);
  }
}
