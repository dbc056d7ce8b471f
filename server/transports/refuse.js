// A TLS connection to an HTTP/2 server that did not negotiate h2: answer once, in HTTP/1.1
// since that is what such a client speaks, and make sure the socket goes even if the peer stays.
import { errors } from '../http/errors.js';

/** @param {import('node:net').Socket} socket @param {import('../http/handler.js').Handler} handler @param {number} lingerMs */
export function refuse(socket, handler, lingerMs) {
  socket.end(handler.rawResponse(errors.notHttp2()));
  setTimeout(() => socket.destroy(), lingerMs).unref();
}
