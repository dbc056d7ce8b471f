// A cold reset ends TLS resumption: a session the client kept from before the reset no longer
// resumes on any Node server (server/lab.js reset() gives them new ticket keys), so a "cold" run
// pays the full handshake a first visit pays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { ids, serverOf, startTestLab } from './helpers/lab.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab?.close());

/** Connects, offering `session`; resolves whether it resumed and the first ticket it was given (null if none within 1 s). */
function connect(id, session) {
  return new Promise((resolve, reject) => {
    const { port, protocol } = serverOf(lab, id);
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: lab.certs.ca, ALPNProtocols: [protocol === 'h2' ? 'h2' : 'http/1.1'], session });
    let resumed = null;
    const done = (ticket) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ resumed, ticket });
    };
    socket.on('secureConnect', () => (resumed = socket.isSessionReused()));
    // TLS 1.3 tickets come after the handshake, read like data (a resumed session may get none).
    socket.on('session', done);
    socket.on('error', reject);
    socket.resume();
    const timer = setTimeout(() => done(null), 1000);
  });
}

for (const id of ids) {
  test(`${id}: a session resumes until a reset, and not after it`, async () => {
    const first = await connect(id);
    assert.equal(first.resumed, false);
    assert.ok(first.ticket, 'a ticket');
    const again = await connect(id, first.ticket);
    assert.equal(again.resumed, true, 'resumed before the reset');
    await lab.reset();
    const afterReset = await connect(id, first.ticket);
    assert.equal(afterReset.resumed, false, 'a ticket from before the reset opens no session');
  });
}
