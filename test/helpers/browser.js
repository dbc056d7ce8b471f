// A real Chromium for the end-to-end tests, found as the app finds it and trusting the lab's
// certificate key; fails with one line naming what to install when there is none.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { chromeFlags, findChrome } from '../../runner/chrome.js';

/** @returns {Promise<{ context, close(): Promise<void> }>} */
export async function launchBrowser(lab, options = {}) {
  const executablePath = findChrome();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'h2lab-test-chrome-'));
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
