// One point of a runner session on the packet network. The page sets the point's conditions (the
// preset's RTT and rates, and its loss) for its run and puts the previous ones back, and records
// them with the emulator's counters of the run (client/lab/engine.js), as it does for a person;
// the runner's part is the emulator's end: one that dies mid-point fails it with that reason
// instead of leaving the page waiting for packets.

/**
 * @param {{ exited: Promise<string> }} packet lab.packet (server/packet/network.js)
 * @param {() => Promise<object>} measure the page's run; resolves the result
 */
export async function onPacketNetwork(packet, measure) {
  const died = packet.exited.then((why) => Promise.reject(new Error(why)));
  return Promise.race([measure(), died]);
}
