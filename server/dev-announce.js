// A Vite plugin for `npm run dev` (vite.config.js): tells the lab that the dev server is up, for
// exactly as long as it is, by holding a request open to the lab's UI (POST /api/dev-server,
// server/ui.js). The lab trusts the dev server's origin only while that connection lasts, and the
// end of Vite's process closes it, a crash or a kill included. Start order does not matter: while
// no lab answers, or after it restarts, the request is made again every retryMs.
import http from 'node:http';

// Long enough not to busy a machine where the lab is not running, short enough that a restarted
// lab trusts the dev server again before a person has reloaded the page.
const retryMs = 500;

/** @param {{ uiPort: number, host?: string }} lab where the lab's UI listens */
export function announceToLab({ uiPort, host = 'localhost' }) {
  return {
    name: 'h2lab-announce',
    apply: 'serve',
    configureServer(server) {
      const { httpServer } = server;
      if (!httpServer) return; // middleware mode (Vitest): no port of its own to announce
      const log = server.config.logger;
      let request = null;
      let timer = null;
      let stopped = false;
      let said = ''; // the last state logged, so that retries stay quiet
      const say = (line, warn = false) => {
        if (line === said) return;
        said = line;
        if (warn) log.warn(line);
        else log.info(line);
      };
      const again = () => {
        if (stopped || timer) return;
        timer = setTimeout(() => {
          timer = null;
          announce();
        }, retryMs);
      };
      function announce() {
        const { port } = httpServer.address();
        request = http.request({ host, port: uiPort, method: 'POST', path: `/api/dev-server?port=${port}` });
        request.on('response', (res) => {
          res.resume();
          if (res.statusCode === 200) say(`h2lab: the lab on port ${uiPort} trusts this dev server's origin while it runs`);
          else say(`h2lab: the lab on port ${uiPort} refused this dev server (HTTP ${res.statusCode}); its pages cannot reach the lab`, true);
          res.on('close', again);
        });
        request.on('error', () => {
          say(`h2lab: no lab on port ${uiPort} yet (npm start); trying again`);
          again();
        });
        request.end();
      }
      httpServer.once('listening', announce);
      httpServer.once('close', () => {
        stopped = true;
        clearTimeout(timer);
        request?.destroy();
      });
    },
  };
}
