// The emulated path's bounds (server/path/): what conditions the lab link and the packet network
// accept, the same for both. Here, not in server/config.js, because the page and the commands
// check the same bounds before they ask (common/setup/settings.js), so there is one copy of each.
import { MiB } from './units.js';

export const pathBounds = Object.freeze({
  // Round trip: 1.5 × the slowest preset's (3G, 2 s). Chromium abandons a QUIC handshake that
  // hears nothing for 4 s (its net log: "No recent network activity … Timeout:4s"), and a server's
  // first answer comes one round trip after the browser's first datagram: through caddy-h3's twin
  // port 3,500 ms completed and 4,000 ms failed after 4.0 s. 3 s leaves a second for the answer
  // to cross the queue (a 4 kB handshake flight takes 80 ms at 3G's 50 kB/s).
  maxRttMs: 3_000,
  // Rate in bytes per second: from 1 B/s up to 10 Gbit/s, far more than one Node process moves;
  // below that the conditions mean what they say.
  minBps: 1,
  maxBps: 1_250_000_000,
  // The queue, in bytes not yet sent. By default one bandwidth-delay product of the conditions
  // (the classic router-buffer rule, Villamizar and Song 1994: enough for one TCP flow to keep
  // the path busy, anything more only adds delay), and never under minQueueBytes, so that even
  // GPRS (3.2 kB BDP) holds a few full segments.
  minQueueBytes: 16 * 1024,
  maxQueueBytes: 64 * MiB,
  // Loss per direction, in % of packets: past half, TCP spends its time in retransmission
  // timeouts and a run measures only those; 0 is a clean path.
  maxLossPercent: 50,
  // Gilbert–Elliott (server/path/loss.js), % per packet: good → bad up to the same half;
  // bad → good at least 1 % (a burst of 100 packets on average), since 0 would never end a burst.
  maxBurstEnterPercent: 50,
  minBurstLeavePercent: 1,
  maxBurstLeavePercent: 100,
  // A loss seed (common/setup/seeds.js) is a 32-bit unsigned integer: what the generator takes.
  maxLossSeed: 2 ** 32 - 1,
});

/** Gilbert–Elliott's two rates as ranges (common/setup/units.js), for the lab's checks and the runner's --burst. */
export const burstBounds = Object.freeze({
  p: Object.freeze({ min: 0, max: pathBounds.maxBurstEnterPercent, unit: '%' }),
  r: Object.freeze({ min: pathBounds.minBurstLeavePercent, max: pathBounds.maxBurstLeavePercent, unit: '%' }),
});

/**
 * Traces in mahimahi's format (server/path/trace.js): one millisecond per line at which one slot
 * of slotBytes may leave.
 */
export const traceBounds = Object.freeze({
  // mahimahi's MTU-sized delivery opportunity: a 1,500-byte IP packet and its 4-byte tunnel header.
  slotBytes: 1_504,
  // A 10-minute recorded LTE trace has some 400,000 lines (~3 MB); 8 MiB of text holds any the
  // mahimahi repository ships, and parses in well under a second.
  maxTextBytes: 8 * 1024 * 1024,
  maxLines: 2_000_000,
  // A slot must come at least this often, wrap-around included: a run whose requests hear
  // nothing for 45 s fails them (common/setup/settings.js limits.stall.ms), so a longer gap in a trace
  // fails the run by design, not by the servers.
  maxGapMs: 45_000,
});
