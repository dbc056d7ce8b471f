// spdy-transport's frame queue (its scheduler, a Readable piped to the socket) confirms a frame
// the moment it is queued ("TODO: figure out the way to invoke callback on actual write"), so a
// stream whose peer reads nothing goes on writing: a connection that had stopped reading held a
// whole 64 MiB body in copied frames. Here a stream frame's confirmation waits while the queue
// holds queueBytes or more, until the socket takes frames; each stream then holds at most the
// write it is in (server/http/payload.js writes in slices). Control frames (no
// priority: SETTINGS, PING, GOAWAY acks and the like) are confirmed as before.
// When the socket closes, spdy destroys its streams without aborting them, and resumes the queue
// into nothing: a stream that the peer's window still allows went on framing the rest of its
// body (10 connections of 100 × 64 MiB kept the process busy for 10–17 s). Aborted, its
// writes stop.
// spdy-transport also copied every DATA frame's payload into a fresh zero-filled buffer (and
// its 9-byte header into another) before queueing it: an abort storm of 3,000 streams left
// 40–90 MB of such copies for the collector, and glibc kept up to 100 MB of the heap they had
// used. Here a frame is queued as its header and a view of the bytes written, the same two
// chunks spdy queued, so the socket sees the same writes. The lab writes views of its payload
// (server/http/payload.js) or fresh buffers, never a buffer it changes after writing it.
// spdy is frozen (2020): the private fields used here will not move.

import { MiB } from '../../common/setup/units.js';

// Waiting at the queue's own high-water mark (16 KiB) cost spdy about a quarter more CPU per
// byte on 1,000 parallel 1 MiB responses; 1 MiB is a few socket writes' worth.
const queueBytes = MiB;

const DATA = 0x0;
const END_STREAM = 0x1;

/** @typedef {import('spdy-transport').Frame} Frame */
/** @typedef {import('spdy-transport').Framer} Framer */

/**
 * spdy-transport's http2 Framer#dataFrame without the copies: each frame (at most the peer's
 * maxFrameSize) waits for the connection's send window, then is scheduled.
 * @this {Framer}
 * @param {Frame} frame @param {(err?: Error|null) => void} callback
 */
function dataFrame(frame, callback) {
  const frames = this._split({ reserve: 0, chunks: [frame.data] });
  if (!frames.length) frames.push({ size: 0, chunks: [] }); // an empty DATA frame (END_STREAM)
  frames.forEach(({ size, chunks }, i) => {
    const isLast = i === frames.length - 1;
    const head = Buffer.allocUnsafe(9); // from the shared pool, unlike spdy's own header buffers
    head.writeUIntBE(size, 0, 3);
    head[3] = DATA;
    head[4] = isLast && frame.fin ? END_STREAM : 0;
    head.writeUInt32BE(frame.id & 0x7fffffff, 5);
    // chunks: one view of frame.data (or none), which _split cut out without copying
    const item = { stream: frame.id, priority: frame.priority === undefined ? false : frame.priority, chunks: [head, ...chunks], callback: isLast ? callback : null };
    this._resetTimeout();
    this.window.send.update(-size, () => {
      this._resetTimeout();
      this.schedule(item);
    });
  });
}

/** @param {import('spdy-transport').Connection} connection a spdy-transport connection (spdy-guard.js makes them) */
export function frameBackpressure(connection) {
  const queue = connection._spdyState.framer;
  queue.dataFrame = dataFrame;
  const state = queue._readableState;
  const roomy = () => state.length < queueBytes;
  /** @type {Array<() => void>} */
  const waiting = [];
  const schedule = queue.schedule;
  /** @this {Framer} @param {import('spdy-transport').QueueItem} item */
  queue.schedule = function (item) {
    const confirm = item.callback;
    if (confirm && item.priority !== false) item.callback = (err) => (roomy() ? confirm(err) : waiting.push(() => confirm(err)));
    return schedule.call(this, item);
  };
  // The queue drains into the socket when the socket drains (the pipe's own listener, added
  // first, runs first). A 'data' listener would do instead, but readable-stream resumes a
  // stream that has one when its pipe goes, and the queue then ran into nothing.
  connection.socket.on('drain', () => {
    while (waiting.length && roomy()) /** @type {() => void} */ (waiting.shift())();
  });
  connection.once('close', () => {
    for (const stream of Object.values(connection._spdyState.stream.map)) stream.abort();
  });
}
