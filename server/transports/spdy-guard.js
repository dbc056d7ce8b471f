// The limits spdy 4.0.2 lacks and node:http2 (nghttp2) has, applied from outside on each
// spdy-transport connection, so that both HTTP/2 servers answer hostile traffic alike. spdy is
// frozen (2020): the private fields used here will not move.
import { createRequire } from 'node:module';
import { sessionClock } from './session-clock.js';

// spdy's own HTTP/2 layer, the copy spdy itself loads.
const require = createRequire(import.meta.url);
const transport = createRequire(require.resolve('spdy'))('spdy-transport');
const errorName = transport.protocol.http2.constants.errorByCode;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** A token bucket: `take()` is false once more than `burst` came faster than `perSecond`. */
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

/**
 * Makes the spdy-transport connection for a TLS socket that negotiated h2, as spdy's server
 * does, and guards it.
 * @param socket the TLS socket
 * @param limits transportLimits
 * @param maxStreams SETTINGS_MAX_CONCURRENT_STREAMS, which spdy advertises but does not enforce
 * @param onStream gets every stream the guard lets through
 * @returns the connection
 */
export function guardedConnection(socket, limits, maxStreams, onStream) {
  socket.setNoDelay(true);
  const connection = transport.connection.create(socket, { protocol: 'http2', isServer: true, maxStreams });
  // spdy checks the client preface only once all 24 bytes are in, so a peer that sends fewer
  // bytes of anything else (an HTTP/1.1 request line, say) held the socket until the idle
  // timeout. nghttp2 compares byte by byte: do the same. An invalid preface needs no GOAWAY
  // (RFC 9113 §3.4): the peer does not speak HTTP/2.
  let prefaceSeen = 0;
  const checkPreface = (chunk) => {
    const n = Math.min(chunk.length, PREFACE.length - prefaceSeen);
    if (!chunk.subarray(0, n).equals(PREFACE.subarray(prefaceSeen, prefaceSeen + n))) return socket.destroy();
    prefaceSeen += n;
    if (prefaceSeen === PREFACE.length) socket.off('data', checkPreface);
  };
  socket.on('data', checkPreface);

  // Ending a connection on an error: spdy's own path sent GOAWAY with code NO_ERROR (it looks
  // the parser's numeric code up by name) and its server destroyed the socket before the frame
  // left. Here the parser stops, the GOAWAY goes out after the frames already queued, the socket
  // ends behind it, and goes after refuseLingerMs if the peer never reads.
  const state = connection._spdyState;
  let ended = false;
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
  // A peer's GOAWAY names the last stream *we* opened that it will process (RFC 9113 §6.8), so
  // it says nothing about the client's own requests; spdy aborted every stream above it, which
  // cut off all in-flight responses when a client answered our shutdown GOAWAY with its own.
  connection._handleGoaway = (frame) =>
    connection._goaway({ lastId: Math.max(frame.lastId, state.stream.lastId.received), code: frame.code, send: false });

  // Floods: every PING and SETTINGS makes spdy queue an ACK however fast they come (and however
  // little the peer reads), and every RST_STREAM after a HEADERS costs a whole express request
  // (rapid reset, CVE-2023-44487). nghttp2 answers both with GOAWAY; so does this.
  const controlFrame = rateLimit(limits.controlFrameBurst, limits.controlFramesPerSecond);
  const reset = rateLimit(limits.resetBurst, limits.resetsPerSecond);
  connection.on('frame', (frame) => {
    if ((frame.type === 'PING' && !frame.ack) || frame.type === 'SETTINGS') {
      if (!controlFrame()) goaway('ENHANCE_YOUR_CALM', 'PING/SETTINGS flood');
    } else if (frame.type === 'RST') {
      if (!reset()) goaway('ENHANCE_YOUR_CALM', 'too many stream resets');
    }
  });

  const clock = sessionClock(socket, limits, () => connection.end());
  let refused = 0;
  connection.on('stream', (stream) => {
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
