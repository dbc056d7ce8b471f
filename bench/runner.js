// `npm run bench:runner`: does driving the page from the runner change what it measures? The
// same 100 × 0.1 MiB experiment, clicked in the UI and run the runner's way (CDP preset applied,
// window.h2lab.run, DevTools cross-check), alternately in one browser; medians side by side.
import { median } from 'simple-statistics';
import { presetById } from '../common/setup/presets.js';
import { readNumberArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { freePorts, startLab } from '../server/lab.js';
import { launchBrowser } from '../runner/browsers/chromium.js';
import { crossCheck, recordResponses } from '../runner/output/cross-check.js';
import { withPreset } from '../common/setup/devtools-network.js';
import { serverIds } from '../common/setup/servers.js';

const usage = `Usage: npm run bench:runner -- [--rounds N]
  --rounds N   alternating rounds of UI click and runner, 10 repeats each (default 3)`;

const numbers = { rounds: { min: 1, max: 20, integer: true, default: 3 } };
const parse = (args) => readNumberArgs(args, numbers);

const settings = { requests: 100, sizeMiB: 0.1, delayMs: 10, repeats: 10 };

async function run({ rounds }) {
  const lab = await startLab(freePorts);
  const browser = await launchBrowser(lab, { viewport: { width: 1280, height: 900 } });
  try {
    const page = await browser.context.newPage();
    const session = await browser.context.newCDPSession(page);
    const responses = recordResponses(session);
    const totals = { ui: {}, runner: {} };
    const add = (how, result) => {
      for (const r of result.runs.filter((x) => x.valid)) (totals[how][r.server] ??= []).push(r.totalMs);
    };
    for (let round = 0; round < rounds; round++) {
      for (const how of round % 2 ? ['runner', 'ui'] : ['ui', 'runner']) {
        await page.goto(`${lab.uiOrigin}/?requests=${settings.requests}&size=${settings.sizeMiB}&delay=${settings.delayMs}&repeats=${settings.repeats}`);
        await page.waitForFunction(() => window.h2lab?.ready !== undefined);
        if (how === 'ui') {
          // The person's way: click Run, wait for Done, read the result the page shows.
          await page.getByRole('button', { name: 'Run', exact: true }).click();
          await page.waitForFunction(() => /^(Done|Stopped|Failed)/.test(document.querySelector('#progress-text').textContent), null, { timeout: 300_000 });
          add(how, await page.evaluate(() => window.h2lab.last));
        } else {
          responses.clear();
          const result = await withPreset(session, presetById('no-throttling'), () => page.evaluate((s) => window.h2lab.run(s), settings));
          crossCheck(result, responses);
          add(how, result);
        }
      }
    }
    console.log(`h2lab runner overhead · ${rounds} rounds × ${settings.repeats} repeats · ${settings.requests} × ${settings.sizeMiB} MiB, delay ${settings.delayMs} ms\n`);
    console.log(`  ${'server'.padEnd(8)} ${'UI click (ms)'.padStart(14)} ${'runner (ms)'.padStart(12)} ${'difference'.padStart(11)}  target within 5 %`);
    for (const server of serverIds) {
      const ui = median(totals.ui[server]);
      const rn = median(totals.runner[server]);
      const diff = (rn / ui - 1) * 100;
      console.log(`  ${server.padEnd(8)} ${ui.toFixed(1).padStart(14)} ${rn.toFixed(1).padStart(12)} ${`${diff.toFixed(1)} %`.padStart(11)}  ${Math.abs(diff) <= 5 ? 'met' : 'MISSED'}`);
    }
  } finally {
    await browser.close();
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:runner', usage, parse, run });
