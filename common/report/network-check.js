// Does the network the calibration measured match the preset the result will be labelled with?
// A label the browser does not apply (a person chose "Slow 4G" in the page and not in DevTools)
// would otherwise publish loopback numbers as Slow 4G.
import { defaultNetworkId, networkById, networkOf } from '../setup/networks.js';
import { packetCountsOf } from './network-record.js';

/** How far a measurement may be from the preset before the result says they disagree. */
export const networkCheckLimits = Object.freeze({
  // Issue 12: more than 25 % off, either way, is a different network.
  tolerance: 0.25,
  // The page's own round trip adds a few ms to any preset's latency, which is not a mismatch (a
  // person forgetting Slow 4G's 562.5 ms is): measured 5–7 ms at WiFi, DSL and Regular 4G, 11.5 ms
  // at Good 3G's 40 ms under DevTools (its request and response also take their bytes' time).
  rttAllowanceMs: 15,
});

/** @param {number} measured @param {number} expected */
const pct = (measured, expected) => `${measured > expected ? '+' : ''}${Math.round((measured / expected - 1) * 100)} %`;

/**
 * What disagrees between a preset and a calibration ([] when they match, or when there is
 * nothing to compare: no preset, no calibration, Offline).
 * @param {{ label: string, latencyMs: number, downloadBps: number }|null} preset
 * @param {{ rttMs: number, downloadBps: number }|null} calibration
 * @param {string} [network] who throttles (settings.network)
 * @returns {Array<{ quantity: 'rtt'|'download', expected: number, measured: number, text: string }>}
 */
export function networkMismatches(preset, calibration, network = defaultNetworkId) {
  if (!preset || !calibration || preset.downloadBps === 0) return [];
  const { tolerance, rttAllowanceMs } = networkCheckLimits;
  /** @type {ReturnType<typeof networkMismatches>} */
  const found = [];
  const rttOff = Math.abs(calibration.rttMs - preset.latencyMs);
  if (rttOff > rttAllowanceMs && rttOff > tolerance * preset.latencyMs) {
    found.push({
      quantity: 'rtt',
      expected: preset.latencyMs,
      measured: calibration.rttMs,
      text: `round trip ${calibration.rttMs.toFixed(1)} ms measured, ${preset.latencyMs} ms in ${preset.label}${preset.latencyMs > 0 ? ` (${pct(calibration.rttMs, preset.latencyMs)})` : ''}`,
    });
  }
  // An unlimited preset has no rate to compare with; its latency check above still catches a
  // throttled browser, since every throttling preset but Offline has a latency. On the packet
  // network the rate is the emulator's, set and counted, while the download estimate (the
  // difference of two probes, client/lab/calibrate.js) assumes each probe pays the same fixed
  // cost: real TCP slow start after idle costs the smaller probe less, and it read 1.45 MB/s at
  // Fast 4G's 1.01 MB/s (common/setup/networks.js checksDownload). Its round trip still counts.
  if (networkOf(network).checksDownload && preset.downloadBps > 0 && Math.abs(calibration.downloadBps / preset.downloadBps - 1) > tolerance) {
    found.push({
      quantity: 'download',
      expected: preset.downloadBps,
      measured: calibration.downloadBps,
      text: `download ${(calibration.downloadBps / 1e6).toFixed(3)} MB/s measured, ${(preset.downloadBps / 1e6).toFixed(3)} MB/s in ${preset.label} (${pct(calibration.downloadBps, preset.downloadBps)})`,
    });
  }
  return found;
}

/**
 * "RTT 12.3 ms, 1.01 MB/s down"
 * @param {{ rttMs: number, downloadBps: number }} c
 */
export const calibrationText = (c) => `RTT ${c.rttMs.toFixed(1)} ms, ${(c.downloadBps / 1e6).toFixed(2)} MB/s down`;

/** @param {number} bps */
const rate = (bps) => (bps > 0 ? `${(bps / 1e6).toFixed(bps < 1e5 ? 3 : 2)} MB/s` : 'unlimited');

/**
 * A traced direction says its trace, with the mean rate it has (server/path/trace.js).
 * @param {number} bps
 * @param {import('./result.js').TraceRecord|null|undefined} trace
 * @param {string} way
 */
