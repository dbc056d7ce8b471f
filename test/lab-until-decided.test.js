// The page's "Until decided" in a real Chromium: the choice from a link, a cap the settings refuse
// said under the form, and a run in rounds whose result says how many repeats it took and why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { startTestLab } from './helpers/lab.js';
import { verdicts } from '../common/stats/stats.js';

let lab;
let browser;
let page;

before(async () => {
  lab = await startTestLab();
  browser = await launchBrowser(lab);
  page = await browser.context.newPage();
  await page.goto(`${lab.uiOrigin}/?servers=h1,h2-node&requests=10&size=0.01&delay=0&maxRepeats=6`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined);
});

after(async () => {
  await browser?.close();
  await lab?.close();
});

test('a link with maxRepeats ticks Until decided with its cap and sets Repeats aside', async () => {
  const form = page.locator('#settings');
  assert.equal(await form.getByLabel('Until decided', { exact: true }).isChecked(), true);
  assert.equal(await form.getByLabel('Until decided, at most').inputValue(), '6');
  assert.equal(await form.getByLabel('Repeats', { exact: true }).isDisabled(), true);
  assert.match(await page.locator('#until-decided-why').textContent(), /4 repeats, then 4 more at a time/);
});

test('a cap below the first round is refused under the form, naming the field and its bounds', async () => {
  const cap = page.locator('#settings').getByLabel('Until decided, at most');
  await cap.fill('3');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  assert.match(await page.locator('#settings-errors').textContent(), /Until decided, at most must be an integer from 4 to 100 repeats/);
  await cap.fill('6');
  // Leaving the field re-reads the form and clears the message, which moves the Run button up.
  await cap.blur();
  assert.equal(await page.locator('#settings-errors').textContent(), '');
});

test('Run until decided: rounds of 4 then 2, the result saying how many repeats ran and why it stopped', { timeout: 120_000 }, async () => {
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 110_000 });
  const result = await page.evaluate(() => window.h2lab.last);
  const { repeats } = result.settings;
  // The look at 4 runs a side spends none of the rate (it can decide nothing): always two rounds.
  assert.equal(repeats, 6);
  const decided = result.comparisons.every((c) => c.verdict !== verdicts.unclear);
  assert.deepEqual(result.untilDecided, { maxRepeats: 6, rounds: 2, stoppedBy: decided ? 'decided' : 'cap', requiredLevel: 0.95 });
  for (const server of ['h1', 'h2-node']) assert.deepEqual(result.runs.filter((r) => r.server === server).map((r) => r.repeat), Array.from({ length: repeats }, (_, i) => i + 1));
  const verdictItems = await page.locator('#verdicts li').allTextContents();
  assert.match(verdictItems[0], new RegExp(`^Until decided: ${repeats} of at most 6 repeats`));
  assert.match(verdictItems.at(-1), /^Scope: false "faster" or "slower" verdicts within 5 % for the one comparison of this experiment/);
});
