// The fronts: server processes the lab starts in front of its handler, each the front of a family
// of the server registry (common/setup/servers.js `front`), behind one interface. Adding a front
// is its module and an entry here; lifecycle.js runs every one alike.
import { caddyFront } from './caddy.js';
import { nginxFront } from './nginx.js';

/**
 * @typedef {import('./caddy-config.js').CaddyServer} FrontServer  one server behind a front: its
 *   id, protocol, where the front listens for it and the upstream port it forwards to
 * @typedef {object} RunningFront  a front started: down for a hold, up again on release
 * @property {boolean} alive
 * @property {() => Promise<void>} hold  stops it, every connection and port with it, until release()
 * @property {() => Promise<void>} release  starts it again; resolves once it accepts connections
 * @property {() => Promise<void>} stop
 * @typedef {object} Front
 * @property {string} id  the registry's `front`
 * @property {string} title  what results and the page call it
 * @property {'noCaddy'|'noNginx'} offKey  the lab's option that leaves it out (server/config.js)
 * @property {string} installHint  the one line that says how to add the family when it is missing
 * @property {(env?: NodeJS.ProcessEnv) => string|null} find  its binary, or null; throws when a path given for it is wrong
 * @property {(bin: string) => Promise<string>} version
 * @property {(o: { bin: string, servers: FrontServer[], certFiles: string[], keyFile: string, limits: typeof import('../config.js').transportLimits,
 *   onDied: (why: string) => void }) => Promise<RunningFront>} start  certFiles: every certificate it serves (the lab's one, or a
 *   replay's: server/replay/certs.js), all of keyFile's key; throws, with `portInUse` where that is why, when it does not start
 * @property {number} heldMaxMs  how long a reset may hold its HTTP/3 ports closed
 */

/** @type {readonly Front[]} */
export const fronts = Object.freeze([caddyFront, nginxFront]);
