// A Vite plugin for `npm run dev` (vite.config.js): tells the lab that the dev server is up, for
// exactly as long as it is (server/announce.js), so that the lab trusts the dev server's origin
// only while it runs.
import { holdAnnouncement } from './announce.js';

/**
 * @param {{ uiPort: number, host?: string }} lab where the lab's UI listens
 * @returns {import('vite').Plugin}
 */
export function announceToLab({ uiPort, host = 'localhost' }) {
  return {
    name: 'h2lab-announce',
    apply: 'serve',
    configureServer(server) {
      const { httpServer } = server;
      if (!httpServer) return; // middleware mode (Vitest): no port of its own to announce
      const log = server.config.logger;
      httpServer.once('listening', () => {
        const announcement = holdAnnouncement({ host, uiPort, path: `/api/dev-server?port=${/** @type {import('node:net').AddressInfo} a port, listening */ (httpServer.address()).port}` }, (state, status) => {
          if (state === 'held') log.info(`h2lab: the lab on port ${uiPort} trusts this dev server's origin while it runs`);
          if (state === 'refused') log.warn(`h2lab: the lab on port ${uiPort} refused this dev server (HTTP ${status}); its pages cannot reach the lab`);
          if (state === 'no-lab') log.info(`h2lab: no lab on port ${uiPort} yet (npm start); trying again`);
        });
        httpServer.once('close', () => announcement.stop());
      });
    },
  };
}
