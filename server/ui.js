// The UI origin (plain HTTP): serves the built client and the control API the page and the
// runner use to learn the servers, read their counters and start runs cold.
import { existsSync } from 'node:fs';
import http from 'node:http';
import express from 'express';
import { distDir, peerCheckLimits, transportLimits } from './config.js';
import { expressClasses } from './transports/express-classes.js';
import { HttpError, apiErrors, errors, quote } from './http/errors.js';
import { InputError } from '../common/setup/errors.js';
import { networkById, networkOf } from '../common/setup/networks.js';
import { parseConditions, parseLossSeed } from './path/conditions.js';
import { traceSummary } from './path/trace.js';
import { traceBounds } from '../common/setup/path-limits.js';
import { NetworkFailed } from './network-failed.js';
import { parseEmulationRequest } from './devtools/page-network.js';
import { createAnnouncementGate } from './announcement-gate.js';
import { createPeerIdentifier } from './peer-user.js';
import { devtoolsChannels } from './devtools/channel.js';
import { replayJobLimits } from './replay/jobs.js';

/** @typedef {import('express').RequestHandler} RequestHandler */

/** @param {import('express').Response} res @param {number} status @param {unknown} body */
const json = (res, status, body) => res.status(status).type('application/json').send(JSON.stringify(body));
/** @param {import('express').Response} res @param {HttpError} err */
const sendError = (res, err) => json(res.set(err.headers ?? {}), err.status, err.body);


/**
 * Bodies the API reads: JSON objects of a few fields.
 * @param {string} what
 * @returns {RequestHandler[]}
 */
const jsonBody = (what) => [
  express.json({ limit: '4kb', strict: false }),
  (req, res, next) => next(req.is('application/json') ? undefined : apiErrors.notJson(what)),
];

/** @typedef {import('./lab-networks.js').LabNetwork} LabNetwork  one of the lab's own networks, one interface for all */
/** @typedef {import('express').Request & { network: LabNetwork }} NetworkRequest  a request labNetwork let through */

/**
 * express.json's own failures (too large, not JSON) as the API's errors.
 * @param {Error & { status: number }} err
 */
function bodyError(err) {
  if (err.status === 413) return apiErrors.bodyTooLarge(err.message);
  if (err.status === 415) return apiErrors.notJson('the body');
  return apiErrors.unusableJson(err.message);
}

/**
 * What the API reports and does of server/lab.js's lab; the origin policy's functions come once
 * the UI listens.
 * @typedef {object} UiLab
 * @property {() => unknown} describe
 * @property {() => unknown} stats
 * @property {(o: { hold?: boolean, for?: string[] }) => Promise<unknown>} reset
 * @property {() => Promise<unknown>} release
 * @property {Record<string, LabNetwork>} networks
 * @property {ReturnType<typeof import('./devtools/page-network.js').createPageNetwork>} pageNetwork
 * @property {ReturnType<typeof import('./path/traces.js').createTraceLibrary>} traces
 * @property {ReturnType<typeof import('./captures.js').createCaptures>} captures
 * @property {ReturnType<typeof import('./replay/jobs.js').createReplayJobs>} replays
 * @property {(origin: string) => boolean} [isLabOrigin]
 * @property {(host: string|undefined) => boolean} [isLabHost]
 * @property {(port: number) => { origins: string[], withdraw: () => void }} [announceDevServer]
 */

/** @typedef {ReturnType<typeof createPeerIdentifier>} Peers */

/**
 * POST /api/dev-server, and the gate npm run chrome's channel shares. A process on this machine
 * announces its port here and holds the request open while it runs (server/announce.js); what it
 * announced counts only meanwhile. A page cannot announce: browsers send Origin with every POST,
 * and Sec-Fetch-Site with every request. The gate takes only the lab's own user's, not through a
 * proxy, and bounds how many are held, for a port that listens (announcement-gate.js).
 * @param {import('express').Router} api @param {UiLab} lab @param {Peers} peers
 */
