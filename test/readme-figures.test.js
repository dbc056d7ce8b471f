// Every measured figure the README's "What it finds so far" states comes from a published result:
// in each bullet, each ratio (0.81×), time (4,243 ms, 2.4 s) and spread of them must appear in a
// file under docs/results/ that the bullet links to. A figure from a run nobody can read is no
// finding.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');

/** The section's top-level bullets, each with its continuation lines. */
function findingBullets() {
  const section = /^## What it finds so far\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  return section.split(/^- /m).slice(1).map((b) => b.replace(/\s+/g, ' ').trim());
}

// A measured figure: a number (or a range of two) directly before × (a ratio; "30 × 0.1 MiB" is
// a count of requests), or before ms or s.
const figurePattern = /(\d[\d,]*(?:\.\d+)?)(?:–(\d[\d,]*(?:\.\d+)?))?(×|\s?ms\b|\s?s\b)/g;

/**
 * The numbers of a bullet's figures with their units.
 * @param {string} bullet
 */
function figuresOf(bullet) {
  return [...bullet.matchAll(figurePattern)].flatMap((m) =>
    [m[1], m[2]].filter(Boolean).map((n) => ({ number: Number(n.replaceAll(',', '')), decimals: n.split('.')[1]?.length ?? 0, unit: m[3].trim(), text: m[0] })),
  );
}

/** @param {string} bullet */
const linkedResults = (bullet) => [...bullet.matchAll(/\]\((docs\/results\/[^)#\s]+)/g)].map((m) => m[1]);

/**
 * Whether a published file states the number, as the README rounds it: 7.3× is a 7.27× there,
 * 4,243 ms a 4243, 2.4 s a 2,412 (ms) or 2.41 (s).
 * @param {string} text @param {{ number: number, decimals: number, unit: string }} figure
 */
function states(text, { number, decimals, unit }) {
  const candidates = [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replaceAll(',', '')));
  const rounds = (/** @type {number} */ c) => c.toFixed(decimals) === number.toFixed(decimals);
  return candidates.some((c) => rounds(c) || (unit === 's' && rounds(c / 1000)));
}

test('every figure in "What it finds so far" is in a docs/results file its bullet links to', () => {
  const bullets = findingBullets();
  assert.ok(bullets.length >= 3, 'the section has its bullets');
  const problems = [];
  for (const bullet of bullets) {
    const figures = figuresOf(bullet);
    if (!figures.length) continue;
    const files = linkedResults(bullet);
    if (!files.length) {
      problems.push(`"${bullet.slice(0, 60)}…" states ${figures.map((f) => f.text).join(', ')} and links no file under docs/results/`);
      continue;
    }
    // A link to a folder's README.md or summary.md reads that file; a folder reads its summary.md.
    const texts = files.map((f) => readFileSync(path.join(repo, f.endsWith('/') ? `${f}summary.md` : f), 'utf8')).join('\n');
    for (const figure of figures) if (!states(texts, figure)) problems.push(`${figure.text} (in "${bullet.slice(0, 40)}…") is in none of ${files.join(', ')}`);
  }
  assert.deepEqual(problems, []);
});
