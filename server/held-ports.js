// Ports that processes on this machine announced and hold (server/announce.js): a port counts
// while at least one announcement of it lasts, so a process restarting, whose old and new
// announcements overlap, keeps it throughout.

/** @param {() => void} onChange called whenever the set of held ports changes */
export function createHeldPorts(onChange = () => {}) {
  const holds = new Map(); // port → announcements holding it
  return {
    has: (port) => holds.has(port),
    ports: () => [...holds.keys()],
    /** Holds `port` until the returned withdraw() is called (again: nothing). */
    hold(port) {
      holds.set(port, (holds.get(port) ?? 0) + 1);
      if (holds.get(port) === 1) onChange();
      let held = true;
      return function withdraw() {
        if (!held) return;
        held = false;
        if (holds.get(port) > 1) {
          holds.set(port, holds.get(port) - 1);
        } else {
          holds.delete(port);
          onChange();
        }
      };
    },
  };
}
