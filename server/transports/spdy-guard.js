// The limits and RFC 9113 rules spdy 4.0.2 lacks and node:http2 (nghttp2) has, applied from
// outside on each spdy-transport connection, so that both HTTP/2 servers answer hostile and
// malformed traffic alike. spdy is frozen (2020): the private fields used here will not move.
import { createRequire } from 'node:module';
import { sessionClock } from './session-clock.js';

// spdy's own HTTP/2 layer, the copy spdy itself loads.
const require = createRequire(import.meta.url);
const transport = /** @type {typeof import('spdy-transport')} */ (createRequire(require.resolve('spdy'))('spdy-transport'));
const { constants } = transport.protocol.http2;
const errorName = constants.errorByCode;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** @typedef {import('spdy-transport').Field} Field */
/** @typedef {import('spdy-transport').Frame} Frame */
/** @typedef {import('spdy-transport').Stream} Stream */

/**
 * A token bucket: `take()` is false once more than `burst` came faster than `perSecond`.
 * @param {number} burst @param {number} perSecond
 */
function rateLimit(burst, perSecond) {
  let tokens = burst;
  let last = performance.now();
  return () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - last) / 1000) * perSecond);
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

// ── Header blocks (RFC 9113 §8). spdy serves whatever the client sends: these checks make a
// request that breaks one malformed, a stream error of type PROTOCOL_ERROR (§8.1.1), as
// nghttp2 does. `fields` is the decoded block in order, `frame` the HEADERS frame.
const requestPseudo = new Set([':method', ':scheme', ':authority', ':path']);
const connectionSpecific = new Set(['connection', 'proxy-connection', 'keep-alive', 'transfer-encoding', 'upgrade']);
const validName = /^:?[\x21-\x39\x3b-\x40\x5b-\x7e]+$/; // visible ASCII, no uppercase; a colon only to start a pseudo-header
const invalidValue = /[\0\r\n]|^[\t ]|[\t ]$/;
/** @param {Field} f */
const isPseudo = (f) => f.name[0] === ':';
/** @param {Field[]} fields @param {string} name */
const has = (fields, name) => fields.some((f) => f.name === name);
/** @param {Field[]} fields @param {string} name */
const valueOf = (fields, name) => fields.find((f) => f.name === name)?.value;
/**
 * The declared body length: null without content-length, NaN when it is not one number.
 * @param {Field[]} fields
 */
function contentLength(fields) {
  const values = fields.filter((f) => f.name === 'content-length').map((f) => f.value);
  if (!values.length) return null;
  return values.length === 1 && /^\d+$/.test(values[0]) ? Number(values[0]) : NaN;
}

/**
 * A rule a header block breaks `when` it is malformed, as the RFC says.
 * @typedef {{ rfc: string, malformed: string, when: (fields: Field[], frame: Frame) => boolean }} Rule
 */

