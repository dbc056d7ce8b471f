// The page's own way to the lab's UI on the packet network: TCP between the browser side and the
// UI's port leaves the TUN devices for the UI link, the veth pair launch.py makes beside them
// (sides.js uiLink), by a rule on each side that sends that port's TCP to the link's route table.
// Nothing changes for the browser: its names still resolve to the server side's address, and the
// lab sees the connection come from the browser side's address, as before.
//
// Why a path of its own, not priority: the browser side's TUN device queues every packet its side
// sends until the emulator reads it (launch.py TX_QUEUE_PACKETS, 10,000). A process there putting
// packets on the device faster than the emulator reads (300,000–370,000 a second against
// 28,000, docs/robustness.md) keeps that queue full, and the kernel drops each packet that finds
// it full as it arrives, the page's among them: its GETs to the UI waited 0.3–5.8 s or timed out.
// The emulator cannot favour what it never reads, and a priority qdisc on the device would not
// either: the TUN driver takes every packet the qdisc hands it and drops it itself into its full
// ring (drivers/net/tun.c tun_net_xmit), so nothing waits in the qdisc to be reordered. The UI's
// traffic was never measured (the emulator carried it unshaped, carry.js), so taking it off the
// devices changes no run's numbers; it no longer counts as `unshaped`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { onBrowserSide } from './inside.js';
import { browserSideAddress, serverSideAddress, uiLink } from './sides.js';

/**
 * Sends TCP to and from the UI's `port` over the UI link: the browser side's to the server
 * side's address and that port, and the server side's answers from it. Throws one line naming
 * the rule the kernel refused (routing by port needs Linux 4.17).
 * @param {number} port
 */
export async function routeUiOverLink(port) {
  const table = String(uiLink.table);
  const rules = [
    ['ip', 'rule', 'add', 'from', serverSideAddress, 'to', browserSideAddress, 'ipproto', 'tcp', 'sport', String(port), 'lookup', table],
    onBrowserSide(['ip', 'rule', 'add', 'to', serverSideAddress, 'ipproto', 'tcp', 'dport', String(port), 'lookup', table]),
  ];
  for (const [command, ...args] of rules) {
    await promisify(execFile)(command, args).catch((/** @type {Error & { stderr?: string }} */ err) => {
      const why = err.stderr?.trim() || err.message;
      throw new Error(`the packet network's UI link: ${[command, ...args].join(' ')} failed (${why}): routing by port needs Linux 4.17 or later`);
    });
  }
}
