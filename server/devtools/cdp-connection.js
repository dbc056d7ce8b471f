// One DevTools Protocol connection to a browser's endpoint, with flat sessions (one socket for
// every tab the lab attaches to). Playwright's connectOverCDP would do more than the lab wants in
// a person's Chrome (it takes over downloads), so this speaks the protocol directly over `ws`.
import WebSocket from 'ws';

/**
 * @param {string} wsUrl the browser's webSocketDebuggerUrl (GET /json/version)
 * @param {{ timeoutMs: number, onEvent?: (method: string, params: object) => void, onClose?: () => void }} o
 */
export async function openCdpConnection(wsUrl, { timeoutMs, onEvent = () => {}, onClose = () => {} }) {
  const ws = new WebSocket(wsUrl, { handshakeTimeout: timeoutMs, perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let nextId = 0;
  const pending = new Map();
  ws.on('message', (data) => {
    // Network.enable (needed for the emulation) makes the browser report every request of the
    // tab; those events are of no use here, so they are dropped before parsing.
    if (data.includes('"method":"Network.')) return;
    const message = JSON.parse(data);
    if (message.id === undefined) return onEvent(message.method, message.params ?? {});
    const call = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) call?.reject(new Error(`${call.method}: ${message.error.message}`));
    else call?.resolve(message.result);
  });
  ws.on('error', () => {}); // 'close' follows and says the rest
  ws.once('close', () => {
    for (const call of pending.values()) call.reject(new Error(`${call.method}: the browser closed the DevTools connection`));
    pending.clear();
    onClose();
  });
  return {
    /** Sends a command, to the browser or to a tab's session; resolves with its result. */
    send(method, params = {}, sessionId = undefined) {
      if (ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error(`${method}: the DevTools connection is closed`));
      return new Promise((resolve, reject) => {
        const id = ++nextId;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        const settle = (fn) => (value) => {
          clearTimeout(timer);
          fn(value);
        };
        pending.set(id, { method, resolve: settle(resolve), reject: settle(reject) });
        ws.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
      });
    },
    get open() {
      return ws.readyState === WebSocket.OPEN;
    },
    close() {
      ws.close();
    },
  };
}
