// spdy 4.0.2 (2020, unmaintained) and its http-deceiver use APIs Node has deprecated
// (DEP0111 process.binding('http_parser'), DEP0066 OutgoingMessage#_headers), and Node prints a
// DeprecationWarning for each at start-up, which reads as if the lab were broken. Exactly those
// two, raised from inside those packages, are dropped; every other warning prints as before.
// Imported by h2-spdy.js before spdy itself, so it is in place when spdy loads.
const known = { DEP0111: '/node_modules/http-deceiver/', DEP0066: '/node_modules/spdy/' };
const emitWarning = process.emitWarning;

process.emitWarning = function emitUnlessSpdys(warning, ...rest) {
  const code = typeof rest[0] === 'object' ? rest[0]?.code : rest[1];
  if (code in known) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 20;
    const stack = new Error().stack;
    Error.stackTraceLimit = limit;
    if (stack.includes(known[code])) return;
  }
  return emitWarning.call(this, warning, ...rest);
};
