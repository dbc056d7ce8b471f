// Packets as a process on the browser side can put on its TUN device (an AF_PACKET socket writes
// any bytes; a raw IP socket with IP_HDRINCL most), built field by field, and the outside review's
// corpus of hostile ones (issue 28). Used by test/ip-header.test.js on the emulator's step, and
// by hostile.js, which sends them through a real packet network (hostile-side.py).
//
// Each corpus entry: { name, packet, ui, raw }. ui: whether the emulator must carry it as the lab
// UI's traffic (a whole, unfragmented TCP segment to or from the UI port); every other packet is
// measured (shaped). raw: also sent through a raw IP socket, whose kernel rewrites the total
// length, checksum, id and a zero source (so only packets whose reading those leave alone).

const TCP = 6;
const UDP = 17;
const FRAGMENT = 44; // IPv6 Fragment header
const HOP_BY_HOP = 0;

/** The UI port the unit tests use; hostile.js passes the lab's. */
export const uiPort = 8080;
// The sides' addresses (server/packet/launch.py); 198.19.0.0/16 is the rest of RFC 2544's range,
// which neither side has: nothing sent to it can leave the namespaces (no route, no forwarding).
export const serverSide = [198, 18, 0, 1];
export const browserSide = [198, 18, 0, 2];
export const outsideAddress = [198, 19, 0, 1];
// IPv6 benchmarking addresses (RFC 5180): the sides have IPv6 disabled; these only have to parse.
const serverSide6 = [0x20, 0x01, 0, 2, ...Array(11).fill(0), 1];
const browserSide6 = [0x20, 0x01, 0, 2, ...Array(11).fill(0), 2];

