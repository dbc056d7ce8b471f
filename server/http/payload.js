// One payload buffer for every response body, allocated once at start-up: the classic server
// allocated `size` MiB per request, which measured the allocator as much as the protocol.
import { MiB } from '../config.js';

// Spaces with a newline every 64 bytes: any prefix is inert as a script body (the page route
// serves slices as JavaScript) and the bytes look like text to anything that inspects them.
export function createPayload(maxSizeMiB) {
  const buffer = Buffer.alloc(Math.floor(maxSizeMiB * MiB), ' ');
  for (let i = 63; i < buffer.length; i += 64) buffer[i] = 0x0a;
  return buffer;
}
