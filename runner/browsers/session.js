// A runner command's session, shared by `npm run experiments` and `npm run page-loads`: the lab
// (or a running one, --no-servers) and the browser, set up once and torn down once, whether the
// work finishes, throws, or the process gets SIGINT, SIGTERM or SIGHUP. Under --network packet
// the command first runs again inside the packet network (server/packet/launch.py), where the
// lab is the server side and the browser starts on the browser side; when that process ends the
// kernel ends every process of its namespaces, so a crash leaves nothing behind either. A run with
// Firefox on the lab link runs again the same way on a loopback of its own (launch.py --loopback).
import { UsageError } from '../../common/setup/errors.js';
import { certificateIgnoredNote } from './chromium.js';
import { connectChromium, startBrowser } from './browsers.js';
import { insideOwnLoopback, insidePacketNetwork, ownLoopbackMissing, packetNetworkMissing, rerunInside } from '../../server/packet/launcher.js';

// The exit code of a command ended by a signal, as a shell reports it (128 + the signal's number).
/** @type {Record<string, number>} */
const exitCodeOf = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** @typedef {import('../../common/setup/lab-description.js').DescribedServer} DescribedServer  a server as GET /api/servers describes it */
/** @typedef {import('../../common/setup/lab-description.js').LabDescription} LabDescription  GET /api/servers */

/** @typedef {Awaited<ReturnType<typeof import('../../server/lab.js').startLab>> & { uiOrigin: string }} StartedLab  server/lab.js's lab (openLab sets uiOrigin) */

/**
 * @typedef {object} Session
 * @property {StartedLab|null} lab the started lab (server/lab.js), null with --no-servers
 * @property {string} uiOrigin the lab's UI origin
 * @property {LabDescription} described the lab's word on its servers (GET /api/servers)
 * @property {import('./browsers.js').LabBrowser} browser  the browser of the moment
 * @property {(name: import('./browsers.js').BrowserName) => Promise<import('./browsers.js').LabBrowser>} switchBrowser
 *   closes the browser and starts `name` in its place (a side-by-side run's next browser)
 * @property {'trusted'|'ignored'} certificate whether the browser trusts the lab's certificate
 */

/** @typedef {Partial<Omit<Session, 'browser'>> & { browser?: Session['browser']|null }} SessionSoFar  a Session being set up */

/**
 * Runs `work` in a session and resolves its exit code.
 * @param {{ packet?: boolean, servers?: boolean, ui?: string|null, browserUrl?: string|null,
 *   headed?: boolean, fronts?: readonly string[], log?: (line: string) => void, browsers?: readonly import('./browsers.js').BrowserName[],
 *   evidence?: { captureDir?: string|null, keyLogFile?: string|null, netLogFile?: string|null, qlogDir?: string|null },
 *   labHooks?: import('../../server/lab.js').Hooks }} o packet: on the packet
 *   network; servers: start a lab (else use the one at `ui`); fronts: those the runs need (common/setup/servers.js frontsOf), none by default;
 *   browsers: the ones the work uses, the first started here (default Chromium; none: the work
 *   starts its own, as a replay does); with Firefox among them the lab's origins have names (common/setup/host-names.js);
 *   evidence: where the lab writes captures and the browser its TLS keys, NetLog or qlog;
 *   labHooks: startLab's (a replay's handlers)
 * @param {(session: Session) => Promise<number>} work
 * @param {{ check?: (described: LabDescription) => void }} [hooks] check: refuses the lab's servers
 *   (throws) before a browser starts
 * @returns {Promise<number>}
 */
