// The emulated path's own limits, here beside it so that server/path/ imports nothing above it
// (server/config.js names them with the lab's other limits).
import { MiB } from '../../common/setup/units.js';

/**
 * The emulated path's model (server/path/), under the lab link and the packet network alike: what
 * its queue may hold in memory and how it cuts a stream into pieces. The bounds of its conditions
 * are in common/setup/path-limits.js (the page and the commands check them too).
 */
export const pathLimits = {
  // The path moves a stream's bytes in slices of about this much of its time, so a 1 MiB body
  // flows smoothly instead of in bursts; never less than one TCP segment (1,460 bytes of payload on
  // Ethernet, so GPRS moves a 1,460-byte slice every 228 ms, as the real link would) and never
  // more than 64 KiB (one socket read).
  sliceMs: 2,
  minSliceBytes: 1_460,
  maxSliceBytes: 64 * 1024,
  // What pieces on their way (sent on the path, not yet delivered) may cost per direction before
  // the path stops reading (a datagram or packet is dropped): a memory bound that only the fastest
  // conditions with a long delay reach (16 MiB is the bandwidth-delay product of 1 Gbit/s ×
  // 134 ms); a real receiver's TCP window bounds the same thing (Linux's largest default receive
  // buffer is 6 MiB).
  maxInFlightBytes: 16 * MiB,
  // What a queued piece costs beyond its bytes: its entry, its delivery closure and, for a
  // datagram, its Buffer. Measured per queued 1-byte datagram: 357 B of V8 heap, ~800 B of RSS.
  // Counted, 1-byte pieces fill maxInFlightBytes at ~32,700 (~26 MB of RSS) instead of 16 million
  // (GBs); a full-size slice or datagram (1,460 B and up) pays at most 35 % more.
  queuedPieceBytes: 512,
};

/**
 * Traces uploaded to the lab (POST /api/traces, --trace-down FILE: server/path/traces.js), kept
 * while it runs as their slots, 8 bytes a line: the largest trace (traceBounds.maxLines, 2,000,000
 * lines) keeps 16 MB, a 10-minute recorded LTE trace (some 400,000 lines) 3.2 MB. Before these,
 * the last 16 uploads were kept whatever their size: 17 of the largest added 283–353 MB to the
 * lab's memory.
 */
export const traceUploadLimits = {
  // The lab user's own uploads (its page, the runner's --trace-down): two of the largest, or ten
  // 10-minute LTE traces, more than a sweep names; the oldest goes first.
  ownKeptBytes: 32 * MiB,
  // Everyone else's together (another user's, through a proxy such as npm run dev's, or where the
  // system does not say whose): one of the largest, never at the expense of the lab user's.
  othersKeptBytes: 16 * MiB,
};
