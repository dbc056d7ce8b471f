// Listening on a port the person chose, and the one-line message that names the flag to change
// when the port cannot be had.
import { once } from 'node:events';
import { H2labError } from '../common/setup/errors.js';

/** A start-up failure the person can fix (a port, a host, Caddy): its message is shown as it is. */
export class LabError extends H2labError {
  /** @param {string} message */
  constructor(message) {
    super('cannot-start', message);
  }
}

/**
 * The message for a bind error on `port`, naming `flag`; other errors pass through.
 * @param {NodeJS.ErrnoException} err  as a bind failed @param {number} port @param {string} host @param {string} flag
 */
export function portError(err, port, host, flag) {
  if (err.code === 'EADDRINUSE') return new LabError(`port ${port} on ${host} is in use: choose another with ${flag}`);
  if (err.code === 'EACCES') return new LabError(`no permission to listen on port ${port}: choose another with ${flag}`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return new LabError(`cannot listen on host ${host}: check --host`);
  return err;
}

/**
 * Starts `server` listening and resolves its port. once() rejects on 'error' and takes its
 * listener off either way, so an error the server has later is not swallowed here.
 * @param {import('node:events').EventEmitter & { listen(port: number, host: string): unknown, address(): import('node:net').AddressInfo|string|null }} server
 *   a net.Server or a UDP relay (link/udp-relay.js)
 * @param {number} port @param {string} host @param {string} flag
 * @returns {Promise<number>}
 */
export async function listen(server, port, host, flag) {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    throw portError(/** @type {NodeJS.ErrnoException} */ (err), port, host, flag);
  }
  return /** @type {import('node:net').AddressInfo} listening on a port */ (server.address()).port;
}
