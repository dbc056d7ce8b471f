// One point of a runner session on the packet network: its conditions (the preset's RTT and
// rates, and its loss) set before the page measures, the emulator's counters of the point taken
// around it, and no-throttling again after, so a point on another network (the same browser
// reaches every origin through the emulator) meets a clear path. An emulator that dies
// mid-point fails it with that reason instead of leaving the page waiting for packets.
import { networkPreset, parseNetworkConditions } from '../server/packet/conditions.js';

// onLink is a level, not a count: the point's own is what is still on the link at its end.
const difference = (after, before) => Object.fromEntries(Object.keys(after).map((k) => [k, k === 'onLink' ? after[k] : after[k] - before[k]]));

/**
 * @param {{ set, get, counters, exited: Promise<string> }} packet lab.packet (server/packet/network.js)
 * @param {{ preset: string, loss: number }} settings the point's settings
 * @param {() => Promise<object>} measure the page's run; resolves the result
 */
export async function onPacketNetwork(packet, settings, measure) {
  const conditions = await packet.set(parseNetworkConditions({ preset: settings.preset, loss: settings.loss }));
  const before = await packet.counters();
  const died = packet.exited.then((why) => Promise.reject(new Error(why)));
  const result = await Promise.race([measure(), died]);
  const after = await packet.counters();
  await packet.set(networkPreset('no-throttling'));
  result.environment.presetAppliedBy = 'packet';
  // The calibration's download estimate (client/lab/calibrate.js: the difference of two probes)
  // assumes each probe pays the same fixed cost; real TCP slow start after idle costs the smaller
  // probe less, and it read 1.45 MB/s at Fast 4G's 1.01 MB/s. The rate here is the emulator's,
  // set above and counted; a round trip off the preset still invalidates the point.
  const { networkMismatches = [] } = result.environment;
  result.environment.networkMismatches = networkMismatches.filter((m) => m.quantity !== 'download');
  result.environment.packet = { conditions, counters: { down: difference(after.down, before.down), up: difference(after.up, before.up) } };
  return result;
}
