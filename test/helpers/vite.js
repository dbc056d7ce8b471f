// Vite's dev server from vite.config.js, for a lab on `uiPort` (as H2LAB_UI_PORT tells it), the way
// `npm run dev` starts it: its /api proxy and the announcement of its port to the lab.
import { createServer as createViteServer } from 'vite';

/**
 * @param {number} port  where it listens
 * @param {number} uiPort  the lab's UI port
 */
export async function startVite(port, uiPort) {
  const saved = process.env.H2LAB_UI_PORT;
  process.env.H2LAB_UI_PORT = String(uiPort);
  try {
    const vite = await createViteServer({
      configFile: new URL('../../vite.config.js', import.meta.url).pathname,
      server: { port, strictPort: true, watch: null },
      optimizeDeps: { noDiscovery: true }, // nothing here loads the page's modules
      logLevel: 'silent',
    });
    await vite.listen();
    return vite;
  } finally {
    if (saved === undefined) delete process.env.H2LAB_UI_PORT;
    else process.env.H2LAB_UI_PORT = saved;
  }
}
