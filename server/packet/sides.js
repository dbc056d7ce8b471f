// The packet network's two sides, the one place for their facts: launch.py gets them from here
// (launcherSides(), passed by launcher.js), inside.js reads the variables it sets, the emulator
// finds the devices where network.js puts them. The server side holds the lab; the browser side, a
// network namespace of its own, the browser.

/** The sides' addresses, in RFC 2544's benchmarking range: nothing outside is ever reached. */
export const serverSideAddress = '198.18.0.1';
export const browserSideAddress = '198.18.0.2';

/**
 * Where a replay's recorded origins live, each at an address of its own (runner/replay/flags.js):
 * the upper half of the sides' /16, which the server side takes as its own (a local route, so a
 * server listening on any address answers on each) and the browser side reaches over its TUN
 * device, through the emulator, as it reaches the server side's address. 198.19.0.0/16, the rest
 * of RFC 2544's range, stays outside both sides (test/packet/corpus.js sends there).
 */
export const originBlock = '198.18.128.0/17';

/** Addresses in originBlock: 128 third octets of 254 each (none ends in 0 or 255). */
const originAddresses = 128 * 254;

/**
 * The address of the `i`-th origin (from 0) in originBlock: 198.18.128.1, …, 198.18.128.254,
 * 198.18.129.1, …
 * @param {number} i
 */
export function originAddress(i) {
  if (!Number.isInteger(i) || i < 0 || i >= originAddresses) throw new RangeError(`no origin address for ${i}: 0–${originAddresses - 1}`);
  return `198.18.${128 + Math.floor(i / 254)}.${(i % 254) + 1}`;
}

/** The TUN device of each side. */
export const tunDevices = Object.freeze({ server: 'h2lab-s', browser: 'h2lab-b' });

/**
 * The UI link: a veth pair beside the TUN devices, between the same two addresses, which carries
 * the lab UI's TCP alone (ui-link.js routes it there once the UI's port is known), so the page's
 * own packets never wait in a TUN device's queue with the measured ones. A route table of each
 * side's own (numbers 1–252 are free for this) holds the route over it. The ends have fixed,
 * locally administered MAC addresses, each side knowing the other's without ARP: strict
 * reverse-path filtering, which keeps everything but the UI's TCP off the link, would refuse ARP's
 * requests there too.
 */
export const uiLink = Object.freeze({
  table: 200,
  server: Object.freeze({ device: 'h2lab-ui-s', mac: '02:68:32:6c:00:01' }),
  browser: Object.freeze({ device: 'h2lab-ui-b', mac: '02:68:32:6c:00:02' }),
});

/** Where the emulator finds each device's descriptor: the positions network.js forks it with. */
export const emulatorTunFds = Object.freeze({ server: 4, browser: 5 });

/** The variables launch.py sets for its command, naming the descriptors it inherits (inside.js takes them). */
export const packetEnv = Object.freeze({
  serverTunFd: 'H2LAB_PACKET_SERVER_TUN_FD',
  browserTunFd: 'H2LAB_PACKET_BROWSER_TUN_FD',
  browserNetnsFd: 'H2LAB_PACKET_BROWSER_NETNS_FD',
  inside: 'H2LAB_PACKET',
});

/** What launch.py needs of these facts: its first argument, as JSON. */
export const launcherSides = () =>
  JSON.stringify({
    server: { address: serverSideAddress, device: tunDevices.server },
    browser: { address: browserSideAddress, device: tunDevices.browser },
    uiLink,
    origins: originBlock,
    variables: packetEnv,
  });
