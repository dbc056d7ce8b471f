// The push lab's throttled link against a real HTTP/2 server: the delay and the bandwidth are
// really imposed (lower bounds only: a busy machine may add time, never remove it), the bytes
// arrive whole and in order, and close() leaves nothing open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import { openThrottledLink } from '../runner/throttled-link.js';
import { h2Request, serverOf, startTestLab } from './helpers/lab.js';
import { connectionWindowBytes, streamWindowBytes } from '../runner/push-load.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab.close());

/** One h2 request on a new session to `origin` with a browser's windows; resolves with its time. */
async function timedRequest(origin, path) {
  const session = http2.connect(origin, { ca: lab.certs.ca, settings: { initialWindowSize: streamWindowBytes } });
  session.on('error', () => {});
  await once(session, 'connect');
  session.setLocalWindowSize(connectionWindowBytes);
  try {
    const start = performance.now();
    const r = await h2Request(session, path);
    return { ...r, ms: performance.now() - start, alpn: session.alpnProtocol };
  } finally {
    session.destroy();
  }
}

const through = (link) => `https://localhost:${link.port}`;

test('a request over the link takes at least one round trip of latencyMs', async () => {
  const link = await openThrottledLink({ port: serverOf(lab, 'h2-node').port, latencyMs: 200, downloadBps: -1, uploadBps: -1 });
  try {
    const r = await timedRequest(through(link), '/option?size=0.001&delay=0');
    assert.equal(r.status, 200);
    assert.equal(r.alpn, 'h2');
    assert.equal(r.body.length, Math.floor(0.001 * 1024 * 1024));
    assert.ok(r.ms >= 195, `request took ${r.ms.toFixed(1)} ms through a 200 ms link`);
  } finally {
    await link.close();
  }
});

test('a body crosses the link no faster than downloadBps, whole', async () => {
  const link = await openThrottledLink({ port: serverOf(lab, 'h2-node').port, latencyMs: 0, downloadBps: 1024 * 1024, uploadBps: -1 });
  try {
    const r = await timedRequest(through(link), '/option?size=0.5&delay=0');
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 512 * 1024);
    assert.ok(r.ms >= 490, `0.5 MiB at 1 MiB/s arrived in ${r.ms.toFixed(1)} ms`);
  } finally {
    await link.close();
  }
});

test('close() ends the link and every connection through it', async () => {
  const link = await openThrottledLink({ port: serverOf(lab, 'h2-node').port, latencyMs: 10, downloadBps: -1, uploadBps: -1 });
  const session = http2.connect(through(link), { ca: lab.certs.ca });
  session.on('error', () => {});
  await once(session, 'connect');
  const closed = once(session, 'close');
  await link.close();
  await closed;
  assert.ok(session.destroyed || session.closed);
});
