// Every response body is made of one payload chunk allocated at start-up: the classic server
// allocated `size` MiB per request, which measured the allocator as much as the protocol. A
// body longer than the chunk is the chunk repeated (references, not copies), so a 64 MiB
// limit does not keep 64 MiB resident.
import { MiB } from '../../common/setup/units.js';

const chunkBytes = MiB;

// Spaces with a newline every 64 bytes: any prefix is inert as a script body (the page route
// serves payload as JavaScript) and the bytes look like text to anything that inspects them.
const chunk = Buffer.alloc(chunkBytes, ' ');
for (let i = 63; i < chunk.length; i += 64) chunk[i] = 0x0a;

// Runs repeat one size thousands of times: keep the last view instead of making one per request.
let lastBytes = 0;
let lastView = chunk.subarray(0, 0);

/**
 * The body of `bytes` payload bytes: one Buffer, or an array of Buffers for large bodies.
 * @param {number} bytes
 * @returns {Buffer|Buffer[]}
 */
export function payload(bytes) {
  if (bytes === lastBytes) return lastView;
  if (bytes <= chunkBytes) {
    lastBytes = bytes;
    lastView = chunk.subarray(0, bytes);
    return lastView;
  }
  /** @type {Buffer[]} */
  const parts = new Array(Math.ceil(bytes / chunkBytes)).fill(chunk);
  const rest = bytes % chunkBytes;
  if (rest) parts[parts.length - 1] = chunk.subarray(0, rest);
  return parts;
}

/** @param {Buffer|Buffer[]} body */
export const bodyLength = (body) => (Array.isArray(body) ? body.reduce((n, b) => n + b.length, 0) : body.length);

// A write is encrypted (and on spdy framed) and queued whole, however slowly the
// peer reads: with 1 MiB writes, a connection of 100 streams that stopped reading held 100 MB
// on node:http2 and 75 MB on spdy. In slices, a response holds at most one slice above the
// kernel. h1 writes 128 KiB (eight TLS records; a 0.1 MiB body in one write): per 0.1 MiB
// request 106–117 µs of CPU against 119–137 µs at 64 KiB (h2load, 6 connections), and
// bench:browser's h1 batches 0.99–1.07× nginx's against 1.04–1.14× at 64 KiB. 256 KiB saved a
// little more CPU but kept 63 MB of C heap after an abort storm, against 41 MB.
const sliceBytes = 128 * 1024;

// node:http2 writes a body of up to 128 KiB (h1's slice) in one write, and longer ones in 32 KiB
// slices. nghttp2 frames what every stream has queued into each send, and TLS encrypts the send
// whole: at 64 KiB slices a connection of 100 streams held 6.5 MB of ciphertext while its reader
// lagged (bench:hostile: three stalled connections +37–49 MB of RSS, an abort storm +54 MB); at
// 32 KiB either rose +7–26 MB, and 16 KiB made the browser benchmark slower (1.06–1.11× nginx's
// HTTP/2). But a body in slices is sent in runs of a slice: when a stream's slice is out,
// nghttp2 moves to the next stream before the stream's next slice is written, although
// Chromium's priorities (each stream depends exclusively on the one before) ask for one after
// another. 100 × 0.1 MiB then came as runs of 1.7 frames instead of one run per response
// (NetLog), which cost Chromium 800–1,030 ms of CPU per batch against nginx's 710–930 (whose
// runs are whole responses) and put h2-node at 1.04–1.06× nginx; in one write, 635–690 ms
// against 730–745 and 0.91–0.93× (bench:browser, 2026-11-28, docs/performance.md). A connection
// whose reader stops holds at most 128 KiB per stream, as h1's does per connection.
const h2WholeBytes = sliceBytes;
const h2SliceBytes = 32 * 1024;

/** node:http2's slice for a body of `length` bytes: all of it up to h2WholeBytes. @param {number} length */
export const h2SliceFor = (length) => (length <= h2WholeBytes ? Math.max(length, 1) : h2SliceBytes);

// spdy gets the payload's whole chunks (1 MiB): with 64 KiB writes, 1 to 5 of 16 spdy runs of
// 30 × 1.8–2 MiB through the lab link lost one response to a reset stream (Chromium: "Failed to
// fetch"), and with 16 KiB writes an 8 MiB body through the link did (a write failed on a
// stream spdy-transport had aborted); with 1 MiB writes neither happened. spdy (frozen since 2020)
// frames a write under flow control; what it queues are views of the payload, not copies
// (spdy-backpressure.js), so large writes cost no memory there.
export const spdySliceBytes = MiB;

/**
 * Writes a body (Buffer or Buffer[]; anything else is ended as it is) to a writable and ends it,
 * minding backpressure, in writes of at most `slice` bytes.
 * @param {import('node:stream').Writable} writable
 * @param {Buffer|Buffer[]|string|undefined} body
 * @param {number} [slice]
 */
export function writeBody(writable, body, slice = sliceBytes) {
  const parts = /** @type {Buffer[]} Buffers once past the check below */ (Array.isArray(body) ? body : [body]);
  if (!Buffer.isBuffer(parts[0])) return writable.end(body);
  let i = 0;
  let offset = 0;
  // spdy stalls a stream whose writes run past its buffer without waiting for 'drain'.
  const next = () => {
    for (;;) {
      const part = parts[i];
      const piece = part.subarray(offset, offset + slice);
      offset += piece.length;
      if (offset === part.length) {
        i += 1;
        offset = 0;
      }
      if (i === parts.length) return writable.end(piece);
      if (!writable.write(piece)) return writable.once('drain', next);
    }
  };
  next();
}
