// Ports that processes on this machine announced and hold (server/announce.js): a port counts
// while at least one announcement of it lasts, so a process restarting, whose old and new
// announcements overlap, keeps it throughout.

/**
 * @param {(port: number, held: boolean) => void} onChange called when `port` starts being held
 *   (true) or stops (false): the one port that changed, so that what depends on the set changes
 *   by that port alone
 */
export function createHeldPorts(onChange = () => {}) {
  /** @type {Map<number, number>} */
  const holds = new Map(); // port → announcements holding it
  return {
    /**
     * Holds `port` until the returned withdraw() is called (again: nothing).
     * @param {number} port
     */
    hold(port) {
      holds.set(port, (holds.get(port) ?? 0) + 1);
      if (holds.get(port) === 1) onChange(port, true);
      let held = true;
      return function withdraw() {
        if (!held) return;
        held = false;
        const holding = /** @type {number} held until now */ (holds.get(port));
        if (holding > 1) {
          holds.set(port, holding - 1);
        } else {
          holds.delete(port);
          onChange(port, false);
        }
      };
    },
  };
}
