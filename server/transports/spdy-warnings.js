// spdy 4.0.2 (2020, unmaintained) and its http-deceiver use APIs Node has deprecated
// (DEP0111 process.binding('http_parser'), DEP0066 OutgoingMessage#_headers), and Node prints a
// DeprecationWarning for each at start-up, which reads as if the lab were broken. Exactly those
// two, raised from inside those packages, are dropped; every other warning prints as before.
// Imported by h2-spdy.js before spdy itself, so it is in place when spdy loads.
const known = { DEP0111: '/node_modules/http-deceiver/', DEP0066: '/node_modules/spdy/' };
// One signature for its overloads: (warning, options) and (warning, type, code, ctor) are passed on as they came.
const emitWarning = /** @type {(this: NodeJS.Process, warning: string|Error, ...rest: unknown[]) => void} */ (process.emitWarning);

/** @this {NodeJS.Process} @param {string|Error} warning @param {...unknown} rest */
process.emitWarning = function emitUnlessSpdys(warning, ...rest) {
  // A key of `known` once `in` below says so.
  const code = /** @type {keyof typeof known} */ (typeof rest[0] === 'object' ? /** @type {{ code?: unknown }|null} */ (rest[0])?.code : rest[1]);
  if (code in known) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 20;
    const stack = /** @type {string} V8 always makes one */ (new Error().stack);
    Error.stackTraceLimit = limit;
    if (stack.includes(known[code])) return;
  }
  return emitWarning.call(this, warning, ...rest);
};
