// Node's request and response constructors for a server in front of an express app, built on
// the app's own prototypes (app.request and app.response). Express sets those prototypes on every
// request it handles (Object.setPrototypeOf in app.handle); done per request, that gives each
// request's objects a fresh hidden class in V8, which made every property access in Node's HTTP
// code and express slower and tripled garbage collection: 1 KiB over https + express cost ~100 µs
// of CPU per request against ~40 µs with these classes and ~25 µs without express (h2load, one
// core, docs/performance.md). When the objects are born with the app's prototypes, express's call
// changes nothing. Every express app in the process needs them: one server whose objects change
// hidden class per request keeps the code it shares with the others slow.
import http from 'node:http';

/** { IncomingMessage, ServerResponse } for http(s).createServer's options, for this app. */
export function expressClasses(app) {
  function IncomingMessage(...args) {
    http.IncomingMessage.apply(this, args);
  }
  IncomingMessage.prototype = app.request;
  function ServerResponse(...args) {
    http.ServerResponse.apply(this, args);
  }
  ServerResponse.prototype = app.response;
  return { IncomingMessage, ServerResponse };
}
