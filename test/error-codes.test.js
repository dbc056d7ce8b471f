// One error table: every error code is made in server/http/errors.js and nowhere else, and
// docs/http-api.md lists each with its status, so the page and scripts can rely on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/cli.js';

const read = (file) => readFileSync(path.join(repoRoot, file), 'utf8');
const made = (text) => [...text.matchAll(/new HttpError\((\d+), '([a-z0-9-]+)'/g)].map((m) => `${m[1]} ${m[2]}`);

test('the codes of server/http/errors.js are the codes docs/http-api.md lists, with their statuses', () => {
  const table = [...new Set(made(read('server/http/errors.js')))].sort();
  assert.ok(table.length >= 20, `the table: ${table.join(', ')}`);
  const section = read('docs/http-api.md').split(/^## Errors$/m)[1] ?? '';
  const listed = [...section.matchAll(/^\| (\d{3}) \| `([a-z0-9-]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
  assert.deepEqual(listed, table);
});

test('no other module makes an HttpError of its own', () => {
  const files = execFileSync('git', ['ls-files', 'server', 'common', 'runner'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.js'));
  const elsewhere = files.filter((f) => f !== 'server/http/errors.js' && /new HttpError\(/.test(read(f)));
  assert.deepEqual(elsewhere, []);
});