/** @type {Rule[]} */
const fieldRules = [
  { rfc: '§8.2.1', malformed: 'a field name with an uppercase, space, control or non-ASCII character, or a stray colon', when: (fields) => !fields.every((f) => validName.test(f.name)) },
  { rfc: '§8.2.1', malformed: 'a field value with NUL, CR or LF, or with whitespace at either end', when: (fields) => fields.some((f) => invalidValue.test(f.value)) },
  { rfc: '§8.2.2', malformed: 'a connection-specific field', when: (fields) => fields.some((f) => connectionSpecific.has(f.name)) },
  { rfc: '§8.2.2', malformed: 'te other than "trailers"', when: (fields) => fields.some((f) => f.name === 'te' && f.value !== 'trailers') },
];
/** @type {Rule[]} */
const requestRules = [
  ...fieldRules,
  { rfc: '§8.3', malformed: 'a pseudo-header after a regular field', when: (fields) => fields.some((f, i) => i > 0 && isPseudo(f) && !isPseudo(fields[i - 1])) },
  { rfc: '§8.3', malformed: 'a pseudo-header other than :method, :scheme, :authority, :path', when: (fields) => fields.some((f) => isPseudo(f) && !requestPseudo.has(f.name)) },
  { rfc: '§8.3.1', malformed: 'a pseudo-header given twice', when: (fields) => fields.some((f, i) => isPseudo(f) && fields.findIndex((g) => g.name === f.name) !== i) },
  { rfc: '§8.3.1', malformed: 'no :method', when: (fields) => !has(fields, ':method') },
  { rfc: '§8.3.1', malformed: 'no :scheme or no :path', when: (fields) => valueOf(fields, ':method') !== 'CONNECT' && !(has(fields, ':scheme') && has(fields, ':path')) },
  { rfc: '§8.3.1', malformed: 'an empty :path', when: (fields) => valueOf(fields, ':path') === '' },
  { rfc: '§8.5', malformed: 'CONNECT with :scheme or :path, or without :authority', when: (fields) => valueOf(fields, ':method') === 'CONNECT' && (has(fields, ':scheme') || has(fields, ':path') || !has(fields, ':authority')) },
  { rfc: '§8.1.1', malformed: 'a content-length that is not one number', when: (fields) => Number.isNaN(contentLength(fields)) },
  { rfc: '§8.1.1', malformed: 'END_STREAM before the content-length is sent', when: (fields, frame) => frame.fin && (contentLength(fields) ?? 0) > 0 },
];
/** @type {Rule[]} */
const trailerRules = [
  ...fieldRules,
  { rfc: '§8.1', malformed: 'a second header block without END_STREAM', when: (fields, frame) => !frame.fin },
  { rfc: '§8.3', malformed: 'a pseudo-header in trailers', when: (fields) => fields.some(isPseudo) },
];
/** @param {Rule[]} rules @param {Field[]} fields @param {Frame} frame */
const malformation = (rules, fields, frame) => rules.find((rule) => rule.when(fields, frame));

// ── Stream states (RFC 9113 §5.1). spdy forgets a stream once it closes, drops a HEADERS
// frame on a closed or skipped stream id without a word, and answers frames on idle streams
// with a reset at most. Each state says what a frame does on it: 'pass' to spdy, 'ignore', an
// error ([scope, code]), or one of the checks below ('new', 'trailers', 'data', 'reset').
const streamFrames = new Set(['HEADERS', 'DATA', 'RST', 'WINDOW_UPDATE', 'PRIORITY']);
/**
 * What a frame does on a stream in some state.
 * @typedef {'pass'|'ignore'|'new'|'trailers'|'data'|'reset'|['connection'|'stream', string]} Action
 */
/** @param {string} code @returns {Action} */
const connectionError = (code) => ['connection', code];
/** @param {string} code @returns {Action} */
const streamError = (code) => ['stream', code];
/** @type {Record<string, Partial<Record<string, Action>> & { other: Action }>} by state, then by frame type */
const streamStates = {
  // Not opened yet: only HEADERS opens it; PRIORITY may come first (§5.1 idle).
  idle: { HEADERS: 'new', PRIORITY: 'ignore', other: connectionError('PROTOCOL_ERROR') },
  // An even id the server never promised: clients open odd ids only (§5.1.1).
  unpromised: { PRIORITY: 'ignore', other: connectionError('PROTOCOL_ERROR') },
  // Below an id the client has since opened, never used: closed unused (§5.1.1).
  skipped: { PRIORITY: 'ignore', other: connectionError('PROTOCOL_ERROR') },
  // Open: trailers must end it; content-length must match the DATA.
  open: { HEADERS: 'trailers', DATA: 'data', RST: 'reset', other: 'pass' },
  // The client ended its side while the response runs (§5.1 half-closed (remote)).
  halfClosed: { HEADERS: streamError('STREAM_CLOSED'), DATA: streamError('STREAM_CLOSED'), other: 'pass' },
  // Closed after the client's END_STREAM: only a WINDOW_UPDATE or RST_STREAM sent before our
  // END_STREAM arrived may follow (§5.1 closed).
  ended: { PRIORITY: 'ignore', WINDOW_UPDATE: 'ignore', RST: 'ignore', other: connectionError('STREAM_CLOSED') },
  // Closed by the client's RST_STREAM: nothing but PRIORITY may follow, and a RST_STREAM is
  // never answered with one (§5.1 closed, §5.4.2).
  reset: { PRIORITY: 'ignore', RST: 'ignore', other: streamError('STREAM_CLOSED') },
  // Reset by us before the client's END_STREAM (its frames may be on the way: §5.1 closed says
  // ignore them), a finished push, or closed too long ago to remember.
  gone: { other: 'ignore' },
  // A push in progress: spdy's own stream handles what the client may send on it.
  pushing: { other: 'pass' },
};

