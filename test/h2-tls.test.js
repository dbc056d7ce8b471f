// TLS on the HTTP/2 ports (RFC 9113 §9.2): TLS 1.2's CBC suites are refused, AEAD suites and TLS
// 1.3 are served, and renegotiation never succeeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { h2Ids, serverOf, startTestLab } from './helpers/lab.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab?.close());

/** Connects with `options`; resolves what became of it: 'ok <cipher> <version>' or 'error <code>'. */
function handshake(id, options, then) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port: serverOf(lab, id).port, servername: 'localhost', ca: lab.certs.ca, ALPNProtocols: ['h2'], ...options });
    const timer = setTimeout(() => finish('no answer within 3 s'), 3000);
    function finish(outcome) {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    }
    socket.on('secureConnect', () => (then ? then(socket, finish) : finish(`ok ${socket.getCipher().name} ${socket.getProtocol()}`)));
    socket.on('error', (err) => finish(`error ${err.code ?? err.message}`));
  });
}

for (const id of h2Ids) {
  test(`${id}: a TLS 1.2 client offering only CBC suites is refused`, async () => {
    assert.match(await handshake(id, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:AES128-SHA' }), /^error /);
  });

  test(`${id}: TLS 1.2 with an AEAD suite and TLS 1.3 are served`, async () => {
    assert.match(await handshake(id, { maxVersion: 'TLSv1.2' }), /^ok ECDHE-\w+-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305) TLSv1\.2$/);
    assert.match(await handshake(id, {}), /^ok TLS_\w+ TLSv1\.3$/);
  });

  test(`${id}: renegotiation does not succeed`, async () => {
    const outcome = await handshake(id, { maxVersion: 'TLSv1.2' }, (socket, finish) => {
      socket.on('close', () => finish('closed'));
      socket.renegotiate({}, (err) => finish(err ? `refused ${err.code ?? err.message}` : 'renegotiated'));
    });
    assert.notEqual(outcome, 'renegotiated');
  });
}
