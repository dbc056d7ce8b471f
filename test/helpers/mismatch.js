// A loaded machine can push the calibration's loopback round trip past its allowance, which
// rightly invalidates the point (network-mismatch, exit 1; seen in CI runs). Tests about something
// else (whole bodies, connections) accept that reason alone: every other one still fails them.
const isMismatch = (why) => why.code === 'network-mismatch';

/** A run's invalid reasons other than a network mismatch. */
export const reasonsBesidesMismatch = (run) => run.invalidReasons.filter((why) => !isMismatch(why));

/** The runner's exit code is 0, or 1 only because every run's point was a network mismatch. */
export const exitedCleanOrMismatched = (status, runs) => status === 0 || (status === 1 && runs.every((run) => run.invalidReasons.some(isMismatch)));
