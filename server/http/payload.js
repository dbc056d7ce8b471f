// Every response body is made of one payload chunk allocated at start-up: the classic server
// allocated `size` MiB per request, which measured the allocator as much as the protocol. A
// body longer than the chunk is the chunk repeated (references, not copies), so a 64 MiB
// limit does not keep 64 MiB resident.
import { MiB } from '../../common/units.js';

const chunkBytes = MiB;

// Spaces with a newline every 64 bytes: any prefix is inert as a script body (the page route
// serves payload as JavaScript) and the bytes look like text to anything that inspects them.
const chunk = Buffer.alloc(chunkBytes, ' ');
for (let i = 63; i < chunk.length; i += 64) chunk[i] = 0x0a;

// Runs repeat one size thousands of times: keep the last view instead of making one per request.
let lastBytes = 0;
let lastView = chunk.subarray(0, 0);

/** The body of `bytes` payload bytes: one Buffer, or an array of Buffers for large bodies. */
export function payload(bytes) {
  if (bytes === lastBytes) return lastView;
  if (bytes <= chunkBytes) {
    lastBytes = bytes;
    lastView = chunk.subarray(0, bytes);
    return lastView;
  }
  const parts = new Array(Math.ceil(bytes / chunkBytes)).fill(chunk);
  const rest = bytes % chunkBytes;
  if (rest) parts[parts.length - 1] = chunk.subarray(0, rest);
  return parts;
}

export const bodyLength = (body) => (Array.isArray(body) ? body.reduce((n, b) => n + b.length, 0) : body.length);

// A write is encrypted (and, on spdy, copied into frames) and queued whole, however slowly the
// peer reads: with 1 MiB writes, a connection of 100 streams that stopped reading held 100 MB
// on node:http2 and 75 MB on spdy. In slices, a response holds at most one slice above the
// kernel; 64 KiB is four TLS records, so the writes stay few.
const sliceBytes = 64 * 1024;

/** Writes a body (Buffer or Buffer[]; anything else is ended as it is) to a writable and ends it, minding backpressure. */
export function writeBody(writable, body) {
  const parts = Array.isArray(body) ? body : [body];
  if (!Buffer.isBuffer(parts[0])) return writable.end(body);
  let i = 0;
  let offset = 0;
  // spdy stalls a stream whose writes run past its buffer without waiting for 'drain'.
  const next = () => {
    for (;;) {
      const part = parts[i];
      const slice = part.subarray(offset, offset + sliceBytes);
      offset += slice.length;
      if (offset === part.length) {
        i += 1;
        offset = 0;
      }
      if (i === parts.length) return writable.end(slice);
      if (!writable.write(slice)) return writable.once('drain', next);
    }
  };
  next();
}