/**
 * An open stream, as the checks see it.
 * @typedef {{ ended: boolean, reset: boolean, expected: number|null, received: number }} StreamRecord
 *   expected: content-length, or null
 */

/**
 * The client's streams as §5.1 sees them, which spdy does not track once they close: open ones
 * (each with what the checks need), then the last `keep` closed ones with how they closed.
 * @param {import('spdy-transport').State} spdyState @param {number} keep
 */
function streamBook(spdyState, keep) {
  /** @type {Map<number, StreamRecord>} */
  const open = new Map(); // id → { ended, reset, expected (content-length or null), received }
  /** @type {Map<number, 'ended'|'reset'|'gone'>} */
  const closed = new Map(); // id → 'ended' | 'reset' | 'gone', oldest first
  let forgottenUpTo = 0;
  return {
    open,
    /** @param {number} id @param {'ended'|'reset'|'gone'} how */
    close(id, how) {
      open.delete(id);
      closed.set(id, how);
      if (closed.size > keep) {
        const [oldest] = closed.keys();
        closed.delete(oldest);
        forgottenUpTo = Math.max(forgottenUpTo, oldest);
      }
    },
    /** @param {number} id @returns {string} a key of streamStates */
    stateOf(id) {
      const stream = spdyState.stream.map[id];
      if (id % 2 === 0) return stream ? 'pushing' : id > spdyState.stream.nextId - 2 ? 'unpromised' : 'gone';
      if (stream) {
        const record = /** @type {StreamRecord} spdy has only the streams the book opened */ (open.get(id));
        if (stream._spdyState.aborted) return 'gone';
        if (!record.ended) return 'open';
        return stream._writableState.finished ? 'ended' : 'halfClosed';
      }
      if (id > spdyState.stream.lastId.received) return 'idle';
      return closed.get(id) ?? (id <= forgottenUpTo ? 'gone' : 'skipped');
    },
  };
}

/**
 * Parser hooks for what spdy-transport's HTTP/2 parser lets through: a header block broken by
 * another frame, and a dynamic table size update after a field; and the decoded fields in
 * order on each HEADERS frame (`frame.fields`), since spdy's header object loses order and
 * duplicate pseudo-headers.
 * @param {import('spdy-transport').Parser} parser
 */
function guardParser(parser) {
  // §4.3 and §6.10: a header block is one HEADERS and its CONTINUATION frames, nothing between.
  const onFrameHead = parser.onFrameHead;
  /** @this {import('spdy-transport').Parser} @param {Buffer} buffer @param {import('spdy-transport').Callback<Frame>} callback */
  parser.onFrameHead = function (buffer, callback) {
    onFrameHead.call(this, buffer, (err, frame) => {
      const block = this._lastHeaderBlock;
      const next = this.pendingHeader;
      if (!err && block && (next.type !== constants.frameType.CONTINUATION || next.id !== block.id)) {
        err = this.error(constants.error.PROTOCOL_ERROR, 'header block interrupted by another frame');
      }
      callback(err, frame);
    });
  };

  /** @type {Field[]|null} */
  let decoded = null;
  const setCompression = parser.setCompression;
  /** @this {import('spdy-transport').Parser} @param {{ decompress: import('spdy-transport').Decompressor }} pair */
  parser.setCompression = function (pair) {
    setCompression.call(this, pair);
    // RFC 7541 §4.2: a dynamic table size update may only open a header block.
    const decompressor = pair.decompress;
    let fieldsInBlock = 0;
    let lateUpdate = false;
    decompressor.on('data', () => (fieldsInBlock += 1));
    const processUpdate = decompressor._processUpdate;
    /** @this {import('spdy-transport').Decompressor} */
    decompressor._processUpdate = function () {
      if (fieldsInBlock > 0) lateUpdate = true;
      return processUpdate.call(this);
    };
    const lock = this.decompress;
    this.decompress = {
      write(chunks, callback) {
        fieldsInBlock = 0;
        lateUpdate = false;
        lock.write(chunks, (err, fields) => {
          decoded = fields;
          callback(err ?? (lateUpdate ? new Error('dynamic table size update after a header field') : null), fields);
        });
      },
    };
  };
  // The parser turns the decoded fields into the frame's headers in the same turn.
  const queueHeaderBlock = parser.queueHeaderBlock;
  /** @this {import('spdy-transport').Parser} @param {object} header @param {unknown} block @param {import('spdy-transport').Callback<Frame>} callback */
  parser.queueHeaderBlock = function (header, block, callback) {
    return queueHeaderBlock.call(this, header, block, (err, frame) => {
      if (frame) frame.fields = /** @type {Field[]} decoded in this turn */ (decoded);
      callback(err, frame);
    });
  };
}

