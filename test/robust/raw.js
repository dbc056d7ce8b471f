// Raw TLS connections and hand-built HTTP/2 frames for hostile-traffic tests: node's own clients
// refuse to send most of what these tests need to send.
import tls from 'node:tls';
import { once } from 'node:events';
import { serverOf } from '../helpers/lab.js';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export const type = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 };
export const flag = { END_STREAM: 0x1, END_HEADERS: 0x4 };
export const errorName = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
const typeName = Object.fromEntries(Object.entries(type).map(([k, v]) => [v, k]));

/** One frame: 24-bit length, type, flags, 31-bit stream id, payload (RFC 9113 §4.1). */
export function frame(frameType, flags, streamId, payload = Buffer.alloc(0)) {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = frameType;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

export function settings(entries = {}) {
  const payload = Buffer.alloc(6 * Object.keys(entries).length);
  Object.entries(entries).forEach(([id, value], i) => {
    payload.writeUInt16BE(Number(id), 6 * i);
    payload.writeUInt32BE(value, 6 * i + 2);
  });
  return frame(type.SETTINGS, 0, 0, payload);
}
export const ping = (n = 0) => frame(type.PING, 0, 0, Buffer.alloc(8, n & 0xff));

export function rstStream(streamId, code = 8 /* CANCEL */) {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(type.RST_STREAM, 0, streamId, payload);
}

/** An HPACK integer with an n-bit prefix (RFC 7541 §5.1). */
function hpackInt(value, prefixBits, firstByte = 0) {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [firstByte | value];
  const bytes = [firstByte | max];
  for (value -= max; value >= 128; value >>= 7) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return bytes;
}

const hpackString = (text) => {
  const raw = Buffer.from(text, 'latin1');
  return Buffer.concat([Buffer.from(hpackInt(raw.length, 7)), raw]); // H = 0: no Huffman
};

/** A header block of "literal without indexing, new name" fields: simple and always valid. */
export function hpack(fields) {
  return Buffer.concat(fields.flatMap(([name, value]) => [Buffer.from([0]), hpackString(name), hpackString(value)]));
}

export const requestFields = (path, extra = []) => [
  [':method', 'GET'],
  [':scheme', 'https'],
  [':authority', 'localhost'],
  [':path', path],
  ...extra,
];

/** A complete GET: one HEADERS frame with END_HEADERS and END_STREAM. */
export const getRequest = (streamId, path, extra) =>
  frame(type.HEADERS, flag.END_HEADERS | flag.END_STREAM, streamId, hpack(requestFields(path, extra)));

/**
 * A TLS connection to one of the lab's servers that records what comes back: `frames` (for h2:
 * parsed frame headers, GOAWAY and RST_STREAM decoded), `text` (for http/1.1), and `closed`, a
 * promise of the time in ms from connect to the socket's close.
 */
export async function rawConnect(lab, id, { alpn = serverOf(lab, id).protocol } = {}) {
  const socket = tls.connect({
    host: '127.0.0.1',
    port: serverOf(lab, id).port,
    servername: 'localhost',
    ca: lab.certs.ca,
    ALPNProtocols: [alpn],
  });
  socket.on('error', () => {}); // the server hanging up on an attacker is the expected outcome
  await once(socket, 'secureConnect');
  const start = performance.now();
  const conn = { socket, alpn: socket.alpnProtocol, frames: [], text: '', start, closedAt: null };
  conn.closed = new Promise((resolve) => socket.once('close', () => resolve((conn.closedAt = performance.now() - start))));
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    if (alpn !== 'h2') {
      conn.text += chunk.toString('latin1');
      return;
    }
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      const payload = pending.subarray(9, 9 + length);
      const f = { type: typeName[pending[3]] ?? pending[3], flags: pending[4], streamId: pending.readUInt32BE(5) & 0x7fffffff, length, at: performance.now() - start };
      if (f.type === 'GOAWAY') Object.assign(f, { lastStreamId: payload.readUInt32BE(0) & 0x7fffffff, code: errorName[payload.readUInt32BE(4)] ?? payload.readUInt32BE(4), debug: payload.subarray(8).toString('latin1') });
      if (f.type === 'RST_STREAM') f.code = errorName[payload.readUInt32BE(0)] ?? payload.readUInt32BE(0);
      conn.frames.push(f);
      pending = pending.subarray(9 + length);
    }
  });
  conn.goaway = () => conn.frames.find((f) => f.type === 'GOAWAY');
  conn.resets = () => conn.frames.filter((f) => f.type === 'RST_STREAM');
  return conn;
}

/** Starts an h2 connection the way a client must: preface, then an empty SETTINGS frame. */
export async function h2Raw(lab, id) {
  const conn = await rawConnect(lab, id, { alpn: 'h2' });
  conn.socket.write(Buffer.concat([PREFACE, settings()]));
  return conn;
}

/** Resolves when `done(conn)` holds or the socket closes, or after timeoutMs; never rejects. */
export async function until(conn, done, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (conn.closedAt === null && !done(conn) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return conn;
}

/** What the server did to a connection, as one line for the test's diagnostics. */
export function outcome(conn) {
  const parts = [];
  const goaway = conn.goaway();
  if (goaway) parts.push(`GOAWAY ${goaway.code} at ${goaway.at.toFixed(0)} ms${goaway.debug ? ` (${JSON.stringify(goaway.debug.slice(0, 60))})` : ''}`);
  const resets = conn.resets();
  if (resets.length) parts.push(`${resets.length} RST_STREAM (${[...new Set(resets.map((r) => r.code))].join(', ')})`);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(conn.text);
  if (status) parts.push(`HTTP ${status[1]}`);
  parts.push(conn.closedAt === null ? 'connection still open' : `closed at ${conn.closedAt.toFixed(0)} ms`);
  return parts.join(', ');
}
