// Published runs stay what the code says of them: every summary.md under docs/results re-renders
// from its results.json as it reads. A change to what summary.md says shows here, and the folders
// it touches are summarized again (npm run merge-results -- DIR --out DIR) in the same change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { summaryMarkdown } from '../common/report/summary-markdown.js';
import { environmentLine } from '../runner/output/report.js';
import { replaySummaryOf } from '../runner/replay/report.js';
import { repoRoot } from './helpers/cli.js';

const resultsDir = path.join(repoRoot, 'docs', 'results');
const folders = readdirSync(resultsDir, { recursive: true })
  .filter((f) => path.basename(String(f)) === 'results.json')
  .map((f) => path.dirname(String(f)));

test('every published summary.md re-renders from its results.json as it reads', () => {
  assert.ok(folders.length >= 10, `published folders with results.json: ${folders.length}`);
  const differ = folders.filter((folder) => {
    const data = JSON.parse(readFileSync(path.join(resultsDir, folder, 'results.json'), 'utf8'));
    // A replay's (npm run page-loads -- --har) renders its own report.
    const rendered = data.kind === 'replay' ? replaySummaryOf(data) : summaryMarkdown(data.experiments, environmentLine(data.environment));
    return rendered !== readFileSync(path.join(resultsDir, folder, 'summary.md'), 'utf8');
  });
  assert.deepEqual(differ, [], 'summarize these again: npm run merge-results -- DIR --out DIR');
});
