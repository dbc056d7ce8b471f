// The packet network's two sides, the one place for their facts: launch.py gets them from here
// (launcherSides(), passed by launcher.js), inside.js reads the variables it sets, the emulator
// finds the devices where network.js puts them. The server side holds the lab; the browser side, a
// network namespace of its own, the browser.

/** The sides' addresses, in RFC 2544's benchmarking range: nothing outside is ever reached. */
export const serverSideAddress = '198.18.0.1';
export const browserSideAddress = '198.18.0.2';

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
    variables: packetEnv,
  });
