// How the lab applies presets in the Chrome `npm run chrome` opened, with no DevTools port open:
// this command holds Chrome's DevTools pipe (chrome-pipe.js) and a WebSocket to the lab (GET
// /api/devtools-channel, which the lab takes only from a process of its own user), and passes
// between them just what network emulation needs. Whatever answers at the lab's address, it can
// list the lab profile's web pages and throttle them, and nothing more: no script, no file, no
// download, no event of what the pages load.
import WebSocket from 'ws';
import { devtoolsParam } from '../../common/setup/devtools-network.js';

/** @typedef {import('./chrome-pipe.js').CdpMessage} CdpMessage */

/** The commands page-network.js sends (server/devtools/page-network.js, common/setup/devtools-network.js). */
const relayed = new Set(['Target.getTargets', 'Target.attachToTarget', 'Target.detachFromTarget', 'Network.enable', 'Network.emulateNetworkConditions']);
/** The one event it listens to: a tab it throttles went away. */
const forwardedEvents = new Set(['Target.detachedFromTarget']);
// A window the lab's tab opens is about:blank until its first page arrives.
/** @param {{ type?: string, url?: string }|undefined} t  a TargetInfo */
const isWebPage = (t) => t?.type === 'page' && (/^https?:\/\//.test(String(t.url)) || t.url === 'about:blank');

// Long enough not to busy a machine where the lab is not running, short enough that a restarted
// lab reaches this Chrome again before a person has reloaded the page (as server/announce.js).
const retryMs = 500;

/**
 * Holds the channel for as long as this command runs, connecting again while no lab answers or
 * after it restarts. Sessions the lab attached end with its connection, and their emulation with
 * them (Chrome clears it when a session detaches): no preset outlives the lab in this Chrome.
 * @param {Pick<ReturnType<typeof import('./chrome-pipe.js').openChromePipe>, 'send'|'write'>} chrome openChromePipe()'s
 * @param {{ uiOrigin: string, channel: string, maxMessageBytes: number,
 *   onState: (state: 'held'|'refused'|'no-lab', why?: string) => void }} o onState hears each change
 * @returns {{ fromChrome(message: CdpMessage): void, stop(): void }} fromChrome: every message of the
 *   pipe that answers none of this command's own calls
 */
export function relayToLab(chrome, { uiOrigin, channel, maxMessageBytes, onState }) {
  const url = new URL('/api/devtools-channel', uiOrigin.replace(/^http/, 'ws'));
  url.searchParams.set(devtoolsParam, channel);
  /** @type {WebSocket|null} */
  let ws = null;
  let stopped = false;
  let last = '';
  /** @param {Parameters<typeof onState>[0]} state @param {string} [why] */
  const report = (state, why) => {
    if (`${state} ${why}` !== last) onState(state, why);
    last = `${state} ${why}`;
  };
  let nextId = 0;
  /** @type {Map<number, { id: number, method: string }>} */
  const labIds = new Map(); // the id this relay gave a command → { id the lab gave it, method }
  /** @type {Set<string>} */
  const sessions = new Set(); // the sessions the lab attached
  /** @param {CdpMessage} message */
  const toLab = (message) => ws?.readyState === WebSocket.OPEN && ws.send(JSON.stringify(message));

  function connect() {
    const current = new WebSocket(url, { perMessageDeflate: false, followRedirects: false, maxPayload: maxMessageBytes });
    ws = current;
    /** @type {string|null} */
    let refused = null;
    current.on('open', () => report('held'));
    current.on('unexpected-response', (/** @type {import('node:http').ClientRequest} */ req, /** @type {import('node:http').IncomingMessage} */ res) => {
      refused = `HTTP ${res.statusCode}`;
      res.resume();
      current.terminate();
    });
    current.on('error', (/** @type {Error} */ err) => (refused ??= err.message));
    current.on('close', () => {
      for (const sessionId of sessions) chrome.send('Target.detachFromTarget', { sessionId }).catch(() => {});
      sessions.clear();
      labIds.clear();
      if (stopped) return;
      report(/^HTTP /.test(refused ?? '') ? 'refused' : 'no-lab', refused ?? 'the lab closed the channel');
      setTimeout(connect, retryMs);
    });
    current.on('message', (/** @type {unknown} */ data) => {
      /** @type {any} any: the lab's JSON, checked below before it is relayed */
      let message;
      try {
        message = JSON.parse(String(data));
      } catch {
        return;
      }
      if (!Number.isInteger(message?.id) || message.id < 0) return;
      if (!relayed.has(message.method)) {
        return toLab({ id: message.id, error: { message: `npm run chrome relays only ${[...relayed].join(', ')}` } });
      }
      const id = ++nextId;
      labIds.set(id, { id: message.id, method: message.method });
      const { method, params = {}, sessionId } = message;
      chrome.write({ id, method, params, ...(typeof sessionId === 'string' && { sessionId }) });
    });
  }
  connect();
  return {
    fromChrome(message) {
      if (message.id === undefined) { // an event: it has a method
        if (message.method === 'Target.detachedFromTarget') sessions.delete(message.params?.sessionId);
        if (forwardedEvents.has(/** @type {string} */ (message.method))) toLab({ method: message.method, params: message.params });
        return;
      }
      const asked = labIds.get(message.id);
      if (!asked) return;
      labIds.delete(message.id);
      if (asked.method === 'Target.attachToTarget' && message.result?.sessionId) sessions.add(message.result.sessionId);
      // The lab needs the tabs of the lab's own origins; nothing else of this Chrome is its business.
      const result = asked.method === 'Target.getTargets' && message.result ? { targetInfos: (message.result.targetInfos ?? []).filter(isWebPage) } : message.result;
      toLab({ id: asked.id, ...(message.error ? { error: message.error } : { result }) });
    },
    stop() {
      stopped = true;
      ws?.close();
    },
  };
}
