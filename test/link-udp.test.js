// The lab link's UDP twin port (server/link/udp-relay.js) against a real UDP echo server and real
// client sockets: datagrams pass whole and in order, pay the link's delay and bandwidth, are
// dropped at a full queue and counted, get one upstream socket per client, flows are bounded (per
// relay, in all, by the descriptor limit, sooner when the server never answered), a held port
// answers with ICMP port unreachable until it is released, and a busy port, a target that is down
// or a closed relay never crash the process.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { linkLimits, pathLimits } from '../server/config.js';
import { createPath } from '../server/path/path.js';
import { presetConditions } from '../server/path/conditions.js';
import { createUdpRelay } from '../server/link/udp-relay.js';
import { createFlowTable } from '../server/link/udp-flows.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups = []; // closes every socket and relay a test opened
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
  await sleep(5); // a dgram socket says 'close' a turn before libuv lets go of its handle
});

async function until(condition, what, timeoutMs = 5_000) {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function udpSocket(port = 0, host = '127.0.0.1') {
  const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
  cleanups.push(() => new Promise((resolve) => socket.close(resolve)).catch(() => {}));
  socket.bind(port, host);
  await once(socket, 'listening');
  return socket;
}

/** The relay is closed after the test unless the test closed it. */
function closeLater(relay) {
  const closed = once(relay, 'close');
  cleanups.push(() => relay.close() && closed);
  return relay;
}

/**
 * A UDP echo server; `sources` lists the source port of every datagram it got. It answers only
 * the datagrams `answers` accepts (a server ignores what is not a valid QUIC packet).
 */
async function echoTarget(port = 0, answers = () => true) {
  const socket = await udpSocket(port);
  const sources = [];
  socket.on('message', (datagram, from) => {
    sources.push(from.port);
    if (answers(datagram)) socket.send(datagram, from.port, from.address);
  });
  return { socket, port: socket.address().port, sources };
}

async function relayTo(targetPort, conditions = presetConditions('no-throttling'), flowTable = undefined) {
  const path = createPath(conditions);
  const relay = closeLater(createUdpRelay({ path, targetPort, targetHost: '127.0.0.1', flowTable }));
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  return relay;
}

/** A client socket that keeps what it receives, with its arrival time. */
async function client(relay, host = '127.0.0.1') {
  const socket = await udpSocket(0, host);
  const inbox = [];
  socket.on('message', (datagram) => inbox.push({ datagram, at: performance.now() }));
  return { inbox, send: (datagram) => socket.send(datagram, relay.address().port, host) };
}

/** Sends in bursts of ten, so neither socket's receive buffer (208 KiB) overflows in the kernel. */
async function sendAll(from, datagrams) {
  for (let i = 0; i < datagrams.length; i += 10) {
    for (const d of datagrams.slice(i, i + 10)) from.send(d);
    await new Promise(setImmediate);
  }
}

/** Datagram i of a test: its index in the first two bytes, then random bytes. */
const numbered = (i, bytes) => Buffer.concat([Buffer.from([i >> 8, i & 255]), randomBytes(bytes - 2)]);
const indexOf = (datagram) => datagram.readUInt16BE(0);
const udpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;

/** Runs `fn` with some of config.js's linkLimits changed, as a test's smaller bounds. */
async function withLinkLimits(values, fn) {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, linkLimits[k]]));
  Object.assign(linkLimits, values);
  try {
    return await fn();
  } finally {
    Object.assign(linkLimits, saved);
  }
}

test('no throttling: a burst of 50 datagrams of 1 to 1,400 bytes comes back byte-identical and in order', async () => {
  const target = await echoTarget();
  const relay = await relayTo(target.port);
  const c = await client(relay);
  const sent = Array.from({ length: 50 }, (_, i) => randomBytes(1 + ((i * 389) % 1400)));
  for (const d of sent) c.send(d);
  await until(() => c.inbox.length === 50, '50 echoes');
  assert.deepEqual(c.inbox.map((r) => r.datagram), sent);
  assert.deepEqual(relay.stats(), { flows: 1, datagramsUp: 50, datagramsDown: 50, droppedUp: 0, droppedDown: 0, flowsRefused: 0 });
});