const directionText = (bps, trace, way) => (trace ? `${way} trace ${trace.name} (${rate(bps)} mean, sha256 ${trace.sha256.slice(0, 12)})` : `${rate(bps)} ${way}`);

/** @param {import('./result.js').PathConditionsRecord} l */
const conditionsText = (l) =>
  `RTT ${l.rttMs} ms, ${directionText(l.downloadBps, l.traceDown, 'down')}, ${directionText(l.uploadBps, l.traceUp, 'up')}, queue ${Math.round(l.queueBytes / 1000)} kB`;


/** @param {number} n */
const count = (n) => n.toLocaleString('en-US');

/**
 * "packets delivered 812 down / 455 up, lost 17 / 9, queue-dropped 0 / 0" (the emulator's counters of
 * a run), ", device-dropped 3 / 0" when a sending kernel dropped packets before the emulator read
 * them, and ", refused by the receiver 0 / 2" when a receiving device refused what the emulator wrote.
 * @param {{ down: import('./result.js').PacketCounts, up: import('./result.js').PacketCounts }} counters
 */
export const packetCountsText = ({ down, up }) =>
  `packets delivered ${count(down.delivered)} down / ${count(up.delivered)} up, lost ${count(down.droppedByLoss)} / ${count(up.droppedByLoss)}, ` +
  `queue-dropped ${count(down.droppedByQueue)} / ${count(up.droppedByQueue)}` +
  (down.droppedByDevice || up.droppedByDevice ? `, device-dropped ${count(down.droppedByDevice ?? 0)} / ${count(up.droppedByDevice ?? 0)}` : '') +
  (down.droppedByReceiver || up.droppedByReceiver ? `, refused by the receiver ${count(down.droppedByReceiver ?? 0)} / ${count(up.droppedByReceiver ?? 0)}` : '');

/**
 * A lab network during a run, as set and as counted: "lab link: RTT 165 ms, 1.01 MB/s down, 0.17
 * MB/s up, queue 167 kB"; a network that carries loss adds its loss ("…, loss 2 % each way"), and
 * one that sees packets what its emulator counted ("; packets delivered …"). '' for a network
 * the lab did not set.
 * @param {import('./network-record.js').NetworkRecord} record  network-record.js networkRecordOf
 */
export function networkRecordText(record) {
  const { id, conditions: c } = record;
  if (!c) return '';
  const network = networkOf(id);
  const loss = network.carries.loss ? `, loss ${c.loss} % each way${burstText(c.burst)}` : '';
  const packets = packetCountsOf(record);
  const counted = packets ? `; ${packetCountsText(packets)}` : '';
  return `${network.title}: ${conditionsText(c)}${loss}${counted}`;
}

/**
 * ", bursts 0.51 % → bad, 25 % → good" (Gilbert–Elliott, server/path/loss.js), '' without bursts.
 * @param {{ p: number, r: number }|null|undefined} burst
 */
export const burstText = (burst) => (burst ? `, bursts ${burst.p} % → bad, ${burst.r} % → good` : '');

/** @type {Record<string, string>} who else sets a preset: through DevTools, or nobody */
const devtoolsAppliers = {
  'devtools-port': "the lab, through the Chrome's DevTools port (npm run chrome)",
  runner: 'the runner, through the DevTools Protocol',
  label: 'nobody the lab could see: a label, set in DevTools by hand or not at all',
};

/**
 * Who set a result's preset (environment.presetAppliedBy), in words: a network the lab sets says
 * it itself (common/setup/networks.js appliedBy); null for a result from before it was recorded.
 * @param {string|undefined} who
 */
export const presetAppliedByText = (who) => networkById(who)?.appliedBy ?? devtoolsAppliers[who ?? ''] ?? null;

/**
 * One sentence for the alert, a table note or a runner line.
 * @param {{ label: string }} preset
 * @param {{ text: string }[]} mismatches  networkMismatches()
 */
export const mismatchText = (preset, mismatches) =>
  `The network does not match ${preset.label}: ${mismatches.map((m) => m.text).join('; ')}.`;
