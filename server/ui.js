// The UI origin (plain HTTP): serves the built client and the control API the page and the
// runner use to learn the servers, read their counters and start runs cold.
import { existsSync } from 'node:fs';
import http from 'node:http';
import express from 'express';
import { distDir, transportLimits } from './config.js';
import { expressClasses } from './transports/express-classes.js';
import { LinkInputError, parseLinkConditions } from './link/conditions.js';
import { parseNetworkConditions } from './packet/conditions.js';
import { EmulationError, EmulationInputError, parseEmulationRequest } from './devtools/page-network.js';

const json = (res, status, body) => res.status(status).type('application/json').send(JSON.stringify(body));

/** @param {{ describe, stats, reset, release, isLabOrigin, isLabHost?, announceDevServer, link, pageNetwork, packet? }} lab what the API reports and does */
export function createUiServer(lab) {
  const app = express();
  app.disable('x-powered-by');
  // A page on another site that rebinds its name to this address must not read the API: only
  // requests addressed to the lab's own names are served (421: not this server's name).
  app.use((req, res, next) => {
    if (lab.isLabHost && !lab.isLabHost(req.headers.host)) {
      return json(res, 421, { error: `this lab answers to its own names (localhost, 127.0.0.1, [::1] and --san), not ${JSON.stringify(req.headers.host ?? '')}` });
    }
    res.set({ 'x-content-type-options': 'nosniff', 'content-security-policy': "frame-ancestors 'none'" });
    next();
  });
  const api = express.Router();
  api.use((req, res, next) => {
    res.set('cache-control', 'no-store'); // counters and conditions change with every run
    next();
  });
  api.get('/servers', (req, res) => json(res, 200, lab.describe()));
  // cpuMs: CPU time of the whole lab process (every server, the link, this API) since it started.
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  api.get('/stats', (req, res) => json(res, 200, { servers: lab.stats(), cpuMs: cpuMs() }));
  // A page on another site could POST here (a simple request needs no preflight) and spoil a run.
  const labPagesOnly = (what) => (req, res, next) => {
    const origin = req.headers.origin;
    if (origin && !lab.isLabOrigin?.(origin)) return json(res, 403, { error: `${what} is for the lab's own page, not ${origin}` });
    // Browsers say where a request comes from even when they send no Origin.
    if (req.headers['sec-fetch-site'] === 'cross-site') return json(res, 403, { error: `${what} is for the lab's own page, not another site's` });
    next();
  };
  // ?hold=1: HTTP/3 ports stay closed until POST /api/release; ?for=id,…: the servers the next
  // run uses, so a front none of them needs is not restarted (server/lab.js reset()).
  api.post('/reset', labPagesOnly('reset'), async (req, res) => {
    const hold = req.query.hold === '1';
    const forIds = typeof req.query.for === 'string' ? req.query.for.split(',').filter(Boolean) : undefined;
    json(res, 200, await lab.reset({ hold, for: forIds }));
  });
  api.post('/release', labPagesOnly('release'), async (req, res) => {
    await lab.release();
    json(res, 200, { released: true });
  });
  // A process on this machine announces its port here and holds the request open while it runs
  // (server/announce.js); what it announced counts only meanwhile. A page cannot announce: browsers
  // send Origin with every POST, and Sec-Fetch-Site with every request.
  const heldAnnouncement = (who, announce) => (req, res) => {
    if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) {
      return json(res, 403, { error: `only ${who} announces itself, not a page` });
    }
    const port = /^\d{1,5}$/.test(req.query.port ?? '') ? Number(req.query.port) : 0;
    if (port < 1 || port > 65535) {
      return json(res, 400, { error: `port must be a port number from 1 to 65535, got ${JSON.stringify(req.query.port ?? '')}`, field: 'port' });
    }
    const { answer, withdraw } = announce(port);
    res.once('close', withdraw);
    res.status(200).type('application/json').write(`${JSON.stringify(answer)}\n`);
  };
  // Vite's dev server (`npm run dev`): its origin is the lab's own while it runs (server/lab.js originPolicy).
  api.post('/dev-server', heldAnnouncement("Vite's dev server", (port) => {
    const { origins, withdraw } = lab.announceDevServer(port);
    return { answer: { trusted: origins }, withdraw };
  }));
  // The DevTools port of the Chrome `npm run chrome` opened: the lab applies presets through it.
  api.post('/devtools-port', heldAnnouncement('npm run chrome', (port) => ({ answer: { devtoolsPort: port }, withdraw: lab.pageNetwork.announce(port) })));
  api.get('/link', (req, res) => json(res, 200, lab.link.get()));
  api.put('/link', labPagesOnly('setting the link'), express.json({ limit: '4kb', strict: false }), (req, res) => {
    if (!req.is('application/json')) return json(res, 415, { error: 'send the conditions as JSON (content-type: application/json)', field: 'body' });
    try {
      json(res, 200, lab.link.set(parseLinkConditions(req.body)));
    } catch (err) {
      if (!(err instanceof LinkInputError)) throw err;
      json(res, 400, { error: err.message, field: err.field });
    }
  });
  // The packet network (server/packet/), when the lab runs on its server side.
  const packetOnly = (req, res, next) =>
    lab.packet ? next() : json(res, 404, { error: 'this lab runs without the packet network: start it with npm run chrome -- --network packet (or npm run experiments -- --network packet)' });
  api.get('/network', packetOnly, (req, res) => json(res, 200, lab.packet.get()));
  // { down, up }: what the emulator counted since it started; a run takes the difference.
  api.get('/network/counters', packetOnly, async (req, res) => {
    await lab.packet.counters().then((counters) => json(res, 200, counters), (err) => json(res, 503, { error: err.message }));
  });
  api.put('/network', packetOnly, labPagesOnly('setting the network'), express.json({ limit: '4kb', strict: false }), async (req, res) => {
    if (!req.is('application/json')) return json(res, 415, { error: 'send the conditions as JSON (content-type: application/json)', field: 'body' });
    let conditions;
    try {
      conditions = parseNetworkConditions(req.body);
    } catch (err) {
      if (!(err instanceof LinkInputError)) throw err;
      return json(res, 400, { error: err.message, field: err.field });
    }
    // An emulator that is gone or does not answer is the lab's failure, said as such.
    await lab.packet.set(conditions).then((set) => json(res, 200, set), (err) => json(res, 503, { error: err.message }));
  });
  // A preset applied through the DevTools port of the Chrome the page runs in (npm run chrome).
  api.put('/emulation', labPagesOnly('network emulation'), express.json({ limit: '4kb', strict: false }), async (req, res) => {
    if (!req.is('application/json')) return json(res, 415, { error: 'send the request as JSON (content-type: application/json)', field: 'body' });
    try {
      json(res, 200, await lab.pageNetwork.apply(parseEmulationRequest(req.body)));
    } catch (err) {
      if (err instanceof EmulationInputError) return json(res, 400, { error: err.message, field: err.field });
      if (err instanceof EmulationError) return json(res, err.status, { error: err.message, ...err.details });
      throw err;
    }
  });
  const only = (allow, text) => (req, res) => json(res.set('allow', allow), 405, { error: `${text} for ${req.baseUrl}${req.path}` });
  api.all(['/servers', '/stats', '/network/counters'], only('GET, HEAD', 'use GET'));
  api.all(['/reset', '/release', '/dev-server', '/devtools-port'], only('POST', 'use POST'));
  api.all(['/link', '/network'], only('GET, HEAD, PUT', 'use GET or PUT'));
  api.all('/emulation', only('PUT', 'use PUT'));
  api.use((req, res) => json(res, 404, { error: `no API route ${req.baseUrl}${req.path}` }));
  // express.json's own failures (not JSON, too large) as the API's JSON errors.
  api.use((err, req, res, next) => {
    if (!err.status || err.status >= 500) return next(err);
    json(res, err.status, { error: `the body is not usable JSON: ${err.message}`, field: 'body' });
  });
  app.use('/api', api);

  app.use(express.static(distDir));
  app.use((req, res) => {
    if (!existsSync(`${distDir}/index.html`)) {
      return res.status(503).type('text/plain').send('The client is not built: run `npm run build` (npm start does it).\n');
    }
    json(res, 404, { error: `not found: ${req.path}` });
  });
  const server = http.createServer(expressClasses(app), app);
  // The same bounds on a slow request as the TLS servers (server/config.js says why).
  server.headersTimeout = transportLimits.headersTimeoutMs;
  server.requestTimeout = transportLimits.requestTimeoutMs;
  return server;
}
