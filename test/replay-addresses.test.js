// Where a replay's origins live on the packet network: an address each in the server side's
// origin block, hosts the recording saw answered from one address sharing one, and Chromium's
// rules sending each host to its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readHar } from '../server/replay/archive.js';
import { originAddress, originBlock } from '../server/packet/sides.js';
import { hostAddresses, replayFlags } from '../runner/replay/flags.js';
import { har, harEntry } from './fixtures/har.js';

test('origin addresses run through the block, never ending in 0 or 255, and refuse what lies beyond it', () => {
  assert.equal(originBlock, '198.18.128.0/17');
  assert.deepEqual([0, 1, 253, 254, 255, 254 * 128 - 1].map(originAddress), ['198.18.128.1', '198.18.128.2', '198.18.128.254', '198.18.129.1', '198.18.129.2', '198.18.255.254']);
  for (const bad of [-1, 1.5, 254 * 128]) assert.throws(() => originAddress(bad), RangeError, String(bad));
});

test('hosts the recording saw at one address share one; every other host, and one recorded at a lab\'s address, has its own; Chromium maps each host:port there', () => {
  const recorded = readHar(har([
    harEntry('https://a.example/', { serverIp: '192.0.2.1' }),
    harEntry('https://b.example/x.js', { serverIp: '192.0.2.1' }),
    harEntry('https://c.example/y.css', { serverIp: '[2001:db8::1]' }),
    harEntry('https://d.example/z.png'),
    harEntry('https://e.example:8443/w.png'),
    harEntry('https://a.example/again.png', { serverIp: '192.0.2.9' }),
    // Addresses a lab gave (a recording of its own site, or of a replay) say nothing of the site.
    harEntry('https://f.example/1.js', { serverIp: '127.0.0.1' }),
    harEntry('https://g.example/2.js', { serverIp: '127.0.0.1' }),
    harEntry('https://h.example/3.js', { serverIp: '198.18.0.1' }),
    harEntry('https://i.example/4.js', { serverIp: '198.18.0.1' }),
  ], 'https://a.example/'));
  const addresses = hostAddresses([recorded]);
  assert.deepEqual(Object.fromEntries(addresses), { 'a.example': '198.18.128.1', 'b.example': '198.18.128.1', 'c.example': '198.18.128.2', 'd.example': '198.18.128.3', 'e.example': '198.18.128.4', 'f.example': '198.18.128.5', 'g.example': '198.18.128.6', 'h.example': '198.18.128.7', 'i.example': '198.18.128.8' });
  const [rules] = replayFlags([...recorded.byOrigin.keys()].slice(0, 5), { protocol: 'h2', host: '198.18.0.1', port: 4433, hostOf: (h) => addresses.get(h) });
  assert.equal(rules, '--host-resolver-rules=MAP a.example:443 198.18.128.1:4433, MAP b.example:443 198.18.128.1:4433, MAP c.example:443 198.18.128.2:4433, MAP d.example:443 198.18.128.3:4433, MAP e.example:8443 198.18.128.4:4433, MAP * ^NOTFOUND');
  const [loopback] = replayFlags(['https://a.example'], { protocol: 'h2', host: '127.0.0.1', port: 4433 });
  assert.equal(loopback, '--host-resolver-rules=MAP a.example:443 127.0.0.1:4433, MAP * ^NOTFOUND');
});
