// The lab's origins by name, for a browser that must reach them by name (Firefox: runner/browsers/firefox.js).
// Firefox forces HTTP/3 per host name alone (network.http.http3.alt-svc-mapping-for-testing
// ignores the port: with localhost mapped, every port of localhost went to the HTTP/3 server), so
// the HTTP/3 server has a name of its own, and another through the lab link; on the packet network
// Firefox's network.dns.forceResolve skips localhost and IP literals, so every origin has a name.
// The names are under .test (RFC 6761), which no resolver answers for: the browser maps them
// itself (to loopback, or to the packet network's server side), and a name that escaped that
// mapping would reach nobody. The certificate covers them (server/certs.js).
export const labHostNames = Object.freeze({
  /** The UI and every server over TCP (HTTP/1.1, HTTP/2). */
  tcp: 'h2lab.test',
  /** The HTTP/3 server. */
  h3: 'h3.h2lab.test',
  /** The HTTP/3 server's twin port on the lab link. */
  h3Link: 'h3-link.h2lab.test',
});

/** Every name above, for the certificate, the origin policy and the browser's resolver. */
export const allLabHostNames = Object.freeze(Object.values(labHostNames));
