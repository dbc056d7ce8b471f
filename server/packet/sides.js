// The packet network's two sides, the one place for their facts: launch.py gets them from here
// (launcherSides(), passed by launcher.js), inside.js reads the variables it sets, the emulator
// finds the devices where network.js puts them. The server side holds the lab; the browser side, a
// network namespace of its own, the browser.

/** The sides' addresses, in RFC 2544's benchmarking range: nothing outside is ever reached. */
export const serverSideAddress = '198.18.0.1';
export const browserSideAddress = '198.18.0.2';

/** The TUN device of each side. */
export const tunDevices = Object.freeze({ server: 'h2lab-s', browser: 'h2lab-b' });

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
    variables: packetEnv,
  });
