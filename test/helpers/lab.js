// Real servers on free ports and real TLS clients for the tests.
import https from 'node:https';
import http2 from 'node:http2';
import { once } from 'node:events';
import { familyOf, serverById, servers } from '../../common/setup/servers.js';
import { freePorts, startLab } from '../../server/lab.js';

/** `npm start`'s flags for a lab on free ports: the UI's, every server's and every twin port's. */
export const freePortArgs = ['--ui-port', '0', ...servers.flatMap((s) => [`--${s.portFlag}`, '0', `--${s.linkPortFlag}`, '0'])];

/**
 * Starts the lab on free ports; call lab.close() afterwards. Without Caddy unless a test asks
 * for it ({ noCaddy: false }), nor nginx ({ noNginx: false }): their families have tests of their own.
 */
export function startTestLab(options = {}, hooks) {
  return startLab({ ...freePorts, noCaddy: true, noNginx: true, ...options }, hooks);
}

export const serverOf = (lab, id) => lab.running.find((r) => r.id === id);

/** The stable part of an error answer { error, code, field } (server/http/errors.js): what tests match, never the text. */
export async function codeOf(res) {
  const { code, field } = await res.json();
  return { code, field };
}

/** One HTTP/1.1 request over TLS to an HTTP/1.1 server (h1 unless `id` says); resolves { status, headers, body, alpn }. servername: the name TLS checks, if not the Host header's. */
export function h1Request(lab, path, { method = 'GET', agent, headers, id = 'h1', servername } = {}) {
  const { origin } = serverOf(lab, id);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, origin), { method, agent, headers, ca: lab.certs.ca, ALPNProtocols: ['http/1.1'], servername }, (res) => {
      const chunks = [];
      const alpn = res.socket.alpnProtocol; // the socket goes back to the agent at 'end'
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), alpn }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP/2 session to one of the h2 servers; options go to http2.connect. */
export async function h2Connect(lab, id, options = {}) {
  const session = http2.connect(serverOf(lab, id).origin, { ca: lab.certs.ca, ...options });
  session.on('error', () => {});
  await once(session, 'connect');
  return session;
}

/** One request on an HTTP/2 session; resolves { status, headers, body, informational[] }. */
export function h2Request(session, path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, ...headers });
    const informational = [];
    const chunks = [];
    let response;
    stream.on('headers', (h) => informational.push({ headers: h, at: performance.now() }));
    stream.on('response', (h) => (response = h));
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve({ status: response[':status'], headers: response, body: Buffer.concat(chunks), informational, stream }));
    stream.on('error', reject);
    stream.end();
  });
}

/** A request against any server by id, through a client of its protocol. */
export async function request(lab, id, path, options = {}) {
  if (serverOf(lab, id).protocol === 'http/1.1') return h1Request(lab, path, { ...options, id });
  const session = await h2Connect(lab, id);
  try {
    return await h2Request(session, path, options);
  } finally {
    session.close();
  }
}

/** The Node servers, which every lab has: what most tests run against. */
export const ids = familyOf('node').map((s) => s.id);
/** The Caddy family's ids (test/caddy*.test.js; those tests need Caddy installed). */
export const caddyIds = familyOf('caddy').map((s) => s.id);
/** The Node HTTP/2 servers' ids, in the registry's order. */
export const h2Ids = familyOf('node').filter((s) => s.protocol === 'h2').map((s) => s.id);
export const isH1 = (id) => serverById(id).protocol === 'http/1.1';

export async function stats(lab) {
  const res = await fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/stats`);
  return Object.fromEntries((await res.json()).servers.map((s) => [s.id, s]));
}