test('a 100 ms round trip: an echo takes 100 ms, with no handshake round trip before the first datagram', async () => {
  const target = await echoTarget();
  const relay = await relayTo(target.port, { ...presetConditions('no-throttling'), rttMs: 100 });
  const c = await client(relay);
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    c.send(numbered(i, 100));
    await until(() => c.inbox.length === i + 1, 'the echo');
    const ms = c.inbox[i].at - start;
    // Each direction may deliver half a millisecond early (timers fire on whole milliseconds).
    assert.ok(ms >= 99, `echo ${i} took ${ms.toFixed(1)} ms, under the 100 ms round trip`);
    assert.ok(ms < 190, `echo ${i} took ${ms.toFixed(1)} ms: two round trips would mean a handshake delay`);
  }
});

test('1 Mbit/s down: datagrams arrive at 125,000 B/s ± 15 %, all of them, whole', async () => {
  const target = await echoTarget();
  const downloadBps = 125_000;
  const relay = await relayTo(target.port, { ...presetConditions('no-throttling'), downloadBps, queueBytes: 1024 * 1024 });
  const c = await client(relay);
  const sent = Array.from({ length: 120 }, (_, i) => numbered(i, 1_200));
  await sendAll(c, sent);
  await until(() => c.inbox.length === sent.length, '120 echoes');
  assert.deepEqual(c.inbox.map((r) => r.datagram), sent);
  // The first datagram's arrival starts the clock; the other 119 took the link's time.
  const seconds = (c.inbox.at(-1).at - c.inbox[0].at) / 1000;
  const rate = (119 * 1_200) / seconds;
  assert.ok(Math.abs(rate - downloadBps) <= downloadBps * 0.15, `measured ${rate.toFixed(0)} B/s, set ${downloadBps} B/s`);
});

test('tail drop: a 60 kB burst into a 4 kB queue drops the excess, counts it, and delivers the rest whole and in order', async () => {
  const target = await echoTarget();
  const relay = await relayTo(target.port, { ...presetConditions('no-throttling'), downloadBps: 100_000, queueBytes: 4_000 });
  const c = await client(relay);
  const sent = Array.from({ length: 60 }, (_, i) => numbered(i, 1_000));
  await sendAll(c, sent);
  await until(() => target.sources.length === 60, 'the target to echo all 60');
  await until(() => relay.stats().datagramsDown + relay.stats().droppedDown === 60, 'every echo to reach the link');
  const stats = relay.stats();
  await until(() => c.inbox.length === stats.datagramsDown, 'the datagrams the link took');
  await sleep(100); // nothing more arrives: the dropped ones are gone
  assert.equal(c.inbox.length, stats.datagramsDown);
  assert.equal(stats.datagramsUp, 60);
  assert.equal(stats.droppedUp, 0);
  assert.ok(stats.droppedDown >= 30, `${stats.droppedDown} of 60 dropped: a 4 kB queue holds about 5`);
  assert.ok(stats.datagramsDown >= 4, `${stats.datagramsDown} of 60 delivered`);
  const indexes = c.inbox.map((r) => indexOf(r.datagram));
  assert.deepEqual(indexes, [...indexes].sort((a, b) => a - b), 'in the order sent');
  for (const { datagram } of c.inbox) assert.deepEqual(datagram, sent[indexOf(datagram)]);
});

test('1-byte datagrams at a long round trip: each counts its bookkeeping, so the link holds at most maxInFlightBytes / (1 + queuedPieceBytes) and drops the rest', () =>
  withLinkLimits({ maxInFlightBytes: 256 * 1024 }, async () => {
    const target = await echoTarget(0, () => false);
    const relay = await relayTo(target.port, { ...presetConditions('no-throttling'), rttMs: 2_000 });
    const c = await client(relay);
    await sendAll(c, Array.from({ length: 3_000 }, () => Buffer.alloc(1)));
    await until(() => relay.stats().datagramsUp + relay.stats().droppedUp === 3_000, 'the relay to read all 3,000');
    const held = Math.ceil(pathLimits.maxInFlightBytes / (1 + pathLimits.queuedPieceBytes)) + 1;
    assert.ok(relay.stats().datagramsUp <= held, `${relay.stats().datagramsUp} datagrams on the link, at most ${held} fit`);
    assert.equal(relay.stats().droppedUp, 3_000 - relay.stats().datagramsUp);
  }));

