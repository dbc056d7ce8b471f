// The DevTools Protocol over a pipe to a Chrome this process started (--remote-debugging-pipe:
// Chrome reads commands on its fd 3 and writes answers and events on fd 4, each message JSON
// ended by a NUL byte). No TCP port is opened, so no other process on the machine can drive this
// Chrome: only the process holding the pipe.
import { pendingCalls } from '../../server/devtools/pending-calls.js';

/**
 * One DevTools Protocol message: a command (id, method, params), its answer (id, result or error)
 * or an event (method, params).
 * @typedef {object} CdpMessage
 * @property {number} [id]
 * @property {string} [method]
 * @property {any} [params]  any: each method has its own
 * @property {any} [result]  any: each method has its own
 * @property {{ message: string }} [error]
 * @property {string} [sessionId]
 */

/**
 * Where the pipe's two ends go in the spawn's stdio: Chrome reads fd 3 and writes fd 4.
 * @type {['pipe', 'pipe']}
 */
export const pipeStdio = ['pipe', 'pipe'];

/**
 * @param {import('node:child_process').ChildProcess} chrome spawned with stdio [… , …pipeStdio] at fds 3 and 4
 * @param {{ timeoutMs: number, onEvent?: (message: CdpMessage) => void }} o onEvent: every message that
 *   answers no call of send() (events, and answers relayed for others: relay())
 */
export function openChromePipe(chrome, { timeoutMs, onEvent = () => {} }) {
  const toChrome = /** @type {import('node:stream').Writable} */ (chrome.stdio[3]);
  const fromChrome = /** @type {import('node:stream').Readable} */ (chrome.stdio[4]);
  let nextId = 0;
  const calls = pendingCalls(timeoutMs);
  /** @type {string|null} why the pipe closed */
  let closed = null;
  let buffered = '';
  fromChrome.setEncoding('utf8');
  fromChrome.on('data', (text) => {
    const parts = (buffered + text).split('\0');
    buffered = /** @type {string} */ (parts.pop()); // split gives at least one part
    for (const part of parts) {
      let message;
      try {
        message = JSON.parse(part);
      } catch {
        continue; // Chrome writes only JSON here; nothing else is ours to read
      }
      if (!calls.answer(message)) onEvent(message);
    }
  });
  const end = () => {
    closed ??= 'Chrome closed its DevTools pipe';
    calls.failAll(closed);
  };
  fromChrome.on('close', end);
  toChrome.on('error', end); // EPIPE: Chrome is gone
  /** @param {CdpMessage} message */
  const write = (message) => toChrome.write(`${JSON.stringify(message)}\0`);
  return {
    /**
     * A command, to the browser or to a session; resolves with its result.
     * @param {string} method
     * @param {object} [params]
     * @param {string} [sessionId]
     * @returns {Promise<any>} any: the method's result, whose shape is the method's
     */
    send(method, params = {}, sessionId = undefined) {
      if (closed) return Promise.reject(new Error(`${method}: ${closed}`));
      // Its own ids are negative: the relay (devtools-relay.js) forwards the lab's with positive ones.
      const id = --nextId;
      return calls.add(id, method, () => write({ id, method, params, ...(sessionId && { sessionId }) }));
    },
    /** Writes a message as it is (relay.js forwards the lab's commands). */
    write,
    get open() {
      return closed === null;
    },
  };
}
