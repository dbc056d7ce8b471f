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

test('every kind of error has one base, and its code is in the commands\' table of docs/http-api.md with its exit code', async () => {
  const files = execFileSync('git', ['ls-files', 'server', 'common', 'runner', 'cli', 'client'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.js') && !f.endsWith('.spec.js'));
  assert.deepEqual(files.filter((f) => /\bextends Error\b/.test(read(f))), ['common/setup/errors.js'], 'one class extends Error');
  // A kind's code is the first argument its constructor passes up: super('<code>', …).
  const kinds = files.flatMap((f) => [...read(f).matchAll(/class (\w+) extends \w+ \{(?:(?!\nclass |\nexport class )[\s\S])*?super\('([a-z-]+)'/g)].map((m) => ({ file: f, name: m[1], code: m[2] })));
  assert.ok(kinds.length >= 4, kinds.map((k) => k.name).join(', '));
  const section = read('docs/http-api.md').split(/^### Errors of the commands$/m)[1] ?? '';
  const listed = new Map([...section.matchAll(/^\| (\d) \| `([a-z-]+)` \|/gm)].map((m) => [m[2], Number(m[1])]));
  const { exitCodeOf } = await import('../cli/run.js');
  const errors = await import('../common/setup/errors.js');
  for (const { file, name, code } of kinds) assert.ok(listed.has(code), `${name} (${file}) throws ${code}, which docs/http-api.md does not list`);
  assert.equal(listed.get('invalid-field'), exitCodeOf(new errors.InputError('--x', 'x')));
  assert.equal(listed.get('usage'), exitCodeOf(new errors.UsageError('x')));
  const { LabError } = await import('../server/listen.js');
  assert.equal(listed.get('cannot-start'), exitCodeOf(new LabError('x')));
});

test('no other module makes an HttpError of its own', () => {
  const files = execFileSync('git', ['ls-files', 'server', 'common', 'runner'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.js'));
  const elsewhere = files.filter((f) => f !== 'server/http/errors.js' && /new HttpError\(/.test(read(f)));
  assert.deepEqual(elsewhere, []);
});