test('one flow per client: its own upstream port and its own echoes; pairs tears flows down, a later datagram opens a new one', async () => {
  const target = await echoTarget();
  const relay = await relayTo(target.port);
  const a = await client(relay);
  const b = await client(relay);
  const sockets = udpSockets();
  a.send(Buffer.from('from a'));
  b.send(Buffer.from('from b'));
  a.send(Buffer.from('a again'));
  await until(() => a.inbox.length === 2 && b.inbox.length === 1, 'the echoes');
  assert.deepEqual(a.inbox.map((r) => r.datagram.toString()), ['from a', 'a again']);
  assert.deepEqual(b.inbox.map((r) => r.datagram.toString()), ['from b']);
  assert.equal(new Set(target.sources).size, 2, `source ports seen by the target: ${target.sources}`);
  assert.equal(target.sources[0], target.sources[2], "a's two datagrams share its flow");
  assert.equal(relay.pairs.size, 2);
  assert.equal(relay.stats().flows, 2);
  assert.equal(udpSockets(), sockets + 2, 'one upstream socket per flow');
  for (const teardown of relay.pairs) teardown();
  assert.equal(relay.pairs.size, 0);
  assert.equal(relay.stats().flows, 0);
  await until(() => udpSockets() === sockets, 'the upstream sockets to close');
  a.send(Buffer.from('a, later'));
  await until(() => a.inbox.length === 3, 'the echo through a new flow');
  assert.equal(a.inbox[2].datagram.toString(), 'a, later');
  assert.equal(relay.pairs.size, 1);
});

test('a flow idle for udpFlowIdleMs is closed; a datagram either way keeps it open', () =>
  withLinkLimits({ udpFlowIdleMs: 300 }, async () => {
    const target = await echoTarget();
    const relay = await relayTo(target.port);
    const c = await client(relay);
    for (let i = 0; i < 6; i++) {
      c.send(numbered(i, 10));
      await sleep(100);
    }
    const [upstreamPort] = target.sources;
    // Now the server speaks alone (the browser is only reading): that keeps the flow too.
    for (let i = 0; i < 6; i++) {
      target.socket.send(numbered(100 + i, 10), upstreamPort, '127.0.0.1');
      await sleep(100);
    }
    assert.equal(relay.stats().flows, 1, 'a flow with a datagram every 100 ms stays');
    assert.equal(new Set(target.sources).size, 1, 'and keeps its source port');
    assert.equal(c.inbox.length, 12);
    await until(() => relay.stats().flows === 0, 'the idle flow to close', 1_000);
    assert.equal(relay.pairs.size, 0);
  }));

test('a flow the server never answered closes after udpUnansweredIdleMs; an answered one stays', () =>
  withLinkLimits({ udpUnansweredIdleMs: 200, udpFlowIdleMs: 10_000 }, async () => {
    const target = await echoTarget(0, (d) => d.toString() !== 'junk');
    const relay = await relayTo(target.port);
    const [browser, sender] = [await client(relay), await client(relay)];
    browser.send(Buffer.from('hello'));
    sender.send(Buffer.from('junk'));
    await until(() => browser.inbox.length === 1 && relay.stats().flows === 2, 'the echo, two flows');
    await until(() => relay.stats().flows === 1, 'the unanswered flow to close', 2_000);
    browser.send(Buffer.from('still here'));
    await until(() => browser.inbox.length === 2, 'the second echo');
    assert.equal(new Set(target.sources).size, 2, 'the answered flow kept its source port');
  }));

/** `n` clients that each send `text` once; resolves once the relay has read them all. */
async function clientsSaying(relay, n, text) {
  const clients = [];
  for (let i = 0; i < n; i++) {
    const c = await client(relay);
    c.send(Buffer.from(text));
    clients.push(c);
  }
  return clients;
}

