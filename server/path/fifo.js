// The pieces one direction holds, in order (direction.js): from the one the link is sending or
// that is on its way to the last queued, with what they cost against the memory bound and how
// many each owner has, so that drop(owner) of an owner with none costs no walk.

/**
 * A piece on the path: the link sends it from startAt to sentAt; it arrives at `at`. Both times
 * never decrease along the queue, so the head is due first.
 * @typedef {object} Piece
 * @property {number} startAt
 * @property {number} sentAt
 * @property {number} at
 * @property {number} bytes
 * @property {() => void} deliver
 * @property {unknown} owner  what drop(owner) removes it with; undefined for none
 */

/** @param {(piece: Piece) => number} costOf  what a queued piece costs against the memory bound */
export function createFifo(costOf) {
  /** @type {Piece[]} slots before `head` are delivered and emptied */
  let queue = [];
  let head = 0;
  let costBytes = 0; // what the queued pieces cost: their bytes and their bookkeeping
  /** @type {Map<unknown, number>} */
  const owners = new Map(); // owner → pieces of it still queued

  /** @param {Piece} piece */
  function forget(piece) {
    costBytes -= costOf(piece);
    if (piece.owner === undefined) return;
    const left = /** @type {number} */ (owners.get(piece.owner)) - 1; // a queued piece's owner is counted
    if (left) owners.set(piece.owner, left);
    else owners.delete(piece.owner);
  }

  return {
    /** @param {Piece} piece */
    push(piece) {
      queue.push(piece);
      costBytes += costOf(piece);
      if (piece.owner !== undefined) owners.set(piece.owner, (owners.get(piece.owner) ?? 0) + 1);
    },
    /** The first piece held, if any. */
    first: () => (head < queue.length ? queue[head] : undefined),
    /** Takes the first piece out (it is delivered); compact() once a batch is taken. */
    shift() {
      const piece = queue[head];
      queue[head++] = /** @type {never} */ (undefined); // emptied for the GC; only slots from head on are read
      forget(piece);
      return piece;
    },
    /** Cuts the delivered slots off now and then, not on every piece. */
    compact() {
      if (head === queue.length) {
        queue.length = 0;
        head = 0;
      } else if (head > 1024 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
    },
    /** The pieces held, in order (a copy: the caller may change the pieces, not the queue). */
    held: () => queue.slice(head),
    /** @param {unknown} owner */
    has: (owner) => owners.has(owner),
    /**
     * Removes the pieces of `owner`; returns those removed.
     * @param {unknown} owner
     */
    remove(owner) {
      /** @type {Piece[]} */
      const removed = [];
      /** @type {Piece[]} */
      const kept = [];
      for (let i = head; i < queue.length; i++) (queue[i].owner === owner ? removed : kept).push(queue[i]);
      for (const piece of removed) forget(piece);
      queue = kept;
      head = 0;
      return removed;
    },
    costBytes: () => costBytes,
    /** What is held: pieces, their bytes, and what they cost against the memory bound. */
    queued() {
      let bytes = 0;
      for (let i = head; i < queue.length; i++) bytes += queue[i].bytes;
      return { pieces: queue.length - head, bytes, costBytes };
    },
    clear() {
      queue = [];
      head = 0;
      costBytes = 0;
      owners.clear();
    },
  };
}
