// GET /api/devtools-channel?devtools=<channel>, upgraded to a WebSocket: how `npm run chrome`
// (runner/browsers/devtools-relay.js) offers the lab its Chrome, which opens no DevTools port. The lab
// takes a channel as an announcement (server/announcement-gate.js: a few at a time, only from a
// process of its own user, not through a proxy) and never from a page (browsers send Origin with
// every WebSocket); the channel lasts while the connection does, and the lab speaks the DevTools
// Protocol over it (server/devtools/page-network.js), which the command relays to Chrome in part.
import { WebSocketServer } from 'ws';
import { devtoolsParam } from '../../common/setup/devtools-network.js';
import { devtoolsLimits } from '../config.js';
import { apiErrors, errors, HttpError } from '../http/errors.js';
import { isDevtoolsChannel } from './page-network.js';

export const channelPath = '/api/devtools-channel';

/**
 * Answers an upgrade the lab refuses as the API answers any request: status and JSON body.
 * @param {import('node:stream').Duplex} socket @param {HttpError} err
 */
function refuse(socket, err) {
  const body = JSON.stringify(err.body);
  socket.end(`HTTP/1.1 ${err.status} ${err.code}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * The UI server's 'upgrade' listener.
 * @param {{ pageNetwork: { holdChannel(channel: string, ws: import('ws').WebSocket): false | (() => void), channelHeld(channel: string): boolean },
 *   isLabHost?: (host: string|undefined) => boolean }} lab
 * @param {{ admit(kind: string, who: string, req: import('node:http').IncomingMessage, port?: number): Promise<() => void> }} gate
 */
export function devtoolsChannels(lab, gate) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: devtoolsLimits.messageMaxBytes });
  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:stream').Duplex} socket  the UI server's: a TCP socket
   * @param {Buffer} head
   */
  return async (req, socket, head) => {
    socket.on('error', () => {}); // a peer gone mid-answer
    try {
      const url = new URL(req.url ?? '/', 'http://lab');
      if (url.pathname !== channelPath) throw apiErrors.notFound(url.pathname);
      if (lab.isLabHost && !lab.isLabHost(req.headers.host)) throw apiErrors.notLabHost(req.headers.host);
      if (req.headers.origin !== undefined) throw apiErrors.pageCannotAnnounce('npm run chrome');
      const channel = url.searchParams.get(devtoolsParam);
      if (!isDevtoolsChannel(channel)) throw errors.badParam(devtoolsParam, `${devtoolsParam} must be the channel npm run chrome made (32 hex digits)`);
      if (lab.pageNetwork.channelHeld(channel)) throw apiErrors.devtoolsChannelHeld();
      const release = await gate.admit('devtools-channel', 'npm run chrome', req);
      if (socket.destroyed) return release(); // the command went while the lab checked it
      wss.handleUpgrade(req, socket, head, (ws) => {
        const withdraw = lab.pageNetwork.holdChannel(channel, ws);
        if (!withdraw) {
          // Taken by another connection while the lab checked this one.
          release();
          return ws.close(4409, 'another connection holds this channel');
        }
        ws.once('close', () => {
          withdraw();
          release();
        });
      });
    } catch (err) {
      refuse(socket, err instanceof HttpError ? err : errors.internal());
    }
  };
}
