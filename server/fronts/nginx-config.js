// nginx's configuration for a front of nginx (docs/notes/nginx-1.26.md has the checks behind each
// choice): one server block a protocol, loopback only, the lab's certificate, every path inside
// the lab's private folder, and each server proxied to its own upstream as Caddy's are.
import path from 'node:path';
import { clientHeader, refuseHeader } from '../transports/upstream.js';

/** @param {number} ms */
const seconds = (ms) => `${Math.max(1, Math.ceil(ms / 1000))}s`;

/** @param {string} host @param {number} port */
const address = (host, port) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * A server's block. HTTP/1.1: TLS offering http/1.1 alone. HTTP/2: nginx offers http/1.1 beside
 * h2 and cannot leave it out, so an HTTP/1.1 request there is marked for the handler's 505, as
 * Caddy's HTTP/2 port does. HTTP/3: QUIC alone, no TCP listener at all.
 * @param {import('./fronts.js').FrontServer} s
 */
function serverBlock(s) {
  const listen = {
    'http/1.1': `listen ${address(s.listenHost, s.port)} ssl;`,
    h2: `listen ${address(s.listenHost, s.port)} ssl;\n    http2 on;`,
    h3: `listen ${address(s.listenHost, s.port)} quic;\n    http3 on;`,
  }[s.protocol];
  return `  server {
    ${listen}
    location / {
      proxy_pass http://u_${s.upstreamPort};
      # Every proxy_set_header here: a level that sets any inherits none from above.
      proxy_set_header Connection "";
      # $host, not $http_host: an HTTP/3 request has :authority and no Host header.
      proxy_set_header Host $host;
      # Only the front sets the lab's request headers, which the upstream trusts: a client's are replaced.
      proxy_set_header X-Lab-Front ${s.id};
      proxy_set_header ${clientHeader} $remote_addr:$remote_port;
      proxy_set_header ${refuseHeader} ${s.protocol === 'h2' ? '$h2lab_refusal' : '""'};
    }
  }`;
}

/**
 * @param {object} o
 * @param {import('./fronts.js').FrontServer[]} o.servers
 * @param {string[]} o.certFiles PEM each; several are one folder's <host>.crt (server/replay/certs.js),
 *   which nginx picks by the client's SNI
 * @param {string} o.keyFile PEM, every certificate's key
 * @param {string} o.dir  the lab's private folder for this nginx: pid, log and temporary files
 * @param {{ idleTimeoutMs: number, headersTimeoutMs: number }} o.limits transportLimits
 * @param {boolean} [o.root]  the lab runs as root (in the packet network's user namespace too)
 * @returns {string}
 */
export function nginxConfig({ servers, certFiles, keyFile, dir, limits, root = false }) {
  // One certificate, or one a host: nginx loads the file the SNI names at each handshake (a
  // variable in ssl_certificate, from 1.15.9); a name without a file fails that handshake.
  const certFile = certFiles.length === 1 ? certFiles[0] : path.join(path.dirname(certFiles[0]), '$ssl_server_name.crt');
  // An upstream connection serves any number of requests: at nginx's default of 1,000 it opened 1.0
  // new upstream connection per 1,000 HTTP/1.1 requests under load (bench:front), Caddy 0.0.
  const upstreams = [...new Set(servers.map((s) => s.upstreamPort))].map((port) => `  upstream u_${port} {\n    server 127.0.0.1:${port};\n    keepalive 128;\n    keepalive_requests 1000000;\n  }`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/tmp/${t};`);
  return `# h2lab's nginx front, generated for this run (server/fronts/nginx-config.js)
# One process (no master): the kernel ends it with the lab (setpriv --pdeathsig), which a master's
# workers would outlive; the lab never reloads it, it starts a new one.
daemon off;
master_process off;
${root ? `# As root nginx gives its temporary folders to the user named here, nobody by default: a user
# namespace has no nobody (chown fails), and they stay the lab's.
user root;
` : ''}pid ${dir}/nginx.pid;
error_log stderr error;
events {
  worker_connections 1024;
}
http {
  access_log off;
${temp.join('\n')}
  ssl_certificate ${certFile};
  ssl_certificate_key ${keyFile};
  ssl_protocols TLSv1.2 TLSv1.3;
  # Cold is cold: no session cache and no tickets, so no connection resumes one of an earlier run.
  ssl_session_cache off;
  ssl_session_tickets off;
  # The same bounds as the Node servers (server/config.js transportLimits).
  keepalive_timeout ${seconds(limits.idleTimeoutMs)};
  # nginx closes a connection after 1,000 requests by default (HTTP/2 and HTTP/3 too); the Node
  # servers and Caddy never do, and a run may send up to 10,000 over one connection.
  keepalive_requests 1000000;
  client_header_timeout ${seconds(limits.headersTimeoutMs)};
  # Bodies as they come, both ways: nginx buffers proxied responses by default.
  proxy_buffering off;
  proxy_request_buffering off;
  proxy_http_version 1.1;
  # "Server: nginx", without its version; nginx 1.26 cannot leave the header out (Caddy's front does).
  server_tokens off;
  map $server_protocol $h2lab_refusal {
    "HTTP/2.0" "";
    default not-http2;
  }
${upstreams.join('\n')}
${servers.map(serverBlock).join('\n')}
}
`;
}
