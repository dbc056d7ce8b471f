// The Node servers send TLS records of at most transportLimits.tlsRecordBytes: a response's first
// record (its headers) must fit a new connection's first flight, or it waits a round trip
// (docs/throttling.md, "Node's extra round trip"). Read from the bytes on the wire, through a
// tap between a real client and the real server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { once } from 'node:events';
import { ids, isH1, serverOf, startTestLab } from './helpers/lab.js';
import { transportLimits } from '../server/config.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab?.close());

/** A TCP tap in front of `port`: what the server sent, byte for byte, is in `down`. */
async function tap(port) {
  const down = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream);
    upstream.on('data', (chunk) => down.push(chunk));
    upstream.pipe(client);
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: /** @type {net.AddressInfo} */ (server.address()).port, down, close: () => server.close() };
}

/** The lengths of the application-data records (content type 23) in a server's byte stream. */
function appDataRecords(bytes) {
  const lengths = [];
  for (let at = 0; at + 5 <= bytes.length;) {
    const length = bytes.readUInt16BE(at + 3);
    if (bytes[at] === 23) lengths.push(length);
    at += 5 + length;
  }
  return lengths;
}

async function fetchThrough(id, port, path) {
  if (isH1(id)) {
    return new Promise((resolve, reject) => {
      https.get({ host: '127.0.0.1', port, path, servername: 'localhost', ca: lab.certs.ca, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length)).on('end', () => resolve(bytes)).on('error', reject);
      }).on('error', reject);
    });
  }
  const session = http2.connect(`https://localhost:${port}`, { ca: lab.certs.ca });
  try {
    const stream = session.request({ ':path': path });
    let bytes = 0;
    stream.on('data', (c) => (bytes += c.length));
    await once(stream, 'end');
    return bytes;
  } finally {
    session.close();
  }
}

for (const id of ids) {
  test(`${id}: a 0.1 MiB response comes in TLS records of at most ${transportLimits.tlsRecordBytes} bytes of content`, async () => {
    const t = await tap(serverOf(lab, id).port);
    try {
      assert.equal(await fetchThrough(id, t.port, '/option?size=0.1'), 104_857);
      const records = appDataRecords(Buffer.concat(t.down));
      // TLS 1.3 adds a content-type byte and a 16-byte tag to each record's content.
      const overhead = 17;
      assert.ok(records.length >= 104_857 / transportLimits.tlsRecordBytes, `only ${records.length} records`);
      assert.ok(Math.max(...records) <= transportLimits.tlsRecordBytes + overhead, `largest record ${Math.max(...records)} B`);
    } finally {
      t.close();
    }
  });
}
