// npm run chrome's DevTools channel to the lab, held by a test for a Chrome it started with a
// DevTools port: the same relay npm run chrome runs (runner/browsers/devtools-relay.js), between the lab
// and that Chrome's browser endpoint instead of its pipe.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { devtoolsLimits } from '../../server/config.js';
import { relayToLab } from '../../runner/browsers/devtools-relay.js';

/**
 * Resolves { channel, end() } once the lab holds the channel, or rejects with why it refused.
 * @param {string} uiOrigin the lab's
 * @param {number} devtoolsPort the test's Chrome's
 */
export async function holdChannel(uiOrigin, devtoolsPort) {
  const { webSocketDebuggerUrl } = await (await fetch(`http://127.0.0.1:${devtoolsPort}/json/version`)).json();
  const ws = new WebSocket(webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let ownId = 0;
  const chrome = {
    write: (message) => ws.send(JSON.stringify(message)),
    // The relay's own calls (a detach when the lab goes): sent, their answers not awaited.
    send: async (method, params = {}, sessionId = undefined) => void ws.send(JSON.stringify({ id: --ownId, method, params, ...(sessionId && { sessionId }) })),
  };
  const channel = randomBytes(16).toString('hex');
  let relay;
  await new Promise((resolve, reject) => {
    relay = relayToLab(chrome, {
      uiOrigin,
      channel,
      maxMessageBytes: devtoolsLimits.messageMaxBytes,
      onState: (state, why) => (state === 'held' ? resolve() : reject(new Error(`the lab did not take the channel: ${state} ${why}`))),
    });
  }).catch((err) => {
    relay.stop();
    ws.close();
    throw err;
  });
  ws.on('message', (data) => relay.fromChrome(JSON.parse(String(data))));
  return {
    channel,
    end() {
      relay.stop();
      ws.close();
    },
  };
}
