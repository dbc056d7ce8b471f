// Every relative link in README.md and docs/ leads to a file git tracks (an ignore rule once hid
// docs/results/), and every #anchor to a heading of its target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/cli.js';

const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean));
const documents = [...tracked].filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
const anchorsOf = (file) => new Set([...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1].replaceAll('`', ''))));

test('README.md and docs/ exist in git', () => {
  assert.ok(documents.includes('README.md'));
  assert.ok(documents.some((f) => f.startsWith('docs/results/')), 'docs/results is published');
});

// A published result is read in the repository and cloned with it: its files stay small (a
// report.html with 2× charts was 3.7 MB).
test('no published result file is over 2 MiB', () => {
  const large = [...tracked].filter((f) => f.startsWith('docs/results/') && statSync(path.join(repoRoot, f)).size > 2 * 1024 * 1024);
  assert.deepEqual(large, []);
});

for (const file of documents) {
  test(`${file}: every relative link resolves to a tracked file and heading`, () => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    const problems = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // http(s), mailto: not ours to check here
      const [where, anchor] = target.split('#');
      const resolved = where ? path.posix.normalize(path.posix.join(path.posix.dirname(file), where)) : file;
      if (!tracked.has(resolved) && ![...tracked].some((f) => f.startsWith(`${resolved.replace(/\/$/, '')}/`))) {
        problems.push(`${target}: ${resolved} is not in git`);
      } else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
        problems.push(`${target}: no heading #${anchor} in ${resolved}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}
