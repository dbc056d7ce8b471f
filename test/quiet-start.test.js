// `npm start` is quiet: the deprecation warnings spdy's packages raise (DEP0111, DEP0066) are
// dropped, only those: a warning with the same code raised from elsewhere still prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { exitOf, startScript, waitFor } from './helpers/cli.js';
import { freePortArgs } from './helpers/lab.js';

test('npm start prints nothing on stderr, through a request to the spdy server and a stop', async () => {
  const run = startScript('server/index.js', freePortArgs);
  await waitFor(run, (r) => /npm run chrome/.test(r.stdout));
  const spdyOrigin = /HTTP\/2 \(spdy\)\s+(https:\/\/\S+?)\/option/.exec(run.stdout)[1];
  const session = http2.connect(spdyOrigin, { ca: readFileSync(new URL('../certs/ca.crt', import.meta.url)) });
  const stream = session.request({ ':path': '/option?size=0.01' });
  stream.resume();
  await once(stream, 'end');
  session.close();
  run.child.kill('SIGTERM');
  assert.equal((await exitOf(run)).code, 0);
  assert.equal(run.stderr, '');
});

test('a warning with the same code raised outside spdy still prints', async () => {
  await import('../server/transports/spdy-warnings.js');
  const seen = [];
  const onWarning = (w) => seen.push(w.code);
  process.on('warning', onWarning);
  process.emitWarning('a test of the filter', 'DeprecationWarning', 'DEP0066');
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onWarning);
  assert.deepEqual(seen, ['DEP0066']);
});
