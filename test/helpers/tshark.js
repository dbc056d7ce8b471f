// Whether the tests that read captures back with tshark (Wireshark's, from Debian) can run here.
import { execFileSync } from 'node:child_process';

/** Why the tshark tests are skipped, or null when tshark is installed. */
export const tsharkMissing = (() => {
  try {
    execFileSync('tshark', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'tshark is not installed (apt-get install tshark); .ci/run installs it';
  }
})();
