// docs/layout.md stays true: every folder and file it names exists, and every folder of the
// product (each top-level folder git tracks, and their subfolders outside docs/ and test/) is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/cli.js';

const tracked = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);
const layoutDoc = readFileSync(path.join(repoRoot, 'docs', 'layout.md'), 'utf8');
const block = /^```\n([\s\S]*?)```/m.exec(layoutDoc)?.[1] ?? '';

/** The tree as docs/layout.md draws it: [{ folder: 'server/link/', text }], a subfolder under its parent. */
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

test('docs/layout.md draws the tree', () => {
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

test('every product file is named in the entry of its folder', () => {
  const entries = layout();
  const product = tracked.filter((f) => /^(common|server|runner|cli|client|bench)\/.*\.(js|py|sh|ts)$/.test(f) && !/\.spec\.js$/.test(f));
  const unnamed = product.filter((f) => {
    const entry = entries.find((e) => e.folder === `${path.posix.dirname(f)}/`);
    return !entry || !new RegExp(`(?<![\\w.-])${path.posix.basename(f).replace(/\./g, '\\.')}\\b`).test(entry.text);
  });
  assert.deepEqual(unnamed, []);
});

test('every folder of the product is named', () => {
  const named = new Set(layout().map((e) => e.folder));
  const product = [...folders].filter((f) => !f.startsWith('.') && f.split('/').length <= 3 && !/^(docs|test)\/./.test(f));
  assert.deepEqual(product.filter((f) => !named.has(f)), []);
});

/** The modules a product file imports (or re-exports) by relative path, as repository paths. */
function importsOf(file) {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import\s+(?:[^'";]*?\sfrom\s+)?|export\s+[^'";]*?\sfrom\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])));
}

const productFiles = tracked.filter((f) => /^(common|server|runner|cli|client)\/.*\.js$/.test(f) && !f.endsWith('.spec.js'));

test('the house has floors: nothing imports a floor above it', () => {
  // Each room with the rooms it may import besides itself; a room not listed may import any.
  const below = [
    ['common/setup/', []],
    ['common/stats/', ['common/setup/']],
    ['common/report/', ['common/setup/', 'common/stats/']],
    ['cli/', ['common/']],
    ['client/', ['common/']],
    ['server/', ['cli/', 'common/']],
    ['runner/browsers/', ['runner/browsers/', 'server/', 'cli/', 'common/']],
    ['runner/output/', ['runner/browsers/', 'server/', 'cli/', 'common/']],
    ['runner/', ['server/', 'cli/', 'common/', 'runner/browsers/', 'runner/output/']],
  ];
  assert.ok(productFiles.filter((f) => /^runner\/commands\//.test(f)).length >= 6, 'the commands have their room');
  const upward = productFiles.flatMap((f) => {
    const [room, allowed] = below.find(([r]) => f.startsWith(r));
    const inRoom = (i) => (room === 'runner/' ? path.posix.dirname(i) === path.posix.dirname(f) || (f.startsWith('runner/commands/') && i.startsWith('runner/')) : i.startsWith(room));
    return importsOf(f).filter((i) => !inRoom(i) && !allowed.some((a) => i.startsWith(a))).map((i) => `${f} → ${i}`);
  });
  assert.deepEqual(upward, []);
});

test('no import circle in the product', () => {
  const graph = new Map(productFiles.map((f) => [f, importsOf(f).filter((i) => productFiles.includes(i))]));
  const state = new Map(); // 1: on the path being walked, 2: done
  const circles = [];
  const walk = (f, trail) => {
    if (state.get(f) === 2) return;
    if (state.get(f) === 1) return void circles.push([...trail.slice(trail.indexOf(f)), f].join(' → '));
    state.set(f, 1);
    for (const next of graph.get(f) ?? []) walk(next, [...trail, f]);
    state.set(f, 2);
  };
  for (const f of productFiles) walk(f, []);
  assert.ok(graph.get('runner/commands/experiments.js')?.length, 'the graph has edges');
  assert.deepEqual(circles, []);
});

test('the path model is its own room: server/link/ and server/packet/ import server/path/, never each other, and the path imports neither', () => {
  const inFolder = (folder) => tracked.filter((f) => f.startsWith(folder) && f.endsWith('.js'));
  const crossing = [
    ...inFolder('server/link/').flatMap((f) => importsOf(f).filter((i) => i.startsWith('server/packet/')).map((i) => `${f} → ${i}`)),
    ...inFolder('server/packet/').flatMap((f) => importsOf(f).filter((i) => i.startsWith('server/link/')).map((i) => `${f} → ${i}`)),
    ...inFolder('server/path/').flatMap((f) => importsOf(f).filter((i) => /^server\/(link|packet)\//.test(i)).map((i) => `${f} → ${i}`)),
  ];
  assert.deepEqual(crossing, []);
  assert.ok(inFolder('server/link/').some((f) => importsOf(f).some((i) => i.startsWith('server/path/'))), 'the link composes the path');
  assert.ok(inFolder('server/packet/').some((f) => importsOf(f).some((i) => i.startsWith('server/path/'))), 'the packet network composes the path');
});

test('the path model imports nothing above it: server/path/ imports only server/path/ and common/', () => {
  const files = tracked.filter((f) => f.startsWith('server/path/') && f.endsWith('.js'));
  assert.ok(files.length >= 8, 'the path has its files');
  const above = files.flatMap((f) => importsOf(f).filter((i) => !/^(server\/path|common)\//.test(i)).map((i) => `${f} → ${i}`));
  assert.deepEqual(above, []);
});

test('no string comparison on network names outside the network registry (common/setup/networks.js)', () => {
  const product = tracked.filter((f) => /^(common|server|runner|cli|client)\/.*\.js$/.test(f) && !f.endsWith('.spec.js') && f !== 'common/setup/networks.js');
  const compared = /(?:[=!]==\s*'(?:devtools|link|packet)'|'(?:devtools|link|packet)'\s*[=!]==|includes\('(?:devtools|link|packet)'\))/;
  const found = product.flatMap((f) => readFileSync(path.join(repoRoot, f), 'utf8').split('\n').map((line, i) => (compared.test(line) ? `${f}:${i + 1}` : null)).filter(Boolean));
  assert.deepEqual(found, []);
});
