// The one base of every input error in the lab: a value a person or a client gave that the lab
// refuses (a request's field, a command-line flag, a config variable, a trace's line). `field`
// names what was wrong and `code` says which rule it broke, so the control API maps every input
// error to its 400 in one place (server/ui.js) and the commands print one line and exit.
export class InputError extends Error {
  /**
   * @param {string} field  the body field, query parameter or flag at fault ("rttMs", "--preset")
   * @param {string} message  one sentence for a person, naming the field and its bounds
   * @param {string} [code]  stable, for programs to match (docs/http-api.md)
   */
  constructor(field, message, code = 'invalid-field') {
    super(message);
    this.name = 'InputError';
    this.field = field;
    this.code = code;
  }
}
