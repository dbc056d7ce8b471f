// Real servers on free ports and real TLS clients for the tests.
import https from 'node:https';
import http2 from 'node:http2';
import { once } from 'node:events';
import { freePorts, startLab } from '../../server/lab.js';

/** Starts the whole lab on free ports; call lab.close() afterwards. */
export function startTestLab(options = {}) {
  return startLab({ ...freePorts, ...options });
}

export const serverOf = (lab, id) => lab.running.find((r) => r.id === id);

/** One HTTP/1.1 request over TLS; resolves { status, headers, body, alpn, socket }. */
export function h1Request(lab, path, { method = 'GET', agent, headers } = {}) {
  const { origin } = serverOf(lab, 'h1');
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, origin), { method, agent, headers, ca: lab.certs.ca, ALPNProtocols: ['http/1.1'] }, (res) => {
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

/** A request against any of the three servers by id, each through its own client. */
export async function request(lab, id, path, options = {}) {
  if (id === 'h1') return h1Request(lab, path, options);
  const session = await h2Connect(lab, id);
  try {
    return await h2Request(session, path, options);
  } finally {
    session.close();
  }
}

export const ids = ['h1', 'h2-spdy', 'h2-node'];

export async function stats(lab) {
  const res = await fetch(`${lab.uiOrigin.replace('localhost', '127.0.0.1')}/api/stats`);
  return Object.fromEntries((await res.json()).servers.map((s) => [s.id, s]));
}
