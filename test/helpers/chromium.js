// A Chromium started as a person starts one, on a DevTools port, for the tests that drive a
// browser someone else started (--browser-url) or one without the lab's own flags.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findChrome } from '../../runner/browsers/chrome.js';

/** A headless Chromium on a DevTools port, started as a person would; resolves { child, endpoint, profile, stop() }. */
export async function startChromium(flags = []) {
  const profile = mkdtempSync(path.join(tmpdir(), 'h2lab-remote-chrome-'));
  // In a process group of its own, so that stop() ends Chromium's helper processes with it: killed
  // alone, the browser left helpers that went on writing to the profile (ENOTEMPTY for 45 s in CI).
  const child = spawn(findChrome(), ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-port=0', `--user-data-dir=${profile}`, ...flags, 'about:blank'], { stdio: 'ignore', detached: true });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      process.kill(-child.pid, 'SIGKILL');
      await exited;
    } else {
      try {
        process.kill(-child.pid, 'SIGKILL'); // helpers of a browser that was killed alone (a test does)
      } catch {
        // none left
      }
    }
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      // Chromium creates the file before it writes the port: an empty first line is not a port yet.
      const port = readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0];
      if (/^\d+$/.test(port)) return { child, profile, stop, endpoint: `http://127.0.0.1:${port}` };
      throw new Error('no port yet');
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error('Chromium did not open its DevTools port');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

