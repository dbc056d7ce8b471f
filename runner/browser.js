// A headless Chromium driven by playwright-core for the tests, the benchmarks and the runner:
// found as the app finds it, trusting the lab's certificate key; when there is none, findChrome
// throws one line naming what to install.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from './chrome.js';

/**
 * @param {{ certs: { spkiSha256: string } }} lab a started lab (server/lab.js)
 * @param {object} options more options for playwright's launchPersistentContext
 * @returns {Promise<{ context, close(): Promise<void> }>}
 */
export async function launchBrowser(lab, options = {}) {
  const executablePath = findChrome();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'h2lab-chromium-'));
  // Playwright passes the profile folder itself.
  const args = chromeFlags({ spkiSha256: lab.certs.spkiSha256, userDataDir, headless: false }).filter((f) => !f.startsWith('--user-data-dir'));
  const context = await chromium.launchPersistentContext(userDataDir, { executablePath, headless: true, args, ...options });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the lab's page in a new tab and waits for its preflight; throws one line naming the
 * servers the browser cannot reach.
 * @returns {Promise<import('playwright-core').Page>}
 */
export async function openLabPage(context, uiOrigin) {
  const page = await context.newPage();
  await page.goto(`${uiOrigin}/`);
  await page.waitForFunction(() => window.h2lab?.ready !== undefined, null, { timeout: 30_000 });
  if (!(await page.evaluate(() => window.h2lab.ready))) {
    throw new Error(`the browser cannot reach every server: ${(await page.locator('#preflight-list').innerText()).replaceAll('\n', '; ')}`);
  }
  return page;
}

/** The browser's name and full version (the user agent hides the full version), and its user agent. */
export async function browserVersion(session) {
  const { product, userAgent } = await session.send('Browser.getVersion');
  return { browser: product.replace('HeadlessChrome', 'Chromium (headless)'), userAgent };
}
