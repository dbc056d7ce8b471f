// Placeholder until the browser lab: lists the servers and checks that each one answers over
// the protocol it promises (certificate trusted, CORS and Timing-Allow-Origin in place).
const rows = document.querySelector('#servers tbody');

async function checkServer(server) {
  const url = `${server.origin}/option?size=0.001&delay=0&check=${Date.now()}`;
  try {
    const res = await fetch(url, { cache: 'no-store' });
    await res.arrayBuffer();
    const entry = performance.getEntriesByName(url).at(-1);
    const protocol = entry?.nextHopProtocol || '?';
    return { ok: protocol === server.protocol, text: `${protocol} via ${res.headers.get('x-server')}` };
  } catch {
    return { ok: false, text: `unreachable: if the certificate is not trusted, run npm run chrome or open ${server.origin} once` };
  }
}

async function render() {
  const { servers } = await (await fetch('/api/servers')).json();
  rows.replaceChildren(
    ...servers.map((s) => {
      const tr = document.createElement('tr');
      tr.dataset.server = s.id;
      for (const text of [s.label, s.origin, s.protocol, '…']) tr.insertCell().textContent = text;
      return tr;
    }),
  );
  for (const s of servers) {
    const cell = rows.querySelector(`[data-server="${s.id}"]`).cells[3];
    const result = await checkServer(s);
    cell.textContent = result.text;
    cell.className = result.ok ? 'ok' : 'bad';
  }
}

document.querySelector('#check').addEventListener('click', render);
render();
