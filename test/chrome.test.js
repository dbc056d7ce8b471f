// Finding Chrome and the flags the lab starts it with (runner/chrome.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { chromeFlags, findChrome } from '../runner/chrome.js';

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