/**
 * spdy checks the client preface only once all 24 bytes are in, so a peer that sends fewer
 * bytes of anything else (an HTTP/1.1 request line, say) held the socket until the idle
 * timeout. nghttp2 compares byte by byte: do the same. An invalid preface needs no GOAWAY
 * (RFC 9113 §3.4): the peer does not speak HTTP/2.
 * @param {import('node:tls').TLSSocket} socket
 */
function guardPreface(socket) {
  let prefaceSeen = 0;
  /** @param {Buffer} chunk */
  const checkPreface = (chunk) => {
    const n = Math.min(chunk.length, PREFACE.length - prefaceSeen);
    if (!chunk.subarray(0, n).equals(PREFACE.subarray(prefaceSeen, prefaceSeen + n))) return socket.destroy();
    prefaceSeen += n;
    if (prefaceSeen === PREFACE.length) socket.off('data', checkPreface);
  };
  socket.on('data', checkPreface);
}

/**
 * Ends the connection on an error. spdy's own path sent GOAWAY with code NO_ERROR (it looks the
 * parser's numeric code up by name) and its server destroyed the socket before the frame left.
 * Here the parser stops, the GOAWAY goes out after the frames already queued, the socket ends
 * behind it, and goes after refuseLingerMs if the peer never reads.
 * @param {import('spdy-transport').Connection} connection @param {import('node:tls').TLSSocket} socket
 * @param {typeof import('../config.js').transportLimits} limits
 * @returns {{ goaway(code: string, reason: string): void, ended(): boolean }}  goaway: the connection error's GOAWAY and end
 */
function endOnError(connection, socket, limits) {
  const state = connection._spdyState;
  let ended = false;
  /** @param {string} code @param {string} reason */
  const goaway = (code, reason) => {
    if (ended) return;
    ended = true;
    state.parser.kill();
    state.goaway = state.stream.lastId.received; // streams spdy opens from here on are refused
    // The callback runs once the frame's chunks are in the framer's output, which the pipe
    // hands to the socket within the turn unless the peer is not reading.
    state.framer.goawayFrame({ lastId: state.stream.lastId.received, code, extra: reason }, () =>
      setImmediate(() => {
        state.framer.unpipe(socket);
        socket.end();
      }),
    );
    setTimeout(() => socket.destroy(), limits.refuseLingerMs).unref();
  };
  connection._onParserError = (err) => goaway(errorName[err.code] ?? 'INTERNAL_ERROR', err.message);
  connection.on('error', () => socket.destroy()); // the socket's own errors, as spdy's server does
  return { goaway, ended: () => ended };
}

/**
 * Floods: every PING and SETTINGS makes spdy queue an ACK however fast they come (and however
 * little the peer reads), and every RST_STREAM after a HEADERS costs a whole express request
 * (rapid reset, CVE-2023-44487). nghttp2 answers both with GOAWAY; so does this.
 * @param {typeof import('../config.js').transportLimits} limits @param {ReturnType<typeof endOnError>} end  the connection's
 * @returns {(frame: Frame) => boolean}  true once the connection is ended, by this frame or before
 */