function announcementRoutes(api, lab, peers) {
  const announcements = createAnnouncementGate(peers);
  /**
   * @param {string} kind @param {string} who
   * @param {(port: number) => { answer: unknown, withdraw: () => void }} announce
   * @returns {RequestHandler}
   */
  const heldAnnouncement = (kind, who, announce) => async (req, res) => {
    if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) {
      throw apiErrors.pageCannotAnnounce(who);
    }
    const port = /^\d{1,5}$/.test(String(req.query.port ?? '')) ? Number(req.query.port) : 0;
    if (port < 1 || port > 65535) throw errors.badParam('port', `port must be a port number from 1 to 65535, got ${quote(req.query.port ?? '')}`);
    let left = false;
    res.once('close', () => (left = true));
    const release = await announcements.admit(kind, who, req, port);
    if (left) return release(); // the announcer went while the lab checked it
    const { answer, withdraw } = announce(port);
    res.once('close', () => {
      withdraw();
      release();
    });
    res.status(200).type('application/json').write(`${JSON.stringify(answer)}\n`);
  };
  // Vite's dev server (`npm run dev`): its origin is the lab's own while it runs (server/origin-policy.js).
  api.post('/dev-server', heldAnnouncement('dev-server', "Vite's dev server", (port) => {
    const { origins, withdraw } = /** @type {NonNullable<UiLab['announceDevServer']>} set once the UI listens, before any request */ (lab.announceDevServer)(port);
    return { answer: { trusted: origins }, withdraw };
  }));
  return announcements;
}

/**
 * `req`'s body a piece at a time, refused (413) as soon as it passes `maxBytes`: by its
 * content-length before a byte is read, else once the bytes read pass it, and never buffered
 * here. The error answer closes the connection (the API's error handler), so the rest is not read.
 * @param {import('node:http').IncomingMessage} req @param {number} maxBytes
 */
async function* boundedBody(req, maxBytes) {
  const tooLarge = () => apiErrors.bodyTooLarge(`over ${maxBytes.toLocaleString('en-US')} bytes; the lab stopped reading it`);
  if (Number(req.headers['content-length']) > maxBytes) throw tooLarge();
  let bytes = 0;
  // Stopping early must not destroy the request (the iterator's default): its socket must carry the answer.
  for await (const piece of req.iterator({ destroyOnReturn: false })) {
    bytes += piece.length;
    if (bytes > maxBytes) throw tooLarge();
    yield /** @type {Buffer} */ (piece);
  }
}

/**
 * Traces a network's direction may follow (server/path/traces.js): the lab's, and uploads in
 * mahimahi's format (text, one millisecond per line) kept while the lab runs, within a budget of
 * bytes for the lab user's and another for everyone else's (traceUploadLimits). An upload is read
 * and checked as it arrives, one at a time of the lab user's and one of everyone else's: another
 * user's uploads, at any rate, neither wait for nor push out the person's.
 * @param {import('express').Router} api @param {UiLab} lab @param {Peers} peers @param {RequestHandler} labPagesOnly
 */
function traceRoutes(api, lab, peers, labPagesOnly) {
  api.get('/traces', (req, res) => json(res, 200, { traces: lab.traces.list() }));
  /** @type {Set<import('./path/traces.js').Whose>} */
  const reading = new Set();
  // The type is checked before the body is read: a wrong one is refused without reading 8 MiB.
  api.post('/traces', labPagesOnly, (req, res, next) => next(req.is('text/plain') ? undefined : apiErrors.notText('the trace')), async (req, res) => {
    const whose = (await peers.whyNotLabUser(req)) === null ? 'own' : 'others';
    if (reading.has(whose)) throw apiErrors.traceUploadBusy(whose === 'own' ? "the lab user's" : "another user's (or a proxy's)");
    reading.add(whose);
    try {
      json(res, 200, traceSummary(await lab.traces.upload(req.query.name, boundedBody(req, traceBounds.maxTextBytes), whose)));
    } catch (err) {
      // The uploader went mid-upload (Node's 'aborted'): no one to answer.
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ECONNRESET') throw err;
    } finally {
      reading.delete(whose);
    }
  });
}

/**
 * POST /api/replays?name=NAME&<setting>=…: the HAR in the body (JSON, within replayJobLimits),
 * replayed by the lab under the settings of `npm run page-loads -- --har` (server/replay/jobs.js).
 * Settings and HAR are checked first (400 naming the field); then the answer is NDJSON: the pages,
 * each progress line, and the outcome with the replay's files. The page going stops the replay.
 * Only the lab user's page starts one: it runs browsers and writes files in the person's name.
 * @param {import('express').Router} api @param {UiLab} lab @param {Peers} peers @param {RequestHandler} labPagesOnly
 */
