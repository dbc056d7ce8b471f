// The browser lab is built from client/ into dist/, which the UI server (npm start) serves.
import { defineConfig } from 'vite';
import { configFromEnv, viteDevPort } from './server/config.js';
import { announceToLab } from './server/dev-announce.js';

export default defineConfig({
  root: 'client',
  build: { outDir: '../dist', emptyOutDir: true },
  // Unit tests (Vitest) live beside the client code; test/ holds the node:test suites.
  test: { root: '.', include: ['client/**/*.spec.js', 'common/**/*.spec.js'] },
  // `npm run dev` serves the client with hot reload; the control API stays on the lab's UI port,
  // which trusts this server's origin only while it runs and says so (server/dev-announce.js).
  // The proxy reaches the lab from this process's socket, the lab user's whoever sent the request:
  // xfwd has it say so (X-Forwarded-For and the rest), and the lab takes no announcement, nor counts
  // an upload as its user's, that a proxy forwarded (server/peer-user.js). Marked in the lab,
  // not kept from this proxy's routes, so that any proxy saying so is refused alike.
  server: { port: viteDevPort, strictPort: true, proxy: { '/api': { target: `http://localhost:${configFromEnv('uiPort')}`, xfwd: true } } },
  plugins: [announceToLab({ uiPort: configFromEnv('uiPort') })],
});
