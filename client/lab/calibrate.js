// "Measure network": what the network really does, whatever preset label the run carries.
// Round-trip time from small probes on a warm connection, download throughput from probes that
// grow until one takes long enough to measure (so a 3G preset does not wait for megabytes).
import { median } from 'simple-statistics';
import { fetchEntry, plainNumber } from './timing.js';

const rttProbes = 5;
const firstProbeBytes = 64 * 1024;
const maxProbeBytes = 8 * 1024 * 1024;
const enoughMs = 300; // a probe this long is dominated by transfer, not by timer granularity
const MiB = 1024 * 1024;

async function probe(origin, bytes, signal) {
  const url = `${origin}/option?size=${plainNumber(bytes / MiB)}&calibrate=${Math.random().toString(36).slice(2)}`;
  const entry = await fetchEntry(url, { signal });
  if (!entry) throw new Error('no Resource Timing entry for the calibration probe');
  return entry;
}

/**
 * @param {string} origin a test server's origin (HTTP/2 preferred: one warm connection)
 * @returns {Promise<{ rttMs: number, downloadBps: number, probeBytes: number }>}
 */
export async function calibrate(origin, { signal } = {}) {
  await probe(origin, 0, signal); // opens the connection, so RTT probes see no handshake
  const rtts = [];
  for (let i = 0; i < rttProbes; i++) {
    const e = await probe(origin, 0, signal);
    rtts.push(e.responseStart - e.requestStart);
  }
  let bytes = firstProbeBytes;
  let downloadBps;
  for (;;) {
    const e = await probe(origin, bytes, signal);
    const transferMs = e.responseEnd - e.responseStart; // the body alone: latency is measured above
    downloadBps = bytes / (Math.max(transferMs, 0.001) / 1000);
    if (transferMs >= enoughMs || bytes >= maxProbeBytes) break;
    bytes = Math.min(bytes * 4, maxProbeBytes);
  }
  return { rttMs: median(rtts), downloadBps, probeBytes: bytes };
}
