// The README's "What it finds so far" against the results it cites.
//
// Verdicts: a figure with an interval, "0.91× [0.91–0.93 · 98.9 %] … faster <!-- key -->", names
// in its key (an HTML comment, unseen when rendered) the folder under docs/results/, the point
// (its sweep value or preset) and the comparison (server/baseline). The folder's results.json is
// judged again under the current rule (common/stats/family.js: Holm across each experiment), and the
// figure must state that comparison's ratio, interval and level as the summary rounds them, and
// its verdict in the summary's words. The bullet must link the folder. The mutations below show
// the check failing on a changed ratio, interval, level or verdict word.
//
// Other figures: each ratio (4.9×), time (4,243 ms, 2.4 s) and spread of them must appear in a
// file under docs/results/ that its bullet links to. A figure from a run nobody can read is no
// finding.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { judgeExperiments } from '../common/stats/family.js';
import { levelText } from '../common/stats/stats.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
const section = /^## What it finds so far\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';

/**
 * The section's top-level bullets, each with its continuation lines on one line.
 * @param {string} text
 */
const bulletsOf = (text) => text.split(/^- /m).slice(1).map((b) => b.replace(/\s+/g, ' ').trim());

/** @param {string} bullet */
const linkedResults = (bullet) => [...bullet.matchAll(/\]\((docs\/results\/[^)#\s]+)/g)].map((m) => m[1]);

const verdictWords = ['faster', 'slower', 'no clear difference', 'no meaningful difference'];
const num = String.raw`(\d+(?:\.\d+)?)`;
// A ratio, up to 60 characters of words, its interval with its level, up to 60 more, a verdict
// word and the key. Neither stretch crosses another ratio or interval.
const verdictPattern = new RegExp(
  String.raw`${num}×([^×\[<]{0,60})\[${num}–${num} · ${num} %\]([^×\[<]{0,60}?)(${verdictWords.join('|')})\s*<!-- (\S+) (\S+) ([\w-]+)\/([\w-]+) -->`,
  'g',
);
// Every interval the section states: each must be part of a verdict figure.
const intervalPattern = new RegExp(String.raw`\[${num}–${num} · ${num} %\]`, 'g');

/** @type {Map<string, any>} */
const judgedByFolder = new Map();

/** The folder's experiments as judged now; null without a results.json. @param {string} folder */
function judged(folder) {
  if (!judgedByFolder.has(folder)) {
    const file = path.join(repo, 'docs/results', folder, 'results.json');
    judgedByFolder.set(folder, existsSync(file) ? judgeExperiments(JSON.parse(readFileSync(file, 'utf8')).experiments) : null);
  }
  return judgedByFolder.get(folder);
}

/**
 * What a figure with its key should say, from the folder's results judged now.
 * @param {string} folder @param {string} point @param {string} server @param {string} baseline
 * @returns {{ ratio: string, lo: string, hi: string, level: string, verdict: string } | string}  a problem as text
 */
function expected(folder, point, server, baseline) {
  const experiments = judged(folder);
  if (!experiments) return `docs/results/${folder}/results.json does not exist`;
  const points = experiments.flatMap((/** @type {any} */ e) => e.points).filter((/** @type {any} */ p) => String(p.value) === point);
  if (points.length !== 1) return `${folder} has ${points.length} points with the value ${point}, not one`;
  const c = points[0].result.comparisons.find((/** @type {any} */ x) => x.server === server && x.baseline === baseline);
  if (!c) return `${folder} at ${point} compares no ${server} with ${baseline}`;
  return { ratio: c.ratio.toFixed(2), lo: c.ci95[0].toFixed(2), hi: c.ci95[1].toFixed(2), level: levelText(c.ciLevel, 1).replace(' %', ''), verdict: c.verdict };
}

/**
 * What is wrong with the section's verdict figures: each against its comparison, and no interval
 * outside a figure with a key.
 * @param {string} text  the section
 * @returns {string[]}
 */
function verdictProblems(text) {
  const problems = [];
  for (const bullet of bulletsOf(text)) {
    const figures = [...bullet.matchAll(verdictPattern)];
    const intervals = [...bullet.matchAll(intervalPattern)];
    if (intervals.length !== figures.length) {
      problems.push(`"${bullet.slice(0, 50)}…" states ${intervals.length} intervals and ${figures.length} verdict figures with a key: every interval needs its ratio, verdict word and key`);
    }
    for (const [figure, ratio, , lo, hi, level, , verdict, folder, point, server, baseline] of figures) {
      if (!linkedResults(bullet).some((f) => f.startsWith(`docs/results/${folder}/`))) problems.push(`${figure}: the bullet links nothing under docs/results/${folder}/`);
      const want = expected(folder, point, server, baseline);
      if (typeof want === 'string') {
        problems.push(`${figure}: ${want}`);
        continue;
      }
      const said = { ratio, lo, hi, level, verdict };
      if (JSON.stringify(said) !== JSON.stringify(want)) problems.push(`${figure}: says ${JSON.stringify(said)}, the results judged now ${JSON.stringify(want)}`);
    }
  }
  return problems;
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

test('every verdict in "What it finds so far" states its comparison as the linked results.json judges it now', () => {
  assert.ok([...section.matchAll(verdictPattern)].length >= 6, 'the section states its verdicts with keys');
  assert.deepEqual(verdictProblems(section), []);
});

test('the verdict check fails on a changed ratio, interval, level or verdict word, in every figure', () => {
  const figures = [...section.matchAll(verdictPattern)];
  /** @param {RegExpMatchArray} m @param {(figure: string) => string} change */
  const mutate = (m, change) => section.slice(0, m.index) + change(m[0]) + section.slice(/** @type {number} */ (m.index) + m[0].length);
  let tried = 0;
  for (const m of figures) {
    const [, ratio, , lo, , level, , verdict] = m;
    const mutations = {
      ...Object.fromEntries([-0.05, -0.02, -0.01, 0.01, 0.02, 0.05].map((d) => [`ratio ${d}`, (/** @type {string} */ f) => f.replace(`${ratio}×`, `${(Number(ratio) + d).toFixed(2)}×`)])),
      interval: (/** @type {string} */ f) => f.replace(/\[[^\]]*·/, '[0.50–0.60 ·'),
      'interval end': (/** @type {string} */ f) => f.replace(`[${lo}–`, `[${(Number(lo) - 0.01).toFixed(2)}–`),
      level: (/** @type {string} */ f) => f.replace(`· ${level} %`, `· ${(Number(level) - 0.1).toFixed(1)} %`),
      'verdict word': (/** @type {string} */ f) => f.replace(verdict, verdict === 'faster' ? 'slower' : 'faster'),
    };
    for (const [name, change] of Object.entries(mutations)) {
      const changed = mutate(m, change);
      assert.notEqual(changed, section, `${name} changes ${m[0]}`);
      assert.notDeepEqual(verdictProblems(changed), [], `the check passes ${m[0]} with its ${name} changed`);
      tried += 1;
    }
  }
  assert.ok(tried >= 60, `${tried} mutations`);
});

test('an interval without its ratio, verdict and key fails the check', () => {
  assert.notDeepEqual(verdictProblems('- HTTP/3 took 0.80× [0.70–0.90 · 95.0 %] of the time.\n'), []);
  assert.notDeepEqual(verdictProblems('- HTTP/3 took 0.80× [0.70–0.90 · 95.0 %], faster <!-- no-such-folder fast-4g caddy-h3/caddy-h2 --> ([x](docs/results/no-such-folder/summary.md)).\n'), []);
});

test('every other figure in "What it finds so far" is in a docs/results file its bullet links to', () => {
  const bullets = bulletsOf(section);
  assert.ok(bullets.length >= 3, 'the section has its bullets');
  const problems = [];
  for (const bullet of bullets) {
    const figures = figuresOf(bullet.replace(verdictPattern, ''));
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
