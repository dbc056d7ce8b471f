// POST /api/replays: what the lab answers, one JSON object a line (server/replay/jobs.js), typed
// once for the lab that writes it and the page that reads it (client/lab/api.js).

/**
 * @typedef {object} ReplayPageInfo  a page the HAR holds, as the replay read it
 * @property {string} name
 * @property {string} url  the page loaded
 * @property {number} origins
 * @property {number} responses
 */

/**
 * @typedef {object} ReplayOutcome  the answer's last line
 * @property {{ exitCode: number, out: string, data: unknown, files: Record<string, string> }} [done]
 *   the replay's files: results.json's data; loads.csv, origins.csv and report.html as text;
 *   exitCode 1 when some load was invalid (it stays in the files with its reason)
 * @property {{ exitCode: number|null, error: string }} [failed]  it wrote nothing: its last line says why
 */

/**
 * @typedef {{ pages: ReplayPageInfo[] } | { line: string } | ReplayOutcome} ReplayEvent  a line of the answer: the
 *   pages first, then each progress line of the replay, then its outcome
 */

export {};
