// The UI origin (plain HTTP): serves the built client and the control API the page and the
// runner use to learn the servers, read their counters and start runs cold.
import { existsSync } from 'node:fs';
import http from 'node:http';
import express from 'express';
import { distDir } from './config.js';

const json = (res, status, body) => res.status(status).type('application/json').send(JSON.stringify(body));

/** @param {{ describe, stats, reset, isLabOrigin }} lab what the API reports and does */
export function createUiServer(lab) {
  const app = express();
  app.disable('x-powered-by');
  const api = express.Router();
  api.get('/servers', (req, res) => json(res, 200, lab.describe()));
  api.get('/stats', (req, res) => json(res, 200, { servers: lab.stats() }));
  api.post('/reset', async (req, res) => {
    // A page on another site could POST here (a simple request needs no preflight) and spoil a run.
    const origin = req.headers.origin;
    if (origin && !lab.isLabOrigin?.(origin)) {
      return json(res, 403, { error: `reset is for the lab's own page, not ${origin}` });
    }
    json(res, 200, await lab.reset());
  });
  api.all(['/servers', '/stats'], (req, res) => json(res, 405, { error: `use GET for ${req.baseUrl}${req.path}` }));
  api.all('/reset', (req, res) => json(res, 405, { error: 'use POST for /api/reset' }));
  api.use((req, res) => json(res, 404, { error: `no API route ${req.baseUrl}${req.path}` }));
  app.use('/api', api);

  app.use(express.static(distDir));
  app.use((req, res) => {
    if (!existsSync(`${distDir}/index.html`)) {
      return res.status(503).type('text/plain').send('The client is not built: run `npm run build` (npm start does it).\n');
    }
    json(res, 404, { error: `not found: ${req.path}` });
  });
  return http.createServer(app);
}
