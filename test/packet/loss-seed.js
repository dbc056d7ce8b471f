// Run under launch.py by test/packet.test.js: the same traffic under loss seeds. A process on the
// browser side sends numbered UDP datagrams to the server side, which echoes each one back, so
// both directions carry a known sequence; each round restarts the losses from a seed first (as
// the page does before a timed run) and reports which datagrams arrived each way and the
// emulator's loss counts. Between the two rounds of the same seed, other traffic crosses
// unseeded: a seed must restart the losses whatever came before.
import dgram from 'node:dgram';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { onBrowserSide } from '../../server/packet/inside.js';
import { serverSideAddress } from '../../server/packet/sides.js';
import { report } from './lab-inside.js';
import { parseConditions } from '../../server/path/conditions.js';
import { runLossSeed } from '../../common/setup/seeds.js';

const datagrams = 300;
// Enough for some twenty losses upstream at 1 %, whose share also lost at 2 % tells nested from
// independent patterns (all of them against about 2 %).
const rateDatagrams = 2_000;

/**
 * The datagrams lost upstream at 1 % and at 2 % random loss, each round seeded as the page seeds
 * repeat 1 of an experiment with base seed 7 under that rate (common/setup/seeds.js runLossSeed).
 * @param {any} lab
 * @param {(seed: number, count: number) => Promise<{ up: number[] }>} round
 */
async function lostAtRates(lab, round) {
  /** @type {Record<string, number[]>} */
  const lost = {};
  for (const loss of [1, 2]) {
    await lab.networks.packet.set(parseConditions({ preset: 'no-throttling', loss }, 'packet', { traces: lab.traces }));
    const { up } = await round(runLossSeed(7, 1, { loss, burst: null }), rateDatagrams);
    const arrived = new Set(up);
    lost[loss] = Array.from({ length: rateDatagrams }, (_, i) => i).filter((i) => !arrived.has(i));
  }
  return lost;
}
// Paced, so the order the path sees is the order sent; the echoes' tail is waited for.
const sender = `
const dgram = require('node:dgram');
const [port, count] = process.argv.slice(1).map(Number);
const socket = dgram.createSocket('udp4');
const echoed = [];
socket.on('message', (m) => echoed.push(m.readUInt32BE(0)));
socket.bind(0, () => {
  let i = 0;
  const timer = setInterval(() => {
    const m = Buffer.alloc(64);
    m.writeUInt32BE(i, 0);
    socket.send(m, port, '${serverSideAddress}');
    if (++i === count) {
      clearInterval(timer);
      setTimeout(() => { console.log(JSON.stringify(echoed)); socket.close(); }, 300);
    }
  }, 2);
});
`;

await report({ preset: 'no-throttling', loss: 10, burst: { p: 2, r: 25 } }, async (lab) => {
  const echo = dgram.createSocket('udp4');
  /** @type {number[]} */
  let arrived = [];
  echo.on('message', (m, from) => {
    arrived.push(m.readUInt32BE(0));
    echo.send(m, from.port, from.address);
  });
  echo.bind(0, '0.0.0.0');
  await once(echo, 'listening');
  const send = async (count) => {
    const argv = onBrowserSide([process.execPath, '-e', sender, String(echo.address().port), String(count)]);
    return JSON.parse((await promisify(execFile)(argv[0], argv.slice(1))).stdout);
  };
  /** @param {number|null} seed  null: no seed, whatever the losses are at */
  const round = async (seed, count = datagrams) => {
    if (seed !== null) await lab.networks.packet.seedLoss(seed);
    arrived = [];
    const before = await lab.networks.packet.counters();
    const echoed = await send(count);
    const after = await lab.networks.packet.counters();
    const lost = { up: after.up.droppedByLoss - before.up.droppedByLoss, down: after.down.droppedByLoss - before.down.droppedByLoss };
    return { up: [...arrived].sort((a, b) => a - b), down: echoed.sort((a, b) => a - b), lost };
  };
  /** PUT /api/networks/packet/loss-seed as the page sends it: [status, code, field] */
  const putSeed = async (body) => {
    const res = await fetch(`http://127.0.0.1:${new URL(lab.uiOrigin).port}/api/networks/packet/loss-seed`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await res.json();
    return [res.status, answer.code ?? answer.seed, answer.field ?? null];
  };
  try {
    const first = await round(7);
    await round(null, 57); // unseeded traffic between: a warm-up, another run's tail
    const again = await round(7);
    const other = await round(8);
    const refused = [];
    for (const body of [{ seed: -1 }, { seed: 1.5 }, { seed: 2 ** 32 }, { seed: '7' }, {}, { seed: 7, loss: 1 }, [7]]) refused.push(await putSeed(body));
    const accepted = await putSeed({ seed: 2 ** 32 - 1 });
    return { first, again, other, refused, accepted, rates: await lostAtRates(lab, round) };
  } finally {
    echo.close();
  }
}, { noCaddy: true });
