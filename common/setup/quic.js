// Chrome speaks HTTP/3 to an origin it has not learnt from Alt-Svc only when told to: every
// HTTP/3 origin of the lab (direct and through the lab link) goes into one flag. QUIC must not be
// disabled in that Chrome (--disable-quic wins over this flag).

/**
 * @param {{ protocol: string, origin: string, linkOrigin?: string }[]} servers /api/servers' list
 * @returns {string|null} `--origin-to-force-quic-on=host:port,…`, or null with no HTTP/3 server
 */
export function forceQuicFlag(servers) {
  const hosts = servers.filter((s) => s.protocol === 'h3').flatMap((s) => /** @type {string[]} */ ([s.origin, s.linkOrigin].filter(Boolean))).map((o) => new URL(o).host);
  return hosts.length ? `--origin-to-force-quic-on=${hosts.join(',')}` : null;
}
