// The browser side's half of relay.js's listenOnBrowserSide: a listening socket on the browser
// side's loopback, made here and handed to the process that started this one, which accepts on it
// itself (a socket keeps the namespace it was made in). Then this one ends.
import net from 'node:net';

const server = net.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  /** @type {NodeJS.Process & { send: (message: unknown, handle: unknown, done: () => void) => void }} */ (process).send(port, server, () => process.exit(0));
});
