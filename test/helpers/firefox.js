// Whether the tests can start Firefox here.
import { spawnSync } from 'node:child_process';
import { findFirefox, firefoxInstallHint } from '../../runner/browsers/firefox.js';

/** Why Firefox cannot run here, or false: it runs in CI (.ci/run installs both). */
export function firefoxMissing() {
  try {
    findFirefox();
  } catch {
    return `Firefox is not installed: ${firefoxInstallHint}; .ci/run installs it`;
  }
  if (spawnSync('certutil', ['-H']).error) return "certutil is not installed (Debian's libnss3-tools); .ci/run installs it";
  return false;
}
