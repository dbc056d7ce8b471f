// The lab's control API on the page's own origin (server/ui.js).

async function call(path, init) {
  const res = await fetch(path, { cache: 'no-store', ...init });
  const body = await res.json();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}: ${body.error ?? 'error'}`);
  return body;
}

/** { ui, servers: [{ id, label, origin, port, protocol, capabilities }], limits, certificate } */
export const getLab = () => call('/api/servers');

/** Closes every connection of the test servers so the next run starts cold. */
export const resetConnections = () => call('/api/reset', { method: 'POST' });

/** { servers: [{ id, openConnections, requests, pushesSent, pushesRefused, … }] } */
export const getStats = () => call('/api/stats');
