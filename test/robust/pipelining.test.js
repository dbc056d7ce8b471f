// HTTP/1.1 pipelining on the h1 server (issue 13, item 6): requests written back to back on one
// connection are answered in order, each in full, however many arrive in one write and however
// slowly the client reads; a malformed request behind good ones is answered after them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MiB } from '../../common/setup/units.js';
import { startTestLab } from '../helpers/lab.js';
import * as raw from './raw.js';

let lab;
before(async () => {
  lab = await startTestLab();
});
after(() => lab?.close());

// Node reads a TLS connection in records of up to 16 KiB; the failure needed a write longer than one.
const tlsRecordBytes = 16 * 1024;
// The headers a browser sends with a subresource request, so that 300 requests span several records.
const browserHeaders = [
  'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'accept: */*',
  'accept-encoding: gzip, deflate, br',
  'accept-language: en-US,en;q=0.9',
];

/** GET /option for a body of exactly `bytes` bytes: each response says which request it answers. */
const get = (bytes, delayMs = 0) =>
  `GET /option?size=${(bytes / MiB).toFixed(20)}&delay=${delayMs} HTTP/1.1\r\nhost: localhost\r\n${browserHeaders.join('\r\n')}\r\n\r\n`;

/** The complete responses at the start of `text` (latin1): [{ status, headers, bodyBytes }]. */
function parseResponses(text) {
  const responses = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const [statusLine, ...fields] = text.slice(at, end).split('\r\n');
    const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (text.length < end + 4 + length) break;
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, bodyBytes: length, body: text.slice(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return responses;
}

/** Waits until `count` responses are complete or the connection closes (or timeoutMs). */
async function responsesOf(conn, count, timeoutMs = 10_000) {
  await raw.until(conn, () => parseResponses(conn.text).length >= count, timeoutMs);
  return parseResponses(conn.text);
}

function summary(responses) {
  const counts = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  const firstError = responses.find((r) => r.status !== 200);
  return `${responses.length} responses ${JSON.stringify(counts)}${firstError ? `, first error ${firstError.body}` : ''}`;
}

test('300 requests in one write are all answered, in order, on a connection that stays open', async () => {
  const count = 300;
  const requests = Array.from({ length: count }, (_, i) => get(i)).join('');
  assert.ok(requests.length > 2 * tlsRecordBytes, `the write spans several TLS records (${requests.length} bytes)`);
  const conn = await raw.rawConnect(lab, 'h1');
  conn.socket.write(requests);
  const responses = await responsesOf(conn, count);
  assert.equal(responses.length, count, summary(responses));
  responses.forEach((r, i) => {
    assert.equal(r.status, 200, `response ${i}: ${r.status} ${r.body}`);
    assert.equal(r.bodyBytes, i, `response ${i} answers request ${i}`);
  });
  assert.notEqual(responses.at(-1).headers.connection, 'close');
  assert.equal(conn.closedAt, null);
  conn.socket.destroy();
});

test('a client that reads nothing until it has sent everything still gets every response', async () => {
  // 200 × 128 KiB = 25 MiB of responses, far beyond what the socket buffers hold, so the server
  // must stop reading requests while its output waits and start again as the client reads.
  const count = 200;
  const bytes = 128 * 1024;
  const conn = await raw.rawConnect(lab, 'h1');
  conn.socket.pause();
  await new Promise((resolve) => conn.socket.write(Array.from({ length: count }, () => get(bytes)).join(''), resolve));
  await new Promise((resolve) => setTimeout(resolve, 200));
  conn.socket.resume();
  const responses = await responsesOf(conn, count, 30_000);
  assert.equal(responses.length, count, summary(responses));
  for (const r of responses) assert.deepEqual([r.status, r.bodyBytes], [200, bytes]);
  conn.socket.destroy();
});

test('a request sent while a large response is still being written, then more: every one answered', async () => {
  // The switch to the socket's stream then happens while Node holds the connection paused for that
  // response's writes; the connection used to read nothing more once it drained (a browser's 50
  // parallel fetches hung this way with 128 KiB slices).
  const conn = await raw.rawConnect(lab, 'h1');
  const big = 4 * MiB;
  conn.socket.write(get(big));
  await raw.until(conn, () => conn.text.length > 64 * 1024, 10_000);
  conn.socket.write(get(1));
  await responsesOf(conn, 2);
  for (let i = 3; i <= 5; i++) {
    conn.socket.write(get(i));
    const responses = await responsesOf(conn, i, 5_000);
    assert.equal(responses.length, i, `request ${i} answered: ${summary(responses)}`);
  }
  assert.deepEqual(parseResponses(conn.text).map((r) => r.bodyBytes), [big, 1, 3, 4, 5]);
  conn.socket.destroy();
});

test('a malformed request behind good ones: the good ones answered first, then a 400 and a close', async () => {
  const conn = await raw.rawConnect(lab, 'h1');
  // The first one still thinking when the bad one is parsed: the 400 used to go out first.
  conn.socket.write(`${get(1, 100)}${get(2)}${get(3)}GET /option HTTP/1.1\r\nbad header\r\n\r\n`);
  const responses = await responsesOf(conn, 4);
  await raw.until(conn, () => false, 5_000);
  assert.notEqual(conn.closedAt, null, 'the server closes after the 400');
  assert.deepEqual(responses.map((r) => [r.status, r.bodyBytes]).slice(0, 3), [[200, 1], [200, 2], [200, 3]], summary(responses));
  assert.equal(responses.length, 4, summary(responses));
  assert.equal(responses[3].status, 400);
  assert.match(responses[3].body, /malformed HTTP request \(HPE_/);
});
