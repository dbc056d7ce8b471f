// What the servers accept by default: the largest body, the longest delay and the most assets a
// page may ask for. The servers take these as their flags' defaults (server/config.js); the page
// and the commands check settings against them until a running lab says otherwise
// (/api/servers `limits`), so there is one copy and the lab's own values win.
/** @typedef {{ maxSizeMiB: number, maxDelayMs: number, maxAssets: number }} ServerCaps */

/** @type {Readonly<ServerCaps>} */
export const defaultServerCaps = Object.freeze({
  // 64 MiB is 32 times the classic grid's largest point (2 MB); larger bodies only measure the
  // disk-less loopback's bandwidth for longer.
  maxSizeMiB: 64,
  // A minute of think time covers every realistic server delay; longer only holds sockets open.
  maxDelayMs: 60_000,
  // One HTML page referencing more than 50 scripts is no longer a page-load experiment.
  maxAssets: 50,
});
