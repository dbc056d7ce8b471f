// README's Layout stays true: every folder and file it names exists, and every folder of the
// product (each top-level folder git tracks, and their subfolders outside docs/ and test/) is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/cli.js';

const tracked = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const block = /^## Layout\n\n```\n([\s\S]*?)```/m.exec(readme)?.[1] ?? '';

/** The tree as README draws it: [{ folder: 'server/link/', text }], a subfolder under its parent. */
function layout() {
  const entries = [];
  let top = null;
  for (const line of block.split('\n')) {
    const m = /^( *)([\w.-]+\/)(?= |$)/.exec(line);
    if (m && (m[1].length === 0 || m[1].length === 2)) {
      const folder = m[1].length ? `${top}${m[2]}` : m[2];
      if (!m[1].length) top = m[2];
      entries.push({ folder, text: line.slice(m[0].length) });
    } else if (entries.length) entries.at(-1).text += ` ${line}`;
  }
  return entries;
}

const folders = new Set(tracked.flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => `${parts.slice(0, i + 1).join('/')}/`)));

test('README has a Layout section', () => {
  assert.ok(layout().length >= 8, 'the Layout block names the folders');
});

test('every folder the Layout names exists in git', () => {
  assert.deepEqual(layout().map((e) => e.folder).filter((f) => !folders.has(f)), []);
});

test('every file the Layout names exists in its folder or below it', () => {
  const missing = layout().flatMap(({ folder, text }) =>
    [...text.matchAll(/\b([\w-]+\.(?:js|md|json))\b/g)].map((m) => m[1]).filter((name) => !tracked.some((f) => f.startsWith(folder) && f.endsWith(`/${name}`))).map((name) => `${folder}${name}`),
  );
  assert.deepEqual(missing, []);
});

test('every folder of the product is named', () => {
  const named = new Set(layout().map((e) => e.folder));
  const product = [...folders].filter((f) => !f.startsWith('.') && f.split('/').length <= 3 && !/^(docs|test)\/./.test(f));
  assert.deepEqual(product.filter((f) => !named.has(f)), []);
});
