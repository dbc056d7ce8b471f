// How a browser joins the packet network's browser side: started through browser-side.sh, which
// enters that namespace, and told that the lab's names are the server side's address. Origins
// stay as they are (https://localhost:port, HTTP/3 on https://127.0.0.1:port), so do the
// certificate and QUIC's forced origins: Chromium's MappedHostResolver rewrites a host before
// resolving it, IP literals included (net/dns/mapped_host_resolver.cc; seen here with fetches).
import { fileURLToPath } from 'node:url';

export const serverSideAddress = '198.18.0.1';
const wrapper = fileURLToPath(new URL('./browser-side.sh', import.meta.url));

/**
 * playwright-core's launch options for `browserPath` on the browser side: { executablePath, env, args }.
 * Only under launch.py, whose descriptors the wrapper uses.
 */
export function browserSide(browserPath, env = process.env) {
  return {
    executablePath: wrapper,
    env: { ...env, H2LAB_PACKET_BROWSER: browserPath },
    args: [`--host-resolver-rules=MAP localhost ${serverSideAddress}, MAP 127.0.0.1 ${serverSideAddress}`],
  };
}
