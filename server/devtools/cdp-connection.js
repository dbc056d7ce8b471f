// One DevTools Protocol connection to a browser's endpoint, with flat sessions (one socket for
// every tab the lab attaches to). Playwright's connectOverCDP would do more than the lab wants in
// a person's Chrome (it takes over downloads), so this speaks the protocol directly over `ws`.
// The other end may be any program listening on that port: a message that is too large or not
// the protocol's closes the connection, and every call waiting on it fails with that reason.
import WebSocket from 'ws';
import { pendingCalls } from './pending-calls.js';

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The message as an object, or a string saying why it is not one.
 * @param {unknown} data  a ws message: JSON.parse reads it as its text
 */
function parseMessage(data) {
  let message;
  try {
    message = JSON.parse(/** @type {string} */ (data));
  } catch {
    return 'sent a message that is not JSON';
  }
  return isObject(message) ? message : 'sent a message that is not a DevTools Protocol message';
}

/**
 * @typedef {{ timeoutMs: number, maxMessageBytes: number, onEvent?: (method: string, params: Record<string, unknown>) => void, onClose?: () => void }} CdpOptions
 */

/**
 * @param {string} wsUrl the browser's webSocketDebuggerUrl (server/devtools/endpoint.js checked it)
 * @param {CdpOptions} o
 */
export async function openCdpConnection(wsUrl, o) {
  const ws = new WebSocket(wsUrl, { handshakeTimeout: o.timeoutMs, perMessageDeflate: false, followRedirects: false, maxPayload: o.maxMessageBytes });
  await /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  }));
  return cdpOver(ws, o);
}

/**
 * The protocol over a WebSocket already open: one to a browser's endpoint, or the channel
 * npm run chrome holds to the lab (server/devtools/channel.js), which its own ws server accepted
 * with maxPayload set.
 * @param {WebSocket} ws
 * @param {CdpOptions} o
 */
export function cdpOver(ws, { timeoutMs, maxMessageBytes, onEvent = () => {}, onClose = () => {} }) {
  let nextId = 0;
  const calls = pendingCalls(timeoutMs);
  let closedBecause = 'the browser closed the DevTools connection';
  const rejectPending = () => calls.failAll(closedBecause);
  // The calls waiting fail at once, whether or not a hostile end ever completes the close.
  /** @param {string} reason */
  const fail = (reason) => {
    closedBecause = `the DevTools endpoint ${reason}`;
    rejectPending();
    ws.close(1008, reason); // 1008: policy violation
  };
  ws.on('message', (data) => {
    if (ws.readyState !== WebSocket.OPEN) return; // closing: the rest is not read
    // Network.enable (needed for the emulation) makes the browser report every request of the
    // tab; those events are of no use here, so they are dropped before parsing.
    // ws's binaryType is 'nodebuffer' here: an unfragmented message is one Buffer.
    if (/** @type {Buffer} */ (data).includes('"method":"Network.')) return;
    const message = parseMessage(data);
    if (typeof message === 'string') return fail(message);
    if (message.id === undefined) return onEvent(String(message.method), isObject(message.params) ? message.params : {});
    calls.answer(message);
  });
  ws.on('error', (err) => {
    // ws closes the connection itself after an error; a message past maxPayload is one.
    if (/** @type {Error & { code?: string }} */ (err).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') closedBecause = `the DevTools endpoint sent a message over ${maxMessageBytes} bytes`;
  });
  ws.once('close', () => {
    rejectPending();
    onClose();
  });
  return {
    /**
     * Sends a command, to the browser or to a tab's session; resolves with its result.
     * @param {string} method @param {object} [params] @param {string} [sessionId]
     * @returns {Promise<unknown>} the method's result, as the other end sent it
     */
    send(method, params = {}, sessionId = undefined) {
      if (ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error(`${method}: ${closedBecause}`));
      const id = ++nextId;
      return calls.add(id, method, () => ws.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) })));
    },
    get open() {
      return ws.readyState === WebSocket.OPEN;
    },
    close() {
      ws.close();
    },
  };
}