test('flows per relay are bounded: the oldest the server never answered makes room, and with all answered a new client is refused', () =>
  withLinkLimits({ maxUdpFlowsPerRelay: 3 }, async () => {
    const target = await echoTarget(0, (d) => d.toString() !== 'junk');
    const relay = await relayTo(target.port);
    const browsers = await clientsSaying(relay, 2, 'hello');
    await until(() => browsers.every((b) => b.inbox.length === 1), 'two answered flows');
    await clientsSaying(relay, 5, 'junk'); // each takes the previous one's flow
    await until(() => target.sources.length === 7, 'the junk to reach the target');
    assert.equal(relay.stats().flows, 3);
    const [late] = await clientsSaying(relay, 1, 'hello'); // takes the last junk flow's place
    await until(() => late.inbox.length === 1, 'the late browser answered');
    const [refused] = await clientsSaying(relay, 1, 'hello');
    await until(() => relay.stats().flowsRefused === 1, 'a refused flow');
    assert.equal(relay.stats().flows, 3);
    assert.equal(refused.inbox.length, 0);
    for (const b of browsers) b.send(Buffer.from('again'));
    await until(() => browsers.every((b) => b.inbox.length === 2), 'the first browsers still served');
  }));

test('flows are bounded in all across the relays that share a table: a new one closes the oldest unanswered, wherever it is', () =>
  withLinkLimits({ maxUdpFlows: 2 }, async () => {
    const target = await echoTarget(0, () => false);
    const table = createFlowTable();
    const relays = [await relayTo(target.port, undefined, table), await relayTo(target.port, undefined, table)];
    const total = () => relays.reduce((n, r) => n + r.stats().flows, 0);
    for (let i = 0; i < 6; i++) {
      await clientsSaying(relays[i % 2], 1, 'junk');
      await until(() => target.sources.length === i + 1, 'the datagram to reach the target');
      assert.ok(total() <= 2, `${total()} flows open after ${i + 1} clients`);
    }
    assert.deepEqual(relays.map((r) => r.stats().flows), [1, 1], 'the two newest, one per relay');
    assert.equal(relays[0].stats().flowsRefused + relays[1].stats().flowsRefused, 0);
  }));

