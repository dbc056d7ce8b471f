// How a process on this machine tells the lab about itself for exactly as long as it runs: it
// holds a request open to the lab's UI (POST /api/dev-server: server/ui.js),
// and the lab trusts what it announced only while that connection lasts; the end of the process
// closes it, a crash or a kill included. Start order does not matter: while no lab answers, or
// after it restarts, the request is made again every retryMs.
import http from 'node:http';

// Long enough not to busy a machine where the lab is not running, short enough that a restarted
// lab trusts the announcement again before a person has reloaded the page.
const retryMs = 500;

/**
 * @param {{ host?: string, uiPort: number, path: string }} to the lab's UI, and the announcement
 * @param {(state: 'held' | 'refused' | 'no-lab', status?: number) => void} onState hears each
 *   change: held (the lab answered 200), refused (another status), no-lab (nothing answered)
 * @returns {{ stop(): void }} withdraws the announcement and stops retrying
 */
export function holdAnnouncement({ host = 'localhost', uiPort, path }, onState) {
  /** @type {http.ClientRequest|null} */
  let request = null;
  /** @type {NodeJS.Timeout|null} */
  let timer = null;
  let stopped = false;
  let last = '';
  /** @param {'held' | 'refused' | 'no-lab'} state @param {number} [status] */
  const report = (state, status) => {
    if (`${state} ${status}` === last) return; // retries stay quiet
    last = `${state} ${status}`;
    onState(state, status);
  };
  const again = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      announce();
    }, retryMs);
  };
  function announce() {
    request = http.request({ host, port: uiPort, method: 'POST', path });
    request.on('response', (res) => {
      res.resume();
      report(res.statusCode === 200 ? 'held' : 'refused', res.statusCode);
      res.on('close', again);
    });
    request.on('error', () => {
      report('no-lab');
      again();
    });
    request.end();
  }
  announce();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer ?? undefined);
      request?.destroy();
    },
  };
}
