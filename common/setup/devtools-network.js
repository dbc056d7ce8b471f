// Network emulation through the DevTools Protocol: the same Network.emulateNetworkConditions that
// DevTools sends when a person picks a preset, so the runner's numbers match what they see. Every
// apply is paired with a clear (as Lighthouse does), so no preset outlives the run it was for.
// `session` is anything with send(method, params) → Promise, such as playwright's CDPSession.
import { isOffline } from './presets.js';

/**
 * The query parameter that names the lab's page a way to its own Chrome's DevTools: the channel
 * `npm run chrome` holds open to the lab (32 hex digits: runner/browsers/devtools-relay.js), or the
 * DevTools port of a Chrome the person started, which the lab uses once they confirm it in the
 * page (server/devtools/page-network.js).
 */
export const devtoolsParam = 'devtools';

/**
 * The query parameter `npm run chrome` adds when that Chrome runs without its sandbox (it refuses
 * it as root): the page says so in one line, as the command does.
 */
export const noSandboxParam = 'nosandbox';

/** @typedef {{ send(method: string, params?: object): Promise<unknown> }} CdpSession  playwright's CDPSession or the lab's own CDP connection */

// Network.enable is needed once per session before emulation; later presets reuse it.
/** @type {WeakSet<CdpSession>} */
const enabledSessions = new WeakSet();

// CDP reads −1 throughput as "not limited" (devtools-protocol, Network.emulateNetworkConditions);
// the table's No throttling already holds these numbers.
const unthrottled = Object.freeze({ offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

/**
 * Applies a preset from common/setup/presets.js to every request of the session's target.
 * @param {CdpSession} session
 * @param {import('./presets.js').Preset} preset
 */
export async function applyPreset(session, preset) {
  if (!enabledSessions.has(session)) {
    await session.send('Network.enable');
    enabledSessions.add(session);
  }
  await session.send('Network.emulateNetworkConditions', {
    offline: isOffline(preset),
    latency: preset.latencyMs,
    downloadThroughput: preset.downloadBps,
    uploadThroughput: preset.uploadBps,
  });
}

/** @param {CdpSession} session */
export async function clearNetwork(session) {
  await session.send('Network.emulateNetworkConditions', { ...unthrottled });
}

/**
 * Runs fn under the preset and clears the emulation afterwards, also when fn throws; returns fn's result.
 * @template T
 * @param {CdpSession} session
 * @param {import('./presets.js').Preset} preset
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withPreset(session, preset, fn) {
  await applyPreset(session, preset);
  let failed = true;
  try {
    const result = await fn();
    failed = false;
    return result;
  } finally {
    // After fn failed, its error is the one that says what went wrong; a clear that fails too
    // (the page or the browser is gone) must not replace it.
    await clearNetwork(session).catch((err) => {
      if (!failed) throw err;
    });
  }
}
