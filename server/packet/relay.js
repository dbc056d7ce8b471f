// A TCP port of the browser side's loopback, reached from this side's: Firefox's WebDriver BiDi
// listens on loopback alone, and the runner drives it from the server side (runner/browsers/browsers.js);
// and a port there this side answers (listenOnBrowserSide).
// A listening socket made here keeps this side's network namespace wherever it goes, so a relay
// process started on the browser side (relay-side.js) is handed it and accepts on it, connecting
// each connection to the same port of its own loopback. The port is one free here; the browser
// side is a namespace of the lab's own, where nothing else listens.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { onBrowserSide } from './inside.js';

const relaySide = fileURLToPath(new URL('./relay-side.js', import.meta.url));
const listenSide = fileURLToPath(new URL('./listen-side.js', import.meta.url));

/**
 * Resolves { port, close() } once the relay accepts: connections to this side's 127.0.0.1:port
 * reach the browser side's 127.0.0.1:port. The relay ends with close(), or with this process.
 * @returns {Promise<{ port: number, close: () => void }>}
 */
export async function relayToBrowserSide() {
  const server = net.createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const [command, ...args] = onBrowserSide([process.execPath, relaySide]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    await new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the browser side's relay exited (${code}) before it accepted`)));
      child.once('message', resolve); // it says when it holds the socket
      child.send(port, server);
    });
  } catch (err) {
    child.kill();
    throw err;
  } finally {
    server.close(); // this process's copy: the relay accepts on its own
  }
  return { port, close: () => void child.kill() };
}

/**
 * The other way: a listening socket on the browser side's loopback that this process accepts on,
 * so that what the browser asks there (the replay's DNS for Firefox, runner/replay/doh.js) is
 * answered here without crossing the emulated path. Resolves once it is this process's.
 * @returns {Promise<{ port: number, server: import('node:net').Server }>}
 */
export function listenOnBrowserSide() {
  const [command, ...args] = onBrowserSide([process.execPath, listenSide]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the browser side's listener exited (${code}) before it handed its socket over`)));
    child.once('message', (/** @type {number} */ port, /** @type {import('node:net').Server} */ server) => resolve({ port, server }));
  });
}
