// Chromium's NetLog (--log-net-log, default capture mode) read into one record per connection:
// what a packet capture cannot see through TLS. TCP: a SOCKET source's TCP_CONNECT end names the
// local port, its SSL_CONNECT end the ALPN, TLS version and resumption. QUIC: a QUIC_SESSION has
// no port of its own; the job that created it (QUIC_SESSION_CREATED) owns a UDP_CLIENT_SOCKET
// whose UDP_SOCKET logs UDP_LOCAL_ADDRESS. Event and source numbers come from the file's own
// constants table (they change between Chromium versions). Pure apart from reading the file; a
// file cut short or not a NetLog gives what could be read and an error, never a throw.
// What each field means and how it was checked: docs/evidence.md, "NetLog per connection".
import fs from 'node:fs';

/**
 * @typedef {object} NetLogEvent
 * @property {number} type  a value of constants.logEventTypes
 * @property {string|number} time  ms on Chromium's tick clock
 * @property {{ id: number, type: number, start_time?: string }} source
 * @property {number} phase  a value of constants.logEventPhase
 * @property {any} [params]
 */

/** @typedef {{ constants: Record<string, any>, events: NetLogEvent[] }} NetLog */

/** @typedef {import('../../common/report/result.js').NetLogConnection} NetLogConnection  its fields are explained there */
/** @typedef {import('../../common/report/result.js').ZeroRtt} ZeroRtt */
/** @typedef {import('../../common/report/result.js').QuicFigures} QuicFigures */

/**
 * The index just past the JSON object or array opening at `start`, or -1 where the text ends first.
 * @param {string} text @param {number} start
 */
function valueEnd(text, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i += 1; // backslash: skip what it escapes
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) depth += 1;
    else if ((ch === 125 || ch === 93) && --depth === 0) return i + 1;
  }
  return -1;
}

/**
 * A NetLog from its text. Chromium writes the constants first, then one event a line, and closes
 * the file with `]}` only when it exits cleanly: a killed browser leaves it open, so a text that is
 * not JSON is read up to its last complete event.
 * @param {string} text
 * @returns {{ log: NetLog|null, error: string|null }}
 */
export function parseNetLog(text) {
  let parseError;
  try {
    const whole = JSON.parse(text);
    if (whole?.constants && Array.isArray(whole.events)) return { log: whole, error: null };
    return { log: null, error: 'not a NetLog: no constants and events' };
  } catch (e) {
    parseError = /** @type {Error} */ (e).message;
  }
  const constantsAt = text.indexOf('{', text.indexOf('"constants"') + 1);
  const constantsEnd = text.startsWith('{') && constantsAt > 0 ? valueEnd(text, constantsAt) : -1;
  const eventsKey = constantsEnd < 0 ? -1 : text.indexOf('"events"', constantsEnd);
  const eventsAt = eventsKey < 0 ? -1 : text.indexOf('[', eventsKey);
  if (eventsAt < 0) return { log: null, error: `not a NetLog (${parseError})` };
  /** @type {NetLogEvent[]} */
  const events = [];
  let closed = false;
  try {
    const constants = JSON.parse(text.slice(constantsAt, constantsEnd));
    for (let i = eventsAt + 1; i < text.length; i += 1) {
      const ch = text[i];
      if (ch === ']') { closed = true; break; }
      if (ch !== '{') continue; // whitespace and commas between events
      const end = valueEnd(text, i);
      if (end < 0) break; // the event the file was cut in
      events.push(JSON.parse(text.slice(i, end)));
      i = end - 1;
    }
    const where = closed ? 'after its events' : `after ${events.length} complete events`;
    return { log: { constants, events }, error: `NetLog cut short ${where} (Chromium did not close it: killed?)` };
  } catch (e) {
    return { log: null, error: `not a NetLog: ${/** @type {Error} */ (e).message} after ${events.length} events` };
  }
}

/**
 * @param {string} file
 * @returns {{ log: NetLog|null, error: string|null }}
 */