function floodGuard(limits, { goaway, ended }) {
  const controlFrame = rateLimit(limits.controlFrameBurst, limits.controlFramesPerSecond);
  const reset = rateLimit(limits.resetBurst, limits.resetsPerSecond);
  return (frame) => {
    if ((frame.type === 'PING' && !frame.ack) || frame.type === 'SETTINGS') {
      if (!controlFrame()) goaway('ENHANCE_YOUR_CALM', 'PING/SETTINGS flood');
    } else if (frame.type === 'RST') {
      if (!reset()) goaway('ENHANCE_YOUR_CALM', 'too many stream resets');
    }
    return ended();
  };
}

// §8.1.1: the DATA must add up to content-length, checked as it comes and at END_STREAM.
const bodyMismatch = { rfc: '§8.1.1', malformed: 'DATA that does not add up to content-length' };
/** @param {StreamRecord} record @param {Frame} frame */
const bodyMatches = (record, frame) =>
  record.expected === null || (record.received <= record.expected && (!frame.fin || record.received === record.expected));

/**
 * What the stream states' checks ('new', 'trailers', 'data', 'reset') do with a frame: true to
 * pass it on to spdy, false when it was refused.
 * @param {import('spdy-transport').State} state @param {ReturnType<typeof streamBook>} book
 * @param {(frame: Frame, rule: { rfc: string, malformed: string }) => void} refuseMalformed
 */
function streamChecks(state, book, refuseMalformed) {
  return {
    /** @param {Frame} frame */
    new(frame) {
      const rule = malformation(requestRules, frame.fields, frame);
      if (rule) {
        state.stream.lastId.received = frame.id; // used, though never opened (§5.1.1)
        refuseMalformed(frame, rule);
        book.close(frame.id, frame.fin ? 'ended' : 'gone');
        return false;
      }
      book.open.set(frame.id, { ended: frame.fin, reset: false, expected: contentLength(frame.fields), received: 0 });
      return true;
    },
    /** @param {Frame} frame @param {StreamRecord} record */
    trailers(frame, record) {
      const rule = malformation(trailerRules, frame.fields, frame) ?? (bodyMatches(record, frame) ? undefined : bodyMismatch);
      if (rule) {
        refuseMalformed(frame, rule);
        return false;
      }
      record.ended = true;
      return true;
    },
    /** @param {Frame} frame @param {StreamRecord} record */
    data(frame, record) {
      record.received += frame.data.length;
      if (!bodyMatches(record, frame)) {
        refuseMalformed(frame, bodyMismatch);
        return false;
      }
      record.ended = frame.fin;
      return true;
    },
    /** @param {Frame} frame @param {StreamRecord} record */
    reset(frame, record) {
      record.reset = true;
      return true;
    },
  };
}

/**
 * Makes the spdy-transport connection for a TLS socket that negotiated h2, as spdy's server
 * does, and guards it.
 * @param {import('node:tls').TLSSocket} socket the TLS socket
 * @param {typeof import('../config.js').transportLimits} limits transportLimits
 * @param {number} maxStreams SETTINGS_MAX_CONCURRENT_STREAMS, which spdy advertises but does not enforce
 * @param {(stream: Stream) => void} onStream gets every stream the guard lets through
 * @returns the connection
 */
