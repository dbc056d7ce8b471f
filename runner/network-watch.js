// One point of a runner session on a network the lab sets (common/setup/networks.js labSets). The page
// sets the point's conditions (the preset's RTT and rates, and its loss) for its run and puts the
// previous ones back, and records them with the network's counters of the run
// (client/lab/engine.js), as it does for a person; the runner's part is the network's end: a
// packet network whose emulator dies mid-point fails it with that reason instead of leaving the
// page waiting for packets.

// The emulator holds the TUN devices' only descriptors, so they vanish as it dies and the page's
// requests fail at once, as likely before the lab hears of the exit as after: the page's failure
// waits this long for the exit, which is then the reason said (the kernel reaps within milliseconds).
const exitGraceMs = 1_000;

/**
 * @template {{ stopped?: boolean }} R
 * @param {{ exited?: Promise<string>, [member: string]: unknown } | undefined} network lab.networks[id] (server/lab.js): one
 *   that can end (the packet network) has `exited`; one the runner cannot see (a lab of --ui) is undefined
 * @param {() => Promise<R>} measure the page's run; resolves the result
 * @returns {Promise<R>}
 */
export async function whileNetworkLasts(network, measure) {
  if (!network?.exited) return measure();
  const packet = /** @type {{ exited: Promise<string> }} */ (network);
  /** @type {Promise<never>} */
  const died = packet.exited.then((why) => Promise.reject(new Error(why)));
  /** @type {() => Promise<string|null>} the exit's reason, or null when it did not come */
  const exitedSoon = () => Promise.race([packet.exited, new Promise((resolve) => setTimeout(resolve, exitGraceMs, null))]);
  /** @type {R} */
  let result;
  try {
    result = await Promise.race([measure(), died]);
  } catch (err) {
    const why = await exitedSoon();
    throw why ? new Error(why) : err;
  }
  if (result?.stopped) {
    const why = await exitedSoon();
    if (why) throw new Error(why);
  }
  return result;
}