export function readNetLog(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { log: null, error: `cannot read ${file}: ${/** @type {Error} */ (e).message}` };
  }
  return parseNetLog(text);
}

/** @param {unknown} address  '198.18.0.2:43634' or '[::1]:443' */
const portOf = (address) => (typeof address === 'string' && address.includes(':') ? Number(address.slice(address.lastIndexOf(':') + 1)) : null);

/** BoringSSL's ssl_early_data_reason_t values Chromium calls a rejection (LogZeroRttStats). */
const earlyDataAccepted = 2;
const earlyDataRejected = new Set([4, 6, 8]); // peer_declined, session_not_resumed, hello_retry_request

/** @type {Record<string, ZeroRtt>} */
const quicZeroRtt = { NotAttempted: 'not-attempted', AttemptedAndSucceeded: 'accepted', AttemptedAndRejected: 'rejected' };

/**
 * Whether a TLS 1.3 ServerHello (base64, from a CRYPTO frame) carries pre_shared_key: the server
 * resumed the session. null where the bytes are not a whole ServerHello.
 * @param {unknown} base64
 */
function serverHelloResumed(base64) {
  if (typeof base64 !== 'string') return null;
  const b = Buffer.from(base64, 'base64');
  if (b[0] !== 2 || b.length < 4 + b.readUIntBE(1, 3)) return null;
  let i = 4 + 2 + 32; // type and length, legacy version, random
  i += 1 + b[i] + 2 + 1; // session id, cipher suite, compression
  if (i + 2 > b.length) return null;
  const end = i + 2 + b.readUInt16BE(i);
  for (i += 2; i + 4 <= end && i + 4 <= b.length; i += 4 + b.readUInt16BE(i + 2)) {
    if (b.readUInt16BE(i) === 41) return true;
  }
  return false;
}

/**
 * @typedef {object} NetLogReader  a NetLog's events by source, the joins between sources, and what
 *   reading an event takes
 * @property {Map<number, NetLogEvent[]>} bySource
 * @property {Map<number, number>} creatorOf  a QUIC session's id → the job that created it
 * @property {Map<number, number[]>} socketsOf  a source → the sockets whose SOCKET_ALIVE names it
 * @property {Record<string, number>} T  event types by name
 * @property {number} BEGIN  the phases' values
 * @property {number} END
 * @property {Record<string, number>|undefined} netError  error names by number
 * @property {Record<string, number>|undefined} quicError
 * @property {(e: NetLogEvent) => number} epoch  an event's time, ms since the epoch
 * @property {(evs: NetLogEvent[], name: string, phase?: number) => NetLogEvent|undefined} find  the first event of a type (and phase)
 */

/**
 * One record per TCP connection (with or without TLS) and per QUIC session whose port is known,
 * in the order they started.
 * @param {NetLog|null} log
 * @returns {{ connections: NetLogConnection[], error: string|null }}
 */
export function netLogConnections(log) {
  const c = log?.constants;
  if (!c?.logEventTypes || !c.logSourceType || !c.logEventPhase || !Array.isArray(log?.events)) {
    return { connections: [], error: 'not a NetLog: its constants lack logEventTypes, logSourceType or logEventPhase' };
  }
  const offset = Number(c.timeTickOffset);
  if (!Number.isFinite(offset)) return { connections: [], error: 'NetLog without timeTickOffset: its times cannot be placed' };
  const reader = netLogReader(log.events, c, offset);
  const S = c.logSourceType;
  /** @type {NetLogConnection[]} */
  const connections = [];
  for (const [id, evs] of reader.bySource) {
    const type = evs[0].source.type;
    const record = type === S.SOCKET ? tcpRecord(reader, id, evs) : type === S.QUIC_SESSION ? quicRecord(reader, id, evs) : null;
    if (record) connections.push(record);
  }
  connections.sort((a, b) => a.startEpochMs - b.startEpochMs);
  return { connections, error: null };
}

