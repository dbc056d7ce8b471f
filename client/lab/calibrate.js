// "Measure network": what the network really does, whatever preset label the run carries.
// Round-trip time from small probes on a warm connection, download throughput from probes that
// grow until one takes long enough to measure (so a 3G preset does not wait for megabytes).
import { MiB, plainNumber } from '../../common/setup/units.js';
import { limits } from '../../common/setup/settings.js';

const rttProbes = 5;
const firstProbeBytes = 16 * 1024;
const maxProbeBytes = 8 * MiB;
const enoughMs = 300; // a probe this long is dominated by transfer, not by timer granularity

// Timed with the page's clock, not Resource Timing: under DevTools throttling Resource Timing's
// responseStart comes before the emulated latency (seen: 5 ms where the page waited 575 ms at
// Slow 4G), and the calibration is meant to see what the page sees.
// A probe is bounded as a run's requests are (limits.stall): a server that never answers must
// not hold the experiment at "Measuring the network". The largest probe, 64 KiB at GPRS, takes 10 s.
/**
 * @param {string} origin
 * @param {number} bytes
 * @param {{ signal?: AbortSignal, probeTimeoutMs: number }} o
 */
async function probe(origin, bytes, { signal, probeTimeoutMs }) {
  const url = `${origin}/option?size=${plainNumber(bytes / MiB)}&calibrate=${Math.random().toString(36).slice(2)}`;
  const started = performance.now();
  const bounded = AbortSignal.any(/** @type {AbortSignal[]} without the absent one */ ([signal, AbortSignal.timeout(probeTimeoutMs)].filter(Boolean)));
  const res = await fetch(url, { cache: 'no-store', signal: bounded });
  const headersMs = performance.now() - started;
  await res.blob();
  return { headersMs, bodyMs: performance.now() - started - headersMs };
}

/**
 * @param {string} origin a test server's origin (HTTP/2 preferred: one warm connection)
 * @param {{ signal?: AbortSignal, probeTimeoutMs?: number }} [o] probeTimeoutMs: the most one probe may take
 * @returns {Promise<{ rttMs: number, downloadBps: number, probeBytes: number }>}
 */
export async function calibrate(origin, { signal, probeTimeoutMs = limits.stall.ms } = {}) {
  try {
    return await measure(origin, { signal, probeTimeoutMs });
  } catch (err) {
    if (signal?.aborted) throw err;
    // fetch says only "Failed to fetch": name what was being fetched, or the whole run fails unexplained.
    throw new Error(`measuring the network through ${origin} failed: ${/** @type {Error} */ (err).message}`, { cause: err });
  }
}

/**
 * @param {string} origin
 * @param {{ signal?: AbortSignal, probeTimeoutMs: number }} o
 */
async function measure(origin, o) {
  await probe(origin, 0, o); // opens the connection, so RTT probes see no handshake
  const rtts = [];
  for (let i = 0; i < rttProbes; i++) rtts.push((await probe(origin, 0, o)).headersMs);
  // Bandwidth from the difference of the last two probes: whatever arrives with the headers (a
  // first burst through the lab link read 36 % fast at Regular 3G from one probe) is in both and
  // cancels out, as does any fixed cost per response.
  /** @type {{ bytes: number, ms: number }[]} */
  const probes = [];
  for (let bytes = firstProbeBytes; ; bytes = Math.min(bytes * 4, maxProbeBytes)) {
    probes.push({ bytes, ms: (await probe(origin, bytes, o)).bodyMs }); // the body alone: latency is measured above
    if (probes.length >= 2 && (probes[probes.length - 1].ms >= enoughMs || bytes >= maxProbeBytes)) break;
  }
  const [a, b] = probes.slice(-2);
  const downloadBps = b.ms > a.ms ? (b.bytes - a.bytes) / ((b.ms - a.ms) / 1000) : b.bytes / (Math.max(b.ms, 0.001) / 1000);
  // The path's round trip is the least a probe took, as TCP's and BBR's min-RTT filters take it:
  // every probe pays the whole round trip (under DevTools throttling, the preset's latency), and
  // only a hiccup of the machine adds to it. The median read 37.1 ms on loopback with No
  // throttling in a CI run, its probes slowed by the page's own start, and the run was refused
  // as "not No throttling".
  return { rttMs: Math.min(...rtts), downloadBps, probeBytes: b.bytes };
}

/**
 * The server the network is probed through: an HTTP/2 one (one connection), else the first.
 * @template {{ protocol: string }} S
 * @param {S[]} servers
 */
export const probeServerOf = (servers) => servers.find((s) => s.protocol === 'h2') ?? servers[0];
