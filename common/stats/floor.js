// The least total time a DevTools preset allows for a run, so a chart can show how much of a
// measurement is the emulated network and how much is the servers.
//
// Model (DevTools throttling is request-level, not packet-level: Lighthouse docs/throttling.md):
// - every request waits at least latencyMs between being sent and its response headers, and a
//   request is sent only when a connection (HTTP/1.1: six per host, Chromium's
//   g_max_sockets_per_group) or a stream slot
//   (HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS; HTTP/3: QUIC's initial_max_streams_bidi, taken
//   as the same number: quic-go's default is 100, as the lab's HTTP/2 servers advertise) and
//   the page's dispatch window allow it, so the
//   requests go in ceil(requests / concurrency) rounds of at least latencyMs each;
// - all bodies share one emulated download bandwidth, which can start only after the first
//   latency: latencyMs + total bytes / downloadBps.
// The floor is the larger of the two. It ignores server time, TLS and connection set-up, so a
// real run is always slower; it is a lower bound, not a prediction.
import { isOffline, isThrottled } from '../setup/presets.js';

const http1ConnectionsPerHost = 6;

/**
 * @param {object} o
 * @param {{ downloadBps: number, latencyMs: number }} o.preset  an entry of presets.js
 * @param {number} o.requests
 * @param {number} o.sizeBytes    body bytes per request
 * @param {number} o.maxInFlight  the page's dispatch window
 * @param {'http/1.1'|'h2'|'h3'} o.protocol
 * @param {number} [o.maxStreams] the servers' concurrent stream limit
 * @returns {number|null} milliseconds; null without throttling, Infinity when offline
 */
export function floorMs({ preset, requests, sizeBytes, maxInFlight, protocol, maxStreams = 100 }) {
  if (isOffline(preset)) return Infinity;
  if (!isThrottled(preset)) return null;
  const slots = { 'http/1.1': http1ConnectionsPerHost, h2: maxStreams, h3: maxStreams }[protocol];
  if (slots === undefined) throw new RangeError(`protocol must be 'http/1.1', 'h2' or 'h3', got ${JSON.stringify(protocol)}`);
  const concurrency = Math.min(maxInFlight, slots);
  const latencyBoundMs = Math.ceil(requests / concurrency) * preset.latencyMs;
  if (!(preset.downloadBps > 0)) return latencyBoundMs;
  const bandwidthBoundMs = preset.latencyMs + ((requests * sizeBytes) / preset.downloadBps) * 1000;
  return Math.max(latencyBoundMs, bandwidthBoundMs);
}