function replayRoutes(api, lab, peers, labPagesOnly) {
  api.post('/replays', labPagesOnly, (req, res, next) => next(req.is('application/json') ? undefined : apiErrors.notJson('the HAR')), async (req, res) => {
    const notOwn = await peers.whyNotLabUser(req);
    if (notOwn !== null) throw apiErrors.replayNotLabUser(notOwn);
    const { name = 'page', ...query } = req.query;
    // Before the HAR is read and checked: a page gone meanwhile must not leave a replay running.
    const stopped = new AbortController();
    res.once('close', () => stopped.abort());
    const job = await lab.replays.start({ query, name: String(name), body: boundedBody(req, replayJobLimits.maxHarBytes) });
    /** @param {unknown} event */
    const send = (event) => res.write(`${JSON.stringify(event)}\n`);
    res.status(200).type('application/x-ndjson');
    send({ pages: job.pages });
    send(await job.run((line) => send({ line }), stopped.signal));
    res.end();
  });
}

/**
 * The lab's networks (common/setup/networks.js: the lab link, the packet network where the lab runs on
 * it), one interface each (server/lab.js): /api/networks/<id> reads and sets the conditions,
 * /api/networks/<id>/counters what the network carried since it started (a run takes the difference).
 * @param {import('express').Router} api @param {UiLab} lab @param {(what: string) => RequestHandler} labPagesOnly
 */
function networkRoutes(api, lab, labPagesOnly) {
  /** @type {import('express').RequestHandler} */
  const labNetwork = (req, res, next) => {
    const known = networkById(req.params.id);
    if (!known) return next(apiErrors.unknownNetwork(req.params.id));
    /** @type {NetworkRequest} */ (req).network = lab.networks[known.id]; // or undefined, refused just below
    next(/** @type {NetworkRequest} */ (req).network ? undefined : apiErrors.networkNotInLab(known));
  };
  // A network that is gone or does not answer (the packet network's emulator) is the lab's
  // failure, said as such (503, naming the cause); the lab itself goes on.
  /** @param {unknown} err */
  const networkAnswer = (err) => Promise.reject(err instanceof NetworkFailed ? apiErrors.networkFailed(err.networkId, err.message) : err);
  // The routes below labNetwork find their network on the request.
  api.get('/networks/:id', labNetwork, (req, res) => json(res, 200, /** @type {NetworkRequest} */ (req).network.get()));
  api.get('/networks/:id/counters', labNetwork, async (req, res) => {
    json(res, 200, await /** @type {NetworkRequest} */ (req).network.counters().catch(networkAnswer));
  });
  api.put('/networks/:id', labNetwork, labPagesOnly('setting the network'), jsonBody('the conditions'), async (req, res) => {
    const { network } = /** @type {NetworkRequest} */ (req);
    const conditions = parseConditions(req.body, network.id, { traces: lab.traces });
    json(res, 200, await network.set(conditions).catch(networkAnswer));
  });
  // A timed run's loss seed, on a network that loses packets (server/packet/network.js seedLoss):
  // the page sets it after a run's reset and before its first request.
  api.put('/networks/:id/loss-seed', labNetwork, labPagesOnly('seeding the loss'), jsonBody('the seed'), async (req, res) => {
    const { network } = /** @type {NetworkRequest} */ (req);
    // Declared by the registry and checked against the network at the lab's start (lab-networks.js).
    if (!network.seedLoss) throw apiErrors.noLoss(networkOf(network.id));
    const seed = parseLossSeed(req.body);
    await network.seedLoss(seed).catch(networkAnswer);
    json(res, 200, { seed });
  });
  // A run's packets, on a network that sees them (server/captures.js, server/packet/capture.js).
  /** @type {import('express').RequestHandler} */
  const seesPackets = (req, res, next) => {
    const { network } = /** @type {NetworkRequest} */ (req);
    return next(network.capture ? undefined : apiErrors.noPackets(networkOf(network.id)));
  };
  api.post('/networks/:id/capture', labNetwork, labPagesOnly('capturing packets'), seesPackets, jsonBody('the capture'), async (req, res) => {
    const { capture } = /** @type {NetworkRequest} */ (req).network;
    if (!capture) throw apiErrors.noPackets(networkOf(/** @type {NetworkRequest} */ (req).network.id)); // seesPackets said so already
    json(res, 200, await lab.captures.start({ capture }, req.body).catch(networkAnswer));
  });
  api.delete('/networks/:id/capture', labNetwork, labPagesOnly('capturing packets'), seesPackets, async (req, res) => {
    json(res, 200, await lab.captures.stop().catch(networkAnswer));
  });
}