/**
 * @param {NetLogEvent[]} events
 * @param {Record<string, any>} c  the NetLog's constants, checked
 * @param {number} offset  timeTickOffset: the epoch of Chromium's tick 0
 * @returns {NetLogReader}
 */
function netLogReader(events, c, offset) {
  /** @type {Record<string, number>} */
  const T = c.logEventTypes;
  const { PHASE_BEGIN: BEGIN, PHASE_END: END } = c.logEventPhase;
  /** @type {Map<number, NetLogEvent[]>} */
  const bySource = new Map();
  /** @type {Map<number, number>} */
  const creatorOf = new Map();
  /** @type {Map<number, number[]>} */
  const socketsOf = new Map();
  for (const e of events) {
    if (!e?.source) continue;
    const list = bySource.get(e.source.id);
    if (list) list.push(e);
    else bySource.set(e.source.id, [e]);
    const dependency = e.params?.source_dependency?.id;
    if (dependency === undefined) continue;
    if (e.type === T.QUIC_SESSION_CREATED) creatorOf.set(dependency, e.source.id);
    else if (e.type === T.SOCKET_ALIVE && e.phase === BEGIN) socketsOf.set(dependency, [...(socketsOf.get(dependency) ?? []), e.source.id]);
  }
  return {
    bySource, creatorOf, socketsOf, T, BEGIN, END,
    netError: c.netError, quicError: c.quicError,
    epoch: (e) => offset + Number(e.time),
    find: (evs, name, phase) => evs.find((e) => e.type === T[name] && (phase === undefined || e.phase === phase)),
  };
}

/** A constant's name by its value, else the value. @param {Record<string, number>|undefined} table @param {number} value */
const nameIn = (table, value) => Object.keys(table ?? {}).find((k) => table?.[k] === value) ?? String(value);

/**
 * A SOCKET source's record, or null for one that never connected: no port to join by.
 * @param {NetLogReader} reader @param {number} id @param {NetLogEvent[]} evs
 * @returns {NetLogConnection|null}
 */
function tcpRecord({ find, epoch, BEGIN, END, netError }, id, evs) {
  const connected = find(evs, 'TCP_CONNECT', END);
  const clientPort = portOf(connected?.params?.local_address);
  const serverPort = portOf(connected?.params?.remote_address);
  if (!connected || clientPort === null || serverPort === null) return null;
  const start = epoch(find(evs, 'TCP_CONNECT', BEGIN) ?? evs[0]);
  const ssl = find(evs, 'SSL_CONNECT', END);
  const failed = ssl?.params?.net_error !== undefined;
  const reason = find(evs, 'SSL_HANDSHAKE_EARLY_DATA_REASON')?.params?.early_data_reason;
  /** @type {ZeroRtt|null} */
  let zeroRtt = null;
  if (ssl && !failed) zeroRtt = reason === earlyDataAccepted ? 'accepted' : earlyDataRejected.has(reason) ? 'rejected' : 'not-attempted';
  return {
    transport: 'tcp', clientPort, serverPort, startEpochMs: start,
    handshakeMs: ssl && !failed ? epoch(ssl) - start : null,
    protocol: ssl && !failed ? ssl.params?.next_proto ?? null : null,
    tlsVersion: ssl && !failed ? ssl.params?.version ?? null : null,
    resumed: ssl && !failed ? ssl.params?.is_resumed ?? null : null,
    zeroRtt, quic: null,
    error: failed ? nameIn(netError, ssl?.params?.net_error) : null,
    sourceId: id,
  };
}

/**
 * The session's UDP socket: of those its creating job (or, after a migration, the session)
 * opened with a local address, the latest opened by the session's start.
 * @param {NetLogReader} reader @param {number} id @param {number} startMs
 */
