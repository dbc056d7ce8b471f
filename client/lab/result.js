// The result object: what a measurement produces and what charts, exports, history and the
// runner consume. Nothing else is shared between them. Times are milliseconds, sizes bytes
// unless the name says MiB; throughputs are bytes per second ("Bps").

/**
 * @typedef {object} Settings
 * @property {number} requests      parallel fetches per timed run (1–10,000)
 * @property {number} sizeMiB       response size per request
 * @property {number} delayMs       server delay per request
 * @property {number} repeats       timed runs per server
 * @property {number} maxInFlight   dispatch window: at most this many fetches outstanding
 * @property {string[]} servers     ids among 'h1', 'h2-spdy', 'h2-node'
 * @property {'cold'|'warm'} connections  cold: POST /api/reset before each timed run; warm: untimed warm-up first
 * @property {string} preset        preset id (common/presets.js), the network the run claims
 * @property {'devtools'|'link'} network  who applies the preset: DevTools throttling (request-level,
 *   set by the person or the runner) or the lab link (connection-level; the run sets it)
 */

/**
 * @typedef {object} RequestRecord
 * @property {number} i            request index within the run (0-based)
 * @property {number} startMs      offset of the request's start from the run's first dispatch
 * @property {number|null} ttfbMs  time from the request's start to its first response byte: from
 *   Resource Timing, or from the page's clock under a throttled preset, because DevTools
 *   throttling delays the headers after Resource Timing's responseStart is taken
 * @property {number|null} endMs   offset of the end of its body from the run's first dispatch
 * @property {number} bytes        body bytes read
 * @property {string} protocol     negotiated protocol from Resource Timing: 'http/1.1' | 'h2' | ''
 * @property {number|null} connectionId  x-connection-id of the response
 * @property {number|null} serverDelayMs  the delay the server reports in server-timing
 * @property {string|null} error   why it failed (null when it succeeded)
 */

/**
 * @typedef {object} RunRecord
 * @property {string} server       'h1' | 'h2-spdy' | 'h2-node'
 * @property {string} protocol     the protocol most of its requests negotiated
 * @property {number} repeat       1-based
 * @property {number} totalMs      first dispatch → last body end
 * @property {boolean} valid       false when a request negotiated another protocol than the server promises
 * @property {string|null} invalidReason
 * @property {number} failures     requests that failed or had the wrong length
 * @property {number} connections  distinct connection ids seen
 * @property {RequestRecord[]} requests
 */

/**
 * @typedef {object} ServerSummary  over the totalMs of a server's valid runs
 * @property {number} n
 * @property {number} median
 * @property {number} mean
 * @property {number} p95
 * @property {number} min
 * @property {number} max
 * @property {number} sd
 * @property {[number, number]} ci95  95 % confidence interval of the median
 */

/**
 * @typedef {object} Comparison  an HTTP/2 server against h1
 * @property {string} server
 * @property {number} ratio           its median / h1's median (< 1: faster)
 * @property {[number, number]} ci95  95 % confidence interval of the ratio
 * @property {'faster'|'slower'|'no clear difference'} verdict  decided by the interval
 */

/**
 * @typedef {object} Result
 * @property {string} id
 * @property {string} startedAt     ISO time
 * @property {string} finishedAt
 * @property {Settings} settings
 * @property {{ userAgent: string, preset: object, network: 'devtools'|'link', link: object|null,
 *   calibration: { rttMs: number, downloadBps: number, probeBytes: number, server: string }|null,
 *   servers: object[] }} environment  preset: the preset's entry from presets.js; network: who
 *   applied it; link: the lab link's conditions during the run (GET /api/link), null under DevTools;
 *   calibration: measured through the same network as the runs; servers: from /api/servers
 * @property {RunRecord[]} runs
 * @property {boolean} stopped     the experiment ended before every run: Stop, or a failure after some runs
 * @property {string|null} stopReason  'stopped' (Stop) or what failed, e.g. the lab no longer answering
 * @property {Record<string, ServerSummary>} summary
 * @property {Comparison[]} comparisons
 * @property {Record<string, number>|null} floorMsByServer  least total time the preset's latency and
 *   bandwidth allow, per server id (client/lab/floor.js); null without throttling
 */

export const MiB = 1024 * 1024;
export const serverIds = ['h1', 'h2-spdy', 'h2-node'];
export const serverLabels = { h1: 'HTTP/1.1', 'h2-spdy': 'HTTP/2 (spdy)', 'h2-node': 'HTTP/2 (node:http2)' };
export const promisedProtocol = { h1: 'http/1.1', 'h2-spdy': 'h2', 'h2-node': 'h2' };
