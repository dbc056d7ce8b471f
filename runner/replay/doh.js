// The replay's own DNS, for Firefox on the packet network: Firefox has no per-host resolver map
// (forceResolve gives every name one address), but in TRR mode 3 it asks one DNS-over-HTTPS
// server (RFC 8484) for every name and nothing else (firefox-prefs.js). Here each recorded host is
// answered with its own address on the packet network (flags.js hostAddresses, as Chromium's
// rules map it) and every other name with NXDOMAIN, so an unrecorded host resolves to nothing, as
// in Chromium. It listens on the browser side's loopback (server/packet/relay.js), so a lookup
// does not cross the emulated path: it costs a loopback exchange, not the preset's round trip.
// Checked with Firefox 153 ESR: each host reached at the address answered, an unrecorded one not at all.
import https from 'node:https';
import dnsPacket from 'dns-packet';
import { listenOnBrowserSide } from '../../server/packet/relay.js';

/** The DoH server's name: in the replay's certificates (command.js), never looked up (bootstrapAddr). */
export const dohHost = 'doh.h2lab.test';

// An answer's lifetime (s): a replay's addresses do not change while it runs.
const ttlS = 3600;
// A DNS message over HTTPS is at most 65,535 bytes (RFC 8484 §6: its length field's bound).
const maxMessageBytes = 65_535;
const nxDomain = 3; // RCODE "Name Error" (RFC 1035 §4.1.1)

/**
 * @param {{ tls: import('node:tls').SecureContextOptions & { SNICallback?: unknown }, addressOf: Map<string, string> }} o
 *   tls: the replay's (a leaf naming dohHost); addressOf: each recorded host's address
 * @returns {Promise<{ uri: string, answered: Map<string, string>, close: () => Promise<void> }>}
 *   answered: each host Firefox was given an address for
 */
export async function startDoh({ tls, addressOf }) {
  /** @type {Map<string, string>} */
  const answered = new Map();
  const server = https.createServer(/** @type {import('node:https').ServerOptions} */ (tls), async (req, res) => {
    try {
      const query = dnsPacket.decode(await messageOf(req));
      const answer = dnsPacket.encode(answerTo(query, addressOf, answered));
      res.writeHead(200, { 'content-type': 'application/dns-message', 'cache-control': `max-age=${ttlS}`, 'content-length': answer.length }).end(answer);
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`not a DNS query: ${/** @type {Error} */ (err).message}\n`);
    }
  });
  const { port, server: socket } = await listenOnBrowserSide();
  await new Promise((resolve) => server.listen(socket, () => resolve(undefined)));
  return {
    uri: `https://${dohHost}:${port}/dns-query`,
    answered,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/**
 * The query a request carries: POST's body, or GET's `dns` parameter (base64url).
 * @param {import('node:http').IncomingMessage} req
 */
async function messageOf(req) {
  if (req.method === 'GET') return Buffer.from(new URL(req.url ?? '/', 'https://doh').searchParams.get('dns') ?? '', 'base64url');
  /** @type {Buffer[]} */
  const pieces = [];
  let bytes = 0;
  for await (const piece of req) {
    bytes += piece.length;
    if (bytes > maxMessageBytes) throw new Error(`over ${maxMessageBytes} bytes`);
    pieces.push(piece);
  }
  return Buffer.concat(pieces);
}

/**
 * A recorded host's A record, nothing for its other types (AAAA, HTTPS: the lab is IPv4, and its
 * HTTP/3 is told by the alt-svc mapping), NXDOMAIN for any other name.
 * @param {import('dns-packet').Packet} query @param {Map<string, string>} addressOf @param {Map<string, string>} answered
 * @returns {import('dns-packet').Packet}
 */
function answerTo(query, addressOf, answered) {
  const [question] = query.questions ?? [];
  const name = question?.name.toLowerCase().replace(/\.$/, '') ?? '';
  const address = addressOf.get(name);
  const answers = address && question.type === 'A' ? [{ type: /** @type {const} */ ('A'), name: question.name, ttl: ttlS, data: address }] : [];
  if (answers.length) answered.set(name, address ?? '');
  // The response code is the flags' low 4 bits (RFC 1035 §4.1.1), which dns-packet encodes from flags alone.
  const rcode = address || name === dohHost ? 0 : nxDomain;
  return { type: 'response', id: query.id, flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode, questions: query.questions, answers };
}