function udpSocketOf({ creatorOf, socketsOf, bySource, find, epoch, BEGIN }, id, startMs) {
  const creator = creatorOf.get(id);
  const clients = [...(creator === undefined ? [] : socketsOf.get(creator) ?? []), ...(socketsOf.get(id) ?? [])];
  const sockets = clients.flatMap((client) => socketsOf.get(client) ?? []).map((s) => bySource.get(s) ?? [])
    .filter((evs) => find(evs, 'UDP_LOCAL_ADDRESS'));
  const opened = sockets.filter((evs) => epoch(evs[0]) <= startMs);
  const chosen = opened.at(-1) ?? sockets[0];
  if (!chosen) return null;
  return { clientPort: portOf(find(chosen, 'UDP_LOCAL_ADDRESS')?.params?.address), serverPort: portOf(find(chosen, 'UDP_CONNECT', BEGIN)?.params?.address) };
}

/**
 * A QUIC_SESSION source's record, or null where its ports cannot be known.
 * @param {NetLogReader} reader @param {number} id @param {NetLogEvent[]} evs
 * @returns {NetLogConnection|null}
 */
function quicRecord(reader, id, evs) {
  const { T, find, epoch, quicError } = reader;
  const start = epoch(evs[0]);
  const received = find(evs, 'QUIC_SESSION_PACKET_RECEIVED');
  const socket = udpSocketOf(reader, id, start);
  // A session without its socket events (a log cut or started late): the first datagram's addresses.
  const clientPort = socket?.clientPort ?? portOf(received?.params?.self_address);
  const serverPort = socket?.serverPort ?? portOf(received?.params?.peer_address) ?? evs[0].params?.port ?? null;
  if (clientPort === null || serverPort === null) return null;
  const sent = evs.filter((e) => e.type === T.QUIC_SESSION_PACKET_SENT);
  /** @type {Record<string, number>} */
  const retransmissionTypes = {};
  for (const e of sent) {
    const kind = e.params?.transmission_type;
    if (kind && kind !== 'NOT_RETRANSMISSION') retransmissionTypes[kind] = (retransmissionTypes[kind] ?? 0) + 1;
  }
  const zeroRttPacketsSent = sent.filter((e) => e.params?.encryption_level === 'ENCRYPTION_ZERO_RTT').length;
  const complete = find(evs, 'QUIC_SESSION_CRYPTO_HANDSHAKE_COMPLETE');
  const state = find(evs, 'QUIC_SESSION_ZERO_RTT_STATE')?.params?.state;
  /** @type {ZeroRtt} */
  let zeroRtt = zeroRttPacketsSent && !complete ? 'unconfirmed' : 'not-attempted';
  if (typeof state === 'string') zeroRtt = quicZeroRtt[state] ?? /** @type {ZeroRtt} */ (state);
  const hello = evs.find((e) => e.type === T.QUIC_SESSION_CRYPTO_FRAME_RECEIVED && e.params?.encryption_level === 'ENCRYPTION_INITIAL' && e.params?.offset === 0);
  const closed = find(evs, 'QUIC_SESSION_CLOSED');
  const count = (/** @type {string} */ name) => evs.filter((e) => e.type === T[name]).length;
  return {
    transport: 'udp', clientPort, serverPort, startEpochMs: start,
    handshakeMs: complete ? epoch(complete) - start : null,
    protocol: 'h3', tlsVersion: 'TLS 1.3', // QUIC v1 is TLS 1.3, and Chromium speaks HTTP/3 over it
    resumed: hello ? serverHelloResumed(hello.params?.bytes) : null,
    zeroRtt,
    quic: {
      version: find(evs, 'QUIC_SESSION_VERSION_NEGOTIATED')?.params?.version ?? null,
      packetsSent: sent.length,
      packetsReceived: count('QUIC_SESSION_PACKET_RECEIVED'),
      packetsLost: count('QUIC_SESSION_PACKET_LOST'),
      packetsRetransmitted: Object.values(retransmissionTypes).reduce((a, b) => a + b, 0),
      retransmissionTypes, zeroRttPacketsSent, ...serverLosses(T, evs),
      closeReason: closed ? { error: nameIn(quicError, closed.params?.quic_error), details: closed.params?.details ?? null, fromPeer: closed.params?.from_peer === true } : null,
    },
    error: null, sourceId: id,
  };
}

