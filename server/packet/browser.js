// How a browser joins the packet network's browser side: started through browser-side.sh, which
// enters that namespace, and told that the lab's names are the server side's address. Origins
// stay as they are (https://localhost:port, HTTP/3 on https://127.0.0.1:port), so do the
// certificate and QUIC's forced origins: Chromium's MappedHostResolver rewrites a host before
// resolving it, IP literals included (net/dns/mapped_host_resolver.cc; seen here with fetches).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { browserNetnsPath, insideOwnLoopback } from './inside.js';
import { serverSideAddress } from './sides.js';
import { allLabHostNames } from '../../common/setup/host-names.js';
/** The names of the lab's origins, which resolve to the server side: by name too beside Firefox (common/setup/host-names.js). */
export const labNames = ['localhost', '127.0.0.1', ...allLabHostNames];
const wrapper = fileURLToPath(new URL('./browser-side.sh', import.meta.url));

/**
 * The person's own user and group outside launch.py's user namespace, which maps them to root
 * (uid_map "0 <outer> 1"): the browser runs as them again, in a user namespace of its own
 * (browser-side.sh). Chrome refuses its sandbox as root, and as that person it keeps it: the
 * namespace sandbox and seccomp-BPF both work there (chrome://sandbox: "adequately sandboxed").
 * Outside launch.py, or for a person who is root, uid is 0.
 */
export function personOutside() {
  /** @param {string} file */
  const outer = (file) => Number(/^\s*0\s+(\d+)\s+1\s*$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  return { uid: outer('/proc/self/uid_map'), gid: outer('/proc/self/gid_map') };
}

/**
 * playwright-core's launch options for `browserPath` on the browser side: { executablePath, env, args }.
 * Only under launch.py; under launch.py --loopback the browser stays beside the lab, as the person
 * all the same, and its names are the caller's to map (the lab is on this loopback). The wrapper's
 * variables are for it alone: it takes them out of the browser's environment before it starts the browser.
 * @param {string} browserPath
 * @param {NodeJS.ProcessEnv} [env]
 */
export function browserSide(browserPath, env = process.env) {
  const { uid, gid } = personOutside();
  const person = uid === 0 ? {} : { H2LAB_PACKET_BROWSER_UID: String(uid), H2LAB_PACKET_BROWSER_GID: String(gid) };
  if (insideOwnLoopback()) return { executablePath: wrapper, env: { ...env, ...person, H2LAB_PACKET_BROWSER: browserPath }, args: [] };
  return {
    executablePath: wrapper,
    env: { ...env, ...person, H2LAB_PACKET_BROWSER: browserPath, H2LAB_PACKET_BROWSER_NETNS: browserNetnsPath() },
    args: [`--host-resolver-rules=${labNames.map((name) => `MAP ${name} ${serverSideAddress}`).join(', ')}`],
  };
}