export async function runSession(o, work, { check = () => {} } = {}) {
  if (o.packet && !insidePacketNetwork()) {
    const missing = packetNetworkMissing();
    if (missing) throw new UsageError(`--network packet: ${missing}`);
    return rerunInside();
  }
  const log = o.log ?? ((line) => process.stderr.write(`${line}\n`));
  const browsers = o.browsers ?? ['chromium'];
  // Firefox's WebDriver BiDi listens on a TCP port of loopback, where any local user could ask for
  // its one session first: its lab and it run on a loopback of their own (on the packet network
  // they already do, on its server and browser sides).
  if (browsers.includes('firefox') && !o.packet && o.servers && !insideOwnLoopback()) {
    const missing = ownLoopbackMissing();
    if (!missing) return rerunInside({ loopback: true });
    log(`Note: Firefox's remote port (WebDriver BiDi) is open to every local user for this run, since a loopback of its own cannot be made here: ${missing}`);
  }
  /** @type {SessionSoFar} */
  const session = { lab: null };
  /** @type {Promise<void>|null} */
  let closing = null;
  // Once, whoever asks first: the browser before the lab, so no page is left fetching from it.
  const teardown = () =>
    (closing ??= (async () => {
      await session.browser?.close().catch(() => {}); // a browser that went away has nothing left to close
      await session.lab?.close().catch(() => {});
    })());
  /** @param {NodeJS.Signals} signal */
  const onSignal = async (signal) => {
    await teardown();
    process.exit(exitCodeOf[signal]);
  };
  for (const signal of Object.keys(exitCodeOf)) process.on(signal, onSignal);
  try {
    const { keyLogFile = null, netLogFile = null, qlogDir = null } = o.evidence ?? {};
    /** @param {import('./browsers.js').BrowserName} name */
    const start = (name) => {
      const { servers, certificate } = /** @type {LabDescription} */ (session.described);
      return startBrowser(name, { certificate, caCertPath: session.lab?.certs.paths.caCert ?? null, servers }, { headless: !o.headed, packet: Boolean(o.packet), keyLogFile, netLogFile, qlogDir });
    };
    // A browser someone else started is reached first: a wrong endpoint is found before anything starts.
    const remote = o.browserUrl ? await connectChromium(o.browserUrl) : null;
    session.browser = remote;
    const described = await startLab({ ...o, named: browsers.includes('firefox') }, session);
    check(described);
    session.browser = remote ?? (browsers.length ? await start(browsers[0]) : null);
    session.switchBrowser = async (name) => {
      const was = session.browser;
      session.browser = null;
      await was?.close();
      return (session.browser = await start(name));
    };
    session.certificate = remote ? await remote.acceptCertificate(described.servers) : 'trusted';
    if (session.certificate === 'ignored') log(`Note: ${certificateIgnoredNote(described.certificate.spkiSha256)}`);
    return await work(/** @type {Session} */ (session));
  } finally {
    await teardown();
    for (const signal of Object.keys(exitCodeOf)) process.off(signal, onSignal);
  }
}

/**
 * Sets the session's lab, uiOrigin and described; resolves described.
 * @param {Parameters<typeof runSession>[0] & { named: boolean }} o  named: the lab's origins by name
 * @param {SessionSoFar} session
 * @returns {Promise<LabDescription>}
 */
async function startLab(o, session) {
  if (!o.servers) {
    session.uiOrigin = /** @type {string} */ (o.ui).replace(/\/$/, ''); // args.js: --no-servers needs --ui
    session.described = /** @type {LabDescription} */ (await (await fetch(`${session.uiOrigin}/api/servers`)).json());
    return session.described;
  }
  // Loaded only when needed: spdy prints deprecation warnings on load, noise for --help or a typo.
  const { startLab: start, freePorts } = await import('../../server/lab.js');
  // Only the fronts a run needs: every cold run restarts each front that is there.
  const { fronts } = await import('../../server/fronts/fronts.js');
  const off = Object.fromEntries(fronts.map((f) => [f.offKey, !o.fronts?.includes(f.id)]));
  // On the packet network the browser comes from the other namespace: the lab listens on every address of its own.
  const { captureDir = null, keyLogFile = null } = o.evidence ?? {};
  session.lab = /** @type {StartedLab} */ (await start({ ...freePorts, ...off, ...(o.packet && { packet: true, host: '0.0.0.0' }), captureDir, keyLogFile, named: o.named }, o.labHooks));
  session.uiOrigin = session.lab.uiOrigin;
  session.described = session.lab.describe();
  return session.described;
}
