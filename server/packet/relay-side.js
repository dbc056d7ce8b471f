// The browser side's half of relay.js: handed a listening socket of the server side and a port,
// it connects each connection it accepts to that port of its own loopback. It ends when the
// process that started it does (the IPC channel closes).
import net from 'node:net';

process.once('message', (/** @type {number} */ port, /** @type {import('node:net').Server} */ server) => {
  server.on('connection', (from) => {
    const to = net.connect(port, '127.0.0.1');
    for (const [a, b] of [[from, to], [to, from]]) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
    from.pipe(to).pipe(from);
  });
  /** @type {NodeJS.Process & { send: (message: unknown) => void }} */ (process).send('ready');
});
process.once('disconnect', () => process.exit(0));