/**
 * Every error as { error, code, field }; one the API did not expect is logged and said as internal.
 * @type {import('express').ErrorHandler}
 */
function apiErrorHandler(err, req, res, next) {
  if (res.headersSent) return next(err); // a held announcement's answer: express ends it
  // Answered before the body came whole (too large, a wrong line, a busy upload): Node would read
  // and drop the rest, however long, to keep the connection; it is closed instead.
  if (!req.complete) res.set('connection', 'close');
  if (err instanceof HttpError) return sendError(res, err);
  if (err instanceof NetworkFailed) return sendError(res, apiErrors.networkFailed(err.networkId, err.message)); // a read that throws it: GET /api/networks/packet
  // Every input error (common/setup/errors.js) is a 400 naming its field, mapped here once.
  if (err instanceof InputError) return sendError(res, errors.input(err));
  // Anything else: a status outside 4xx, or none, falls through.
  const failed = /** @type {Error & { status: number }} */ (err);
  if (failed.status >= 400 && failed.status < 500) return sendError(res, bodyError(failed)); // express.json's
  console.error(`h2lab ui: ${failed?.stack ?? err}`);
  sendError(res, errors.internal());
}

/**
 * @param {UiLab} lab what the API reports and does
 */
export function createUiServer(lab) {
  const app = express();
  app.disable('x-powered-by');
  // A page on another site that rebinds its name to this address must not read the API: only
  // requests addressed to the lab's own names are served (421: not this server's name).
  app.use((req, res, next) => {
    if (lab.isLabHost && !lab.isLabHost(req.headers.host)) {
      return sendError(res, apiErrors.notLabHost(req.headers.host));
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
  /** @param {string} what @returns {RequestHandler} */
  const labPagesOnly = (what) => (req, res, next) => {
    const origin = req.headers.origin;
    if (origin && !lab.isLabOrigin?.(origin)) return next(apiErrors.notLabPage(what, origin));
    // Browsers say where a request comes from even when they send no Origin.
    if (req.headers['sec-fetch-site'] === 'cross-site') return next(apiErrors.notLabPage(what, "another site's"));
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
  const peers = createPeerIdentifier(peerCheckLimits);
  const announcements = announcementRoutes(api, lab, peers);
  networkRoutes(api, lab, labPagesOnly);
  replayRoutes(api, lab, peers, labPagesOnly('replaying a page'));
  traceRoutes(api, lab, peers, labPagesOnly('uploading a trace'));
  // A preset applied through the DevTools port of the Chrome the page runs in (npm run chrome).
  api.put('/emulation', labPagesOnly('network emulation'), jsonBody('the request'), async (req, res) => {
    json(res, 200, await lab.pageNetwork.apply(parseEmulationRequest(req.body)));
  });
  /** @param {string} allow @returns {RequestHandler} */
  const only = (allow) => (req, res, next) => next(apiErrors.methodNotAllowed(allow, `${req.baseUrl}${req.path}`));
  api.all(['/servers', '/stats', '/networks/:id/counters'], only('GET, HEAD'));
  api.all(['/reset', '/release', '/dev-server'], only('POST'));
  api.all('/traces', only('GET, HEAD, POST'));
  api.all('/replays', only('POST'));
  api.all('/networks/:id', only('GET, HEAD, PUT'));
  api.all('/networks/:id/capture', only('POST, DELETE'));
  api.all('/networks/:id/loss-seed', only('PUT'));
  api.all('/emulation', only('PUT'));
  api.use((req, res, next) => next(apiErrors.notFound(`${req.baseUrl}${req.path}`)));
  api.use(apiErrorHandler);
  app.use('/api', api);

  app.use(express.static(distDir));
  app.use((req, res) => {
    if (!existsSync(`${distDir}/index.html`)) {
      return res.status(503).type('text/plain').send('The client is not built: run `npm run build` (npm start does it).\n');
    }
    sendError(res, apiErrors.notFound(req.path));
  });
  const server = http.createServer(expressClasses(app), app);
  // npm run chrome's channel (GET /api/devtools-channel, a WebSocket): an announcement too.
  server.on('upgrade', devtoolsChannels(lab, announcements));
  // The same bounds on a slow request as the TLS servers (server/config.js says why).
  server.headersTimeout = transportLimits.headersTimeoutMs;
  server.requestTimeout = transportLimits.requestTimeoutMs;
  return server;
}