/**
 * What the server sent that never came, and what it sent again: QUIC encrypts both from a
 * capture, the client's log has the 1-RTT packet numbers it received and each stream frame's offset.
 * @param {Record<string, number>} T  event types by name
 * @param {NetLogEvent[]} evs  a QUIC session's
 */
function serverLosses(T, evs) {
  const numbers = new Set(evs.filter((e) => e.type === T.QUIC_SESSION_UNAUTHENTICATED_PACKET_HEADER_RECEIVED && e.params?.header_format === 'IETF_QUIC_SHORT_HEADER_PACKET').map((e) => Number(e.params?.packet_number)));
  const serverPacketsMissing = numbers.size ? Math.max(...numbers) - Math.min(...numbers) + 1 - numbers.size : 0;
  /** @type {Map<number, number>} each stream's highest offset received */
  const streamEnds = new Map();
  let streamFramesResent = 0;
  for (const e of evs) {
    if (e.type !== T.QUIC_SESSION_STREAM_FRAME_RECEIVED) continue;
    const { stream_id: stream, offset: at, length } = e.params ?? {};
    const end = streamEnds.get(stream) ?? 0;
    if (length > 0 && at < end) streamFramesResent += 1;
    streamEnds.set(stream, Math.max(end, at + length));
  }
  return { serverPacketsMissing, streamFramesResent };
}

/**
 * How far a NetLog start may lie after the capture's first packet of the same connection and still
 * be its start: Chromium logs a packet 1–2 ms before the emulator takes it (measured), and the
 * two clocks are the same machine's.
 */
export const startSkewMs = 1_000;

/**
 * A run's capture records, each with the NetLog connection on the same transport and ports.
 * Where the NetLog has several (a port reused within the session), the latest to have started by
 * the record's first packet: that needs `originEpochMs`, the epoch of the sent file's first packet
 * (`sent.packets[0].timeUs / 1000`), without which such a record gets null.
 * @template {import('../../common/report/result.js').ConnectionRecord} R
 * @param {R[]} records
 * @param {NetLogConnection[]} connections  netLogConnections(...).connections
 * @param {number|null} [originEpochMs]
 * @returns {Array<R & { netlog: NetLogConnection|null }>}
 */
export function withNetLog(records, connections, originEpochMs = null) {
  /** @type {Map<string, NetLogConnection[]>} */
  const byPorts = new Map();
  for (const n of connections) {
    const key = `${n.transport} ${n.clientPort} ${n.serverPort}`;
    byPorts.set(key, [...(byPorts.get(key) ?? []), n]);
  }
  return records.map((r) => {
    const candidates = byPorts.get(`${r.transport} ${r.clientPort} ${r.serverPort}`) ?? [];
    let netlog = candidates.length === 1 ? candidates[0] : null;
    if (candidates.length > 1 && originEpochMs !== null) {
      const at = originEpochMs + r.firstMs;
      const byStart = [...candidates].sort((a, b) => a.startEpochMs - b.startEpochMs);
      netlog = byStart.findLast((n) => n.startEpochMs <= at + startSkewMs) ?? byStart[0];
    }
    return { ...r, netlog };
  });
}

/**
 * Adds the NetLog's word to every captured connection of `runs` (in place): read once the
 * browser has closed, when Chromium has written the whole file. Resolves what went wrong, or null;
 * a NetLog that cannot be read leaves the records as they were.
 * @param {Array<{ capture?: import('../../common/report/result.js').CaptureRecord }>} runs  an experiment's runs, or page loads
 * @param {string} file
 * @returns {string|null}
 */
export function addNetLogToRuns(runs, file) {
  const { log, error: readError } = readNetLog(file);
  if (!log) return readError;
  const { connections, error } = netLogConnections(log);
  for (const run of runs) {
    const captured = run.capture?.connections;
    if (captured) captured.records = withNetLog(captured.records, connections, captured.originEpochMs);
  }
  return [readError, error].filter(Boolean).join('; ') || null;
}