/** The IPv4 header checksum (RFC 791) of `header`. */
function checksum(header) {
  let sum = 0;
  for (let i = 0; i + 1 < header.length; i += 2) sum += header.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * A transport header and its payload (bytes 0x5a, the first `firstByte` where given): TCP
 * (tcpWords × 4 bytes, at least 20 written; a SYN unless flags say otherwise) or UDP, or 8 bytes of ports.
 */
function transport({ protocol, source, destination, tcpWords = 5, payload = 0, seq = 0, flags = 0x02, firstByte }) {
  const bytes = protocol === TCP ? Math.max(20, tcpWords * 4) : 8;
  const header = Buffer.alloc(bytes + payload, 0x5a);
  header.fill(0, 0, bytes);
  header.writeUInt16BE(source, 0);
  header.writeUInt16BE(destination, 2);
  if (protocol === TCP) {
    header.writeUInt32BE(seq, 4);
    header[12] = tcpWords << 4;
    header[13] = flags;
  } else if (protocol === UDP) header.writeUInt16BE(8 + payload, 4); // UDP checksum 0: none
  if (firstByte !== undefined && payload) header[bytes] = firstByte;
  return header;
}

/**
 * An IPv4 packet from the browser side, any field as given. The header area is IHL × 4 bytes, at
 * least the 20 its fixed fields take (so IHL 0 and 4 still carry their addresses); the transport
 * header follows it. totalLength: the header's claim (by default the truth); cut: the bytes kept;
 * seq, flags (TCP) and firstByte (the payload's) as transport() takes them.
 */
export function ipv4({ version = 4, ihl = 5, totalLength, dontFragment = false, moreFragments = false, fragmentOffset = 0, protocol = TCP,
  source = 50000, destination = uiPort, tcpWords = 5, payload = 0, trailing = 0, from = browserSide, to = serverSide, cut, seq, flags, firstByte } = {}) {
  const header = Buffer.alloc(Math.max(20, ihl * 4));
  const body = transport({ protocol, source, destination, tcpWords, payload, seq, flags, firstByte });
  header[0] = (version << 4) | ihl;
  header.writeUInt16BE(totalLength ?? header.length + body.length, 2);
  header.writeUInt16BE(0x4832, 4); // id
  header.writeUInt16BE((dontFragment ? 0x4000 : 0) | (moreFragments ? 0x2000 : 0) | fragmentOffset, 6);
  header[8] = 64; // TTL
  header[9] = protocol;
  Buffer.from(from).copy(header, 12);
  Buffer.from(to).copy(header, 16);
  if (ihl >= 5) header.writeUInt16BE(checksum(header), 10);
  const packet = Buffer.concat([header, body, Buffer.alloc(trailing)]);
  return cut === undefined ? packet : packet.subarray(0, cut);
}

/**
 * An IPv6 packet from the browser side; extension: 'fragment' (a Fragment header, first fragment
 * with more to come) or 'hop-by-hop' before the transport header. payloadLength: the header's claim.
 */
export function ipv6({ nextHeader = TCP, source = 50000, destination = uiPort, extension = null, payloadLength, cut } = {}) {
  let body = transport({ protocol: nextHeader, source, destination });
  let first = nextHeader;
  if (extension) {
    const ext = Buffer.alloc(8);
    ext[0] = nextHeader;
    if (extension === 'fragment') {
      ext.writeUInt16BE(0x0001, 2); // offset 0, M set
      ext.writeUInt32BE(0x4832, 4);
      first = FRAGMENT;
    } else {
      ext[2] = 1; // PadN filling the 6 bytes left
      ext[3] = 4;
      first = HOP_BY_HOP;
    }
    body = Buffer.concat([ext, body]);
  }
  const header = Buffer.alloc(40);
  header[0] = 0x60;
  header.writeUInt16BE(payloadLength ?? body.length, 4);
  header[6] = first;
  header[7] = 64; // hop limit
  Buffer.from(browserSide6).copy(header, 8);
  Buffer.from(serverSide6).copy(header, 24);
  const packet = Buffer.concat([header, body]);
  return cut === undefined ? packet : packet.subarray(0, cut);
}

/**
 * The review's corpus, with the UI's port wherever a careless reader would look for ports.
 * @param {number} [port] the lab UI's port
 * @returns {{ name: string, packet: Buffer, ui: boolean, raw?: boolean }[]}
 */
export function hostileCorpus(port = uiPort) {
  const ui = { destination: port };
  // IHL 4 puts a reader's "ports" on the destination address: 198.18.<port> is still the benchmarking range.
  const portAddress = [198, 18, port >> 8, port & 0xff];
  return [
    { name: '0 bytes', packet: Buffer.alloc(0), ui: false },
    { name: '1 byte, IPv4', packet: Buffer.from([0x45]), ui: false },
    { name: '1 byte, IPv6', packet: Buffer.from([0x60]), ui: false },
    { name: 'IPv4 header cut at 19 bytes', packet: ipv4({ ...ui, cut: 19 }), ui: false },
    { name: 'version 15', packet: ipv4({ ...ui, version: 15 }), ui: false, raw: true },
    { name: 'version 0', packet: ipv4({ ...ui, version: 0 }), ui: false },
    // IHL 0: a reader at IHL × 4 takes the version byte and the total length for ports.
    { name: 'IHL 0, total length = the UI port', packet: ipv4({ ...ui, ihl: 0, totalLength: port }), ui: false },
    { name: 'IHL 4, destination address ending in the UI port', packet: ipv4({ ...ui, ihl: 4, to: portAddress }), ui: false },
    { name: 'IHL 15, 40 bytes of options, a TCP segment to the UI', packet: ipv4({ ...ui, ihl: 15 }), ui: true, raw: true },
    { name: 'IHL 15 in a 40-byte packet', packet: ipv4({ ...ui, ihl: 15, cut: 40, totalLength: 40 }), ui: false },
    { name: 'IHL 15, TCP header cut to its ports', packet: ipv4({ ...ui, ihl: 15, cut: 64, totalLength: 64 }), ui: false },
    { name: 'total length 65,535, 40 bytes read', packet: ipv4({ ...ui, totalLength: 65_535 }), ui: false },
    { name: 'total length 65,535, 40 bytes and 1,400 of padding read', packet: ipv4({ ...ui, totalLength: 65_535, trailing: 1_400 }), ui: false },
    { name: 'total length 24: 4 bytes of TCP, the rest past the length', packet: ipv4({ ...ui, totalLength: 24 }), ui: false },
    { name: 'total length 10, shorter than the header', packet: ipv4({ ...ui, totalLength: 10 }), ui: false },
    { name: 'TCP header cut to its ports (24 bytes)', packet: ipv4({ ...ui, cut: 24, totalLength: 24 }), ui: false, raw: true },
    { name: 'TCP data offset 4', packet: ipv4({ ...ui, tcpWords: 4 }), ui: false, raw: true },
    { name: 'TCP data offset 15 in a 20-byte TCP header', packet: ipv4({ ...ui, tcpWords: 15, totalLength: 40, cut: 40 }), ui: false, raw: true },
    // Fragments: a fragment's payload is no TCP header, yet starts with the UI's port here.
    { name: 'non-first fragment (offset 8 bytes), "ports" = the UI port', packet: ipv4({ ...ui, fragmentOffset: 1 }), ui: false, raw: true },
    { name: 'middle fragment (MF, offset 1,480 bytes), "ports" = the UI port', packet: ipv4({ ...ui, moreFragments: true, fragmentOffset: 185 }), ui: false, raw: true },
    { name: 'last fragment (offset 65,528 bytes), "ports" = the UI port', packet: ipv4({ ...ui, fragmentOffset: 0x1fff }), ui: false, raw: true },
    { name: 'first fragment (MF, offset 0), a TCP header to the UI port', packet: ipv4({ ...ui, moreFragments: true, payload: 8 }), ui: false, raw: true },
    { name: 'first fragment with DF also set', packet: ipv4({ ...ui, moreFragments: true, dontFragment: true }), ui: false, raw: true },
    { name: 'UDP to the UI port', packet: ipv4({ ...ui, protocol: UDP }), ui: false, raw: true },
    { name: 'UDP to an outside address', packet: ipv4({ ...ui, protocol: UDP, to: outsideAddress }), ui: false, raw: true },
    // By its ports alone: the server side's kernel, which has neither the address nor forwarding, drops it.
    { name: 'TCP to the UI port at an outside address', packet: ipv4({ ...ui, to: outsideAddress }), ui: true, raw: true },
    { name: 'TCP to the UI port (DF set, as the lab sends)', packet: ipv4({ ...ui, dontFragment: true }), ui: true, raw: true },
    { name: 'TCP from the UI port', packet: ipv4({ source: port, destination: 50000, dontFragment: true }), ui: true, raw: true },
    { name: 'TCP to another port', packet: ipv4({ destination: port + 1 }), ui: false, raw: true },
    { name: 'IPv6 TCP to the UI port', packet: ipv6(ui), ui: true },
    { name: 'IPv6 cut at 39 bytes', packet: ipv6({ ...ui, cut: 39 }), ui: false },
    { name: 'IPv6 Fragment header, then a TCP header to the UI port', packet: ipv6({ ...ui, extension: 'fragment' }), ui: false },
    { name: 'IPv6 hop-by-hop header, then a TCP header to the UI port', packet: ipv6({ ...ui, extension: 'hop-by-hop' }), ui: false },
    { name: 'IPv6 payload length 0 (jumbo) with TCP', packet: ipv6({ ...ui, payloadLength: 0 }), ui: false },
    { name: 'IPv6 payload length 65,535, 60 bytes read', packet: ipv6({ ...ui, payloadLength: 65_535 }), ui: false },
  ];
}
