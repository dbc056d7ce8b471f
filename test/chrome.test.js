// Finding Chrome and the flags the lab starts it with (runner/browsers/chrome.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { chromeFlags, findChrome } from '../runner/browsers/chrome.js';
import { forceQuicFlag } from '../common/setup/quic.js';

test('findChrome reports a CHROME_PATH that points nowhere, in one line', (t) => {
  const saved = process.env.CHROME_PATH;
  t.after(() => {
    if (saved === undefined) delete process.env.CHROME_PATH;
    else process.env.CHROME_PATH = saved;
  });
  process.env.CHROME_PATH = path.join(os.tmpdir(), 'h2lab-no-such-chrome');
  assert.throws(findChrome, (err) => {
    assert.match(err.message, /CHROME_PATH/);
    assert.ok(!err.message.includes('\n'));
    return true;
  });
});

test('chromeFlags trusts the SPKI hash in the given profile', () => {
  const flags = chromeFlags({ spkiSha256: 'abc', userDataDir: '/tmp/x' });
  assert.ok(flags.includes('--ignore-certificate-errors-spki-list=abc'));
  assert.ok(flags.includes('--user-data-dir=/tmp/x'));
  assert.ok(flags.includes('--headless'));
  assert.ok(!chromeFlags({ spkiSha256: 'abc', userDataDir: '/tmp/x', headless: false }).includes('--headless'));
});

test('chromeFlags leaves QUIC on and forces it where the lab serves HTTP/3', () => {
  const servers = [
    { protocol: 'h2', origin: 'https://localhost:8447', linkOrigin: 'https://localhost:9447' },
    { protocol: 'h3', origin: 'https://127.0.0.1:8448', linkOrigin: 'https://127.0.0.1:9448' },
  ];
  const flags = chromeFlags({ spkiSha256: 'abc', userDataDir: '/tmp/x', forceQuic: forceQuicFlag(servers) });
  assert.ok(flags.includes('--origin-to-force-quic-on=127.0.0.1:8448,127.0.0.1:9448'));
  assert.ok(!flags.some((f) => f.startsWith('--disable-quic')));
  assert.equal(forceQuicFlag(servers.slice(0, 1)), null);
});
