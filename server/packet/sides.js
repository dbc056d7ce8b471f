// The packet network's two sides, one place for their facts (launch.py keeps its own copy, being
// Python: SERVER_ADDR, BROWSER_ADDR and the device names there must stay the same as here).
// The server side holds the lab; the browser side, a network namespace of its own, the browser.

/** The sides' addresses, in RFC 2544's benchmarking range: nothing outside is ever reached. */
export const serverSideAddress = '198.18.0.1';
export const browserSideAddress = '198.18.0.2';

/** The TUN device of each side. */
export const tunDevices = Object.freeze({ server: 'h2lab-s', browser: 'h2lab-b' });

/** Where the emulator finds each device's descriptor: the positions network.js forks it with. */
export const emulatorTunFds = Object.freeze({ server: 4, browser: 5 });