export function guardedConnection(socket, limits, maxStreams, onStream) {
  socket.setNoDelay(true);
  const connection = transport.connection.create(socket, { protocol: 'http2', isServer: true, maxStreams });
  guardPreface(socket);
  const state = connection._spdyState;
  const end = endOnError(connection, socket, limits);
  const { goaway, ended } = end;
  // A peer's GOAWAY names the last stream *we* opened that it will process (RFC 9113 §6.8), so
  // it says nothing about the client's own requests; spdy aborted every stream above it, which
  // cut off all in-flight responses when a client answered our shutdown GOAWAY with its own.
  connection._handleGoaway = (frame) =>
    connection._goaway({ lastId: Math.max(frame.lastId, state.stream.lastId.received), code: frame.code, send: false });
  guardParser(state.parser);

  const flooding = floodGuard(limits, end);

  // Closed streams are remembered while frames the client sent before it learnt of the close
  // can still arrive: four times the streams it may have open at once.
  const book = streamBook(state, 4 * maxStreams);
  // Stream errors, each counted as nghttp2 counts invalid frames: a peer that keeps sending
  // them is given up on (node:http2's maxSessionInvalidFrames).
  let invalid = 0;
  /** @param {number} id @param {string} code @param {string} reason */
  const refuseStream = (id, code, reason) => {
    const stream = state.stream.map[id];
    if (stream) stream.abort(code);
    else state.framer.rstFrame({ id, code });
    invalid += 1;
    if (invalid > limits.maxSessionInvalidFrames) goaway('ENHANCE_YOUR_CALM', `too many invalid frames (last: ${reason})`);
  };
  /** @param {Frame} frame @param {{ rfc: string, malformed: string }} rule */
  const refuseMalformed = (frame, rule) => refuseStream(frame.id, 'PROTOCOL_ERROR', `${rule.malformed} (RFC 9113 ${rule.rfc})`);
  const checks = streamChecks(state, book, refuseMalformed);

  // §5.4.2: no RST_STREAM in answer to a RST_STREAM. spdy's stream aborts itself with CANCEL
  // when the client resets it; that one frame, sent while the client's is handled, is dropped.
  let peerReset = 0;
  const rstFrame = state.framer.rstFrame;
  /** @this {import('spdy-transport').Framer} @param {{ id: number, code: string }} frame @param {() => void} [callback] */
  state.framer.rstFrame = function (frame, callback) {
    if (frame.id === peerReset) return callback && process.nextTick(callback);
    return rstFrame.call(this, frame, callback);
  };

  const handleFrame = connection._handleFrame;
  /** @this {import('spdy-transport').Connection} @param {Frame} frame */
  connection._handleFrame = function (frame) {
    if (ended() || flooding(frame)) return; // a connection error stops everything behind it
    // Connection-level frames, and streams past our own GOAWAY, which spdy drops itself.
    if (!streamFrames.has(frame.type) || frame.id === 0 || connection._isGoaway(frame.id)) return handleFrame.call(this, frame);
    const stateName = book.stateOf(frame.id);
    const action = streamStates[stateName][frame.type] ?? streamStates[stateName].other;
    if (Array.isArray(action)) {
      const [scope, code] = action;
      const reason = `${frame.type} on a stream in state ${stateName} (RFC 9113 §5.1)`;
      return scope === 'connection' ? goaway(code, reason) : refuseStream(frame.id, code, reason);
    }
    // Only 'new' finds no record, and takes none.
    if (action === 'ignore' || (action !== 'pass' && !checks[action](frame, /** @type {StreamRecord} */ (book.open.get(frame.id))))) return;
    if (frame.type !== 'RST') return handleFrame.call(this, frame);
    peerReset = frame.id;
    try {
      return handleFrame.call(this, frame);
    } finally {
      peerReset = 0;
    }
  };

  const clock = sessionClock(socket, limits, () => connection.end());
  let refused = 0;
  connection.on('stream', (/** @type {Stream} */ stream) => {
    stream.once('close', () => {
      const record = /** @type {StreamRecord} the book opened it (checks.new) */ (book.open.get(stream.id));
      book.close(stream.id, record.ended ? 'ended' : record.reset ? 'reset' : 'gone');
    });
    if (clock.open >= maxStreams) {
      // Over the advertised limit: refuse the stream as nghttp2 does, and give up on a peer
      // that keeps going.
      stream.abort('REFUSED_STREAM');
      refused += 1;
      if (refused > limits.maxSessionRejectedStreams) goaway('ENHANCE_YOUR_CALM', 'too many refused streams');
      return;
    }
    clock.opened();
    stream.once('close', clock.closed);
    onStream(stream);
  });
  return connection;
}
