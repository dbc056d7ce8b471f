// Does the network the calibration measured match the preset the result will be labelled with?
// A label the browser does not apply (a person chose "Slow 4G" in the page and not in DevTools)
// would otherwise publish loopback numbers as Slow 4G.

/** How far a measurement may be from the preset before the result says they disagree. */
export const networkCheckLimits = Object.freeze({
  // Issue 12: more than 25 % off, either way, is a different network.
  tolerance: 0.25,
  // The page's own round trip adds a few ms to any preset's latency, which is not a mismatch (a
  // person forgetting Slow 4G's 562.5 ms is): measured 5–7 ms at WiFi, DSL and Regular 4G, 11.5 ms
  // at Good 3G's 40 ms under DevTools (its request and response also take their bytes' time).
  rttAllowanceMs: 15,
});

const pct = (measured, expected) => `${measured > expected ? '+' : ''}${Math.round((measured / expected - 1) * 100)} %`;

/**
 * What disagrees between a preset and a calibration ([] when they match, or when there is
 * nothing to compare: no preset, no calibration, Offline).
 * @param {{ label: string, latencyMs: number, downloadBps: number }|null} preset
 * @param {{ rttMs: number, downloadBps: number }|null} calibration
 * @returns {Array<{ quantity: 'rtt'|'download', expected: number, measured: number, text: string }>}
 */
export function networkMismatches(preset, calibration) {
  if (!preset || !calibration || preset.downloadBps === 0) return [];
  const { tolerance, rttAllowanceMs } = networkCheckLimits;
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
  // throttled browser, since every throttling preset but Offline has a latency.
  if (preset.downloadBps > 0 && Math.abs(calibration.downloadBps / preset.downloadBps - 1) > tolerance) {
    found.push({
      quantity: 'download',
      expected: preset.downloadBps,
      measured: calibration.downloadBps,
      text: `download ${(calibration.downloadBps / 1e6).toFixed(3)} MB/s measured, ${(preset.downloadBps / 1e6).toFixed(3)} MB/s in ${preset.label} (${pct(calibration.downloadBps, preset.downloadBps)})`,
    });
  }
  return found;
}

/** One sentence for the alert, a table note or a runner line. */
export const mismatchText = (preset, mismatches) =>
  `The network does not match ${preset.label}: ${mismatches.map((m) => m.text).join('; ')}.`;
