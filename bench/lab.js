// `npm run bench:lab`: the browser lab's scale and speed in a real Chromium, printed side by side.
//  - 10,000 requests in one run at the default "Max in flight": failures (target 0);
//  - the waterfall of those 10,000 requests: time to draw it (target < 1 s);
//  - the longest main-thread task while the run is in progress (target ≤ 200 ms);
//  - the page's own timing overhead at 100 × 0.1 MiB: its total minus the span of the Resource
//    Timing entries, as a share of the total (target < 2 %).
import { readNumberArgs } from '../cli/options.js';
import { runCli } from '../cli/run.js';
import { freePorts, startLab } from '../server/lab.js';
import { serverIds } from '../common/setup/servers.js';
import { launchBrowser, openLabPage } from '../runner/browsers/chromium.js';

const usage = `Usage: npm run bench:lab -- [--requests N] [--repeats N]
  --requests N   requests of the scale run (default 10000)
  --repeats N    repeats of the 100 × 0.1 MiB overhead run (default 5)`;

const numbers = {
  requests: { min: 1, max: 10_000, integer: true, default: 10_000 },
  repeats: { min: 1, max: 50, integer: true, default: 5 },
};
const parse = (args) => readNumberArgs(args, numbers);

async function run({ requests, repeats }) {
  const lab = await startLab(freePorts);
  const browser = await launchBrowser(lab, { viewport: { width: 1280, height: 900 } });
  try {
    const page = await openLabPage(browser.context, lab.uiOrigin);
    const version = browser.context.browser()?.version() ?? 'Chromium';
    console.log(`h2lab browser-lab benchmark · ${version} · node ${process.version}\n`);

    console.log(`Scale: ${requests.toLocaleString()} × 0.001 MiB in one run per server, default max in flight, cold`);
    for (const server of serverIds) {
      const m = await page.evaluate(async ({ requests: count, server: serverId }) => {
        const tasks = [];
        const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
        observer.observe({ type: 'longtask' });
        const result = await window.h2lab.run({ requests: count, sizeMiB: 0.001, delayMs: 0, repeats: 1, servers: [serverId] });
        observer.disconnect();
        // Redraw the waterfall of this run and time it (chart.js draws synchronously).
        const select = document.querySelector('#waterfall-repeat');
        const started = performance.now();
        select.dispatchEvent(new Event('change'));
        const waterfallMs = performance.now() - started;
        const only = result.runs[0];
        return { totalMs: only.totalMs, failures: only.failures, valid: only.valid, maxInFlight: result.settings.maxInFlight, longestTaskMs: Math.max(0, ...tasks), waterfallMs };
      }, { requests, server });
      console.log(
        `  ${server.padEnd(8)} ${(m.totalMs / 1000).toFixed(2).padStart(6)} s · failures ${m.failures} (target 0) · ` +
          `waterfall ${m.waterfallMs.toFixed(0)} ms (target < 1000) · longest task ${m.longestTaskMs.toFixed(0)} ms (target ≤ 200) · ` +
          `max in flight ${m.maxInFlight}${m.valid ? '' : ' · INVALID'}`,
      );
    }

    console.log(`\nOverhead: 100 × 0.1 MiB, ${repeats} repeats per server, warm; (total − Resource Timing span) / total`);
    const o = await page.evaluate(async (repeatsPerServer) => {
      const result = await window.h2lab.run({ requests: 100, sizeMiB: 0.1, delayMs: 0, repeats: repeatsPerServer, connections: 'warm' });
      return result.runs.map((serverRun) => {
        const ok = serverRun.requests.filter((r) => !r.error);
        const span = Math.max(...ok.map((r) => r.endMs)) - Math.min(...ok.map((r) => r.startMs));
        return { server: serverRun.server, totalMs: serverRun.totalMs, spanMs: span };
      });
    }, repeats);
    for (const server of serverIds) {
      const runs = o.filter((r) => r.server === server);
      const shares = runs.map((r) => ((r.totalMs - r.spanMs) / r.totalMs) * 100).sort((a, b) => a - b);
      const med = shares[Math.floor((shares.length - 1) / 2)];
      const medTotal = runs.map((r) => r.totalMs).sort((a, b) => a - b)[Math.floor((runs.length - 1) / 2)];
      console.log(`  ${server.padEnd(8)} median total ${medTotal.toFixed(1)} ms · overhead median ${med.toFixed(2)} % (range ${shares[0].toFixed(2)} … ${shares.at(-1).toFixed(2)} %) · target < 2 %`);
    }
  } finally {
    await browser.close();
    await lab.close();
  }
}

process.exitCode = await runCli({ name: 'bench:lab', usage, parse, run });