test('the flows take at most udpFlowsFdShare of the descriptor limit (a lab under ulimit -n 256: 64)', () => {
  const script = `
    import dgram from 'node:dgram';
    import { once } from 'node:events';
    import { createPath } from './server/path/path.js';
    import { presetConditions } from './server/path/conditions.js';
    import { createUdpRelay } from './server/link/udp-relay.js';
    const target = dgram.createSocket('udp4').bind(0, '127.0.0.1');
    await once(target, 'listening');
    const relay = createUdpRelay({ path: createPath(presetConditions('no-throttling')), targetPort: target.address().port, targetHost: '127.0.0.1' });
    relay.listen(0, '127.0.0.1');
    await once(relay, 'listening');
    for (let i = 0; i < 100; i++) {
      const c = dgram.createSocket('udp4');
      c.send('x', relay.address().port, '127.0.0.1', () => c.close());
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    console.log(JSON.stringify(relay.stats()));
    process.exit(0);`;
  const run = spawnSync('bash', ['-c', 'ulimit -n 256 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 0, run.stderr);
  const stats = JSON.parse(run.stdout);
  assert.equal(stats.flows, 64);
  assert.equal(stats.flowsRefused, 0, 'the oldest unanswered made room each time');
});

test('hold() unbinds the port: a connected client gets ECONNREFUSED (ICMP), then release() serves the same port again', async () => {
  const target = await echoTarget();
  const relay = await relayTo(target.port);
  const port = relay.address().port;
  const browser = await udpSocket(); // connected, as Chromium's QUIC sockets are
  browser.connect(port, '127.0.0.1');
  await once(browser, 'connect');
  const inbox = [];
  const errors = [];
  browser.on('message', (datagram) => inbox.push(datagram.toString()));
  browser.on('error', (err) => errors.push(err.code));
  browser.send(Buffer.from('before'));
  await until(() => inbox.length === 1, 'the first echo');
  await relay.hold();
  assert.equal(relay.pairs.size, 0, 'flows are closed while held');
  browser.send(Buffer.from('while held'));
  await until(() => errors.length === 1, 'the port-unreachable error');
  assert.deepEqual(errors, ['ECONNREFUSED']);
  await relay.release();
  assert.equal(relay.address().port, port);
  browser.send(Buffer.from('after'));
  await until(() => inbox.length === 2, 'the echo after release');
  assert.deepEqual(inbox, ['before', 'after']);
});

test('a port in use is an error event with EADDRINUSE, not a throw; close() still emits close', async () => {
  const busy = await udpSocket();
  const relay = createUdpRelay({ path: createPath(presetConditions('no-throttling')), targetPort: 9, targetHost: '127.0.0.1' });
  relay.listen(busy.address().port, '127.0.0.1');
  const noError = new Promise((resolve, reject) => setTimeout(reject, 2_000, new Error('no error event')).unref());
  const [err] = await Promise.race([once(relay, 'error'), noError]);
  assert.equal(err.code, 'EADDRINUSE');
  assert.equal(relay.listening, false);
  assert.equal(relay.address(), null);
  relay.close();
  await once(relay, 'close');
});

test('a target that is down: datagrams are lost without a crash, and the same flow carries them once it is up', async () => {
  const gone = await udpSocket();
  const targetPort = gone.address().port;
  await new Promise((resolve) => gone.close(resolve));
  const relay = await relayTo(targetPort);
  const c = await client(relay);
  for (let i = 0; i < 5; i++) {
    c.send(numbered(i, 100)); // each draws an ICMP port unreachable: ECONNREFUSED on the upstream socket
    await sleep(20);
  }
  assert.equal(c.inbox.length, 0);
  assert.equal(relay.stats().datagramsUp, 5);
  const target = await echoTarget(targetPort);
  c.send(numbered(5, 100));
  await until(() => c.inbox.length === 1, 'the echo from the target that came up');
  assert.equal(indexOf(c.inbox[0].datagram), 5);
  assert.equal(target.sources.length, 1);
  assert.equal(relay.stats().flows, 1, 'the flow outlived the refusals');
});

test('close() closes the browser-facing socket and every flow, emits close once, and a datagram still on the link is dropped', async () => {
  const sockets = udpSockets();
  const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const target = await echoTarget();
  const relay = await relayTo(target.port, { ...presetConditions('no-throttling'), rttMs: 100 });
  const a = await client(relay);
  const b = await client(relay);
  a.send(Buffer.from('a'));
  b.send(Buffer.from('b'));
  await until(() => a.inbox.length === 1 && b.inbox.length === 1, 'the echoes');
  assert.equal(udpSockets(), sockets + 6, 'target, relay, two clients, two flows');
  assert.ok(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= timers, 'idle timers are unref’d');
  a.send(Buffer.from('on the link when the relay closes'));
  await until(() => target.sources.length === 3, 'the datagram to reach the target');
  let closes = 0;
  relay.on('close', () => (closes += 1));
  relay.close();
  relay.close();
  assert.equal(relay.listening, false);
  assert.equal(relay.pairs.size, 0);
  await sleep(150); // the echo comes off the link after the relay closed: nothing is sent, nothing throws
  assert.equal(closes, 1);
  assert.equal(a.inbox.length, 1);
  assert.equal(udpSockets(), sockets + 3, 'the relay and both flows closed; target and clients remain');
});

test('IPv6: a relay on ::1 carries datagrams from IPv6 clients to an IPv4 target, before a hold and after its release', async () => {
  const target = await echoTarget();
  const relay = closeLater(createUdpRelay({ path: createPath(presetConditions('no-throttling')), targetPort: target.port, targetHost: '127.0.0.1' }));
  relay.listen(0, '::1');
  await once(relay, 'listening');
  const port = relay.address().port;
  assert.deepEqual(relay.address(), { address: '::1', family: 'IPv6', port });
  const c = await client(relay, '::1');
  c.send(Buffer.from('over IPv6'));
  await until(() => c.inbox.length === 1, 'the echo');
  assert.equal(c.inbox[0].datagram.toString(), 'over IPv6');
  await relay.hold();
  await relay.release();
  assert.deepEqual(relay.address(), { address: '::1', family: 'IPv6', port }, 'the same address after release');
  c.send(Buffer.from('after release'));
  await until(() => c.inbox.length === 2, 'the echo after release');
  assert.equal(c.inbox[1].datagram.toString(), 'after release');
});
