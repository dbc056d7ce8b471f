// Run under launch.py by test/packet.test.js: one TCP connection from the browser side to the
// server side, and the congestion control each end's kernel chose for it (ss -ti). One JSON line.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { serverSideAddress } from '../../server/packet/sides.js';
import { startPacketNetwork } from '../../server/packet/network.js';
import { onBrowserSide } from '../../server/packet/inside.js';

const inBrowserSide = onBrowserSide([]);
const algorithm = (command) => execFileSync(command[0], [...command.slice(1), 'ss', '-tin', 'state', 'established'], { encoding: 'utf8' }).match(/(\w+) wscale:/)?.[1] ?? null;

const packet = await startPacketNetwork();
const server = net.createServer();
server.listen(0, '0.0.0.0');
await once(server, 'listening');
const connected = once(server, 'connection');
const client = spawn(inBrowserSide[0], [...inBrowserSide.slice(1), process.execPath, '-e', `require('node:net').connect(${server.address().port}, '${serverSideAddress}'); setTimeout(() => {}, 10000)`], { stdio: 'ignore' });
const [socket] = await connected;
const result = { server: algorithm(['env']), browser: algorithm(inBrowserSide) };
socket.destroy();
client.kill();
server.close();
await packet.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
