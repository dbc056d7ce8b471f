// Node's request and response classes for a server in front of an express app, whose prototypes
// are the app's own (app.request and app.response). Express sets those prototypes on every
// request it handles (Object.setPrototypeOf in app.handle); done per request, that gives each
// request's objects a fresh hidden class in V8, which made every property access in Node's HTTP
// code and express slower and tripled garbage collection: 1 KiB over the lab's https + express
// cost 130–142 µs of CPU per request (h2load, one core) against ~25 µs for a bare https server.
// When the objects are born with the app's prototypes, express's call changes nothing. They are
// classes that extend Node's own, so that V8 sizes the objects for the fields Node's constructors
// add: a plain function that called Node's constructor made objects V8 turned into slow
// dictionaries after their first dozen fields. Every express app in the process needs them: one
// server whose objects change hidden class per request keeps the code it shares with the others slow.
import http from 'node:http';

/**
 * { IncomingMessage, ServerResponse } for http(s).createServer's options. Puts their prototypes
 * in front of app.request and app.response and makes them the app's, so that express's own
 * methods (res.json, req.path, …) stay on every request's prototype chain.
 * @param {import('express').Application} app
 */
export function expressClasses(app) {
  class IncomingMessage extends http.IncomingMessage {}
  Object.setPrototypeOf(IncomingMessage.prototype, app.request);
  app.request = IncomingMessage.prototype;
  class ServerResponse extends http.ServerResponse {}
  Object.setPrototypeOf(ServerResponse.prototype, app.response);
  app.response = ServerResponse.prototype;
  return /** @type {{ IncomingMessage: typeof http.IncomingMessage, ServerResponse: typeof http.ServerResponse }} subclasses of node's own */ ({ IncomingMessage, ServerResponse });
}
