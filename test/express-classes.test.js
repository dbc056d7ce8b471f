// Requests and responses born on the express app's own prototypes (server/transports/express-classes.js),
// so that express's per-request Object.setPrototypeOf changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import express from 'express';
import { expressClasses } from '../server/transports/express-classes.js';

test('a server with expressClasses hands express objects already on its prototypes, and express still works', async () => {
  const app = express();
  const seen = [];
  app.get('/a', (req, res) => res.json({ path: req.path, query: req.query.x }));
  const server = http.createServer(expressClasses(app), (req, res) => {
    seen.push([Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response]);
    app(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${server.address().port}/a?x=1`);
    assert.deepEqual(await res.json(), { path: '/a', query: '1' }); // express's own request and response methods
    assert.deepEqual(seen, [[true, true]], 'born on app.request and app.response, before express sees them');
  } finally {
    server.close();
  }
});

test('the objects are still Node requests and responses', () => {
  const { IncomingMessage, ServerResponse } = expressClasses(express());
  const req = new IncomingMessage(null);
  assert.ok(req instanceof http.IncomingMessage);
  assert.ok(new ServerResponse(req) instanceof http.ServerResponse);
});
