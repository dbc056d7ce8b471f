// The transport headers of one captured packet (server/packet/capture.js): IPv4, then TCP or UDP,
// read from the bytes the capture kept, which may be the packet's first 128 only. Sizes come from
// the IP header's total length, checked against the packet's length on the wire, never from what
// was kept. server/packet/ip-header.js is not reused: it trusts only a packet read whole (its
// total length within the bytes read), which a header capture never is.
const TCP = 6;
const UDP = 17;
const IPV4_MIN_HEADER = 20;
const TCP_MIN_HEADER = 20;
const UDP_HEADER = 8;
const MORE_FRAGMENTS_AND_OFFSET = 0x3fff; // DF (0x4000) left out: the lab's packets set it

/** TCP's flag bits (byte 13 of its header). */
export const tcpFlags = { fin: 0x01, syn: 0x02, rst: 0x04, ack: 0x10 };

/**
 * @typedef {object} Segment  one packet's addresses and transport header
 * @property {'tcp'|'udp'} transport
 * @property {string} source  dotted IPv4 address
 * @property {string} destination
 * @property {number} sourcePort
 * @property {number} destinationPort
 * @property {number} payloadBytes  the transport's payload on the wire
 * @property {number} seq  TCP: the sequence number (0 for UDP)
 * @property {number} flags  TCP: the flag byte (0 for UDP)
 * @property {'long'|'short'|null} quicHeader  UDP: the form of the QUIC packet the datagram starts
 *   with (its first byte's top bit), null when no payload byte was kept or for TCP
 */

/** @param {Buffer} data @param {number} at */
const address = (data, at) => `${data[at]}.${data[at + 1]}.${data[at + 2]}.${data[at + 3]}`;

/**
 * The packet's segment, or null when it is not one this reader can place: not IPv4, neither TCP
 * nor UDP, a fragment, a header cut before its end, or lengths that contradict each other.
 * @param {Buffer} data  what the capture kept
 * @param {number} length  the packet's length on the wire
 * @returns {Segment|null}
 */
export function segmentOf(data, length) {
  if (data.length < IPV4_MIN_HEADER || data[0] >> 4 !== 4) return null;
  const ipHeader = (data[0] & 0x0f) * 4;
  const totalLength = data.readUInt16BE(2);
  const protocol = data[9];
  if (ipHeader < IPV4_MIN_HEADER || totalLength > length || (data.readUInt16BE(6) & MORE_FRAGMENTS_AND_OFFSET) !== 0) return null;
  const common = { source: address(data, 12), destination: address(data, 16) };
  if (protocol === TCP) {
    if (data.length < ipHeader + TCP_MIN_HEADER) return null;
    const tcpHeader = (data[ipHeader + 12] >> 4) * 4;
    if (tcpHeader < TCP_MIN_HEADER || ipHeader + tcpHeader > totalLength) return null;
    return {
      transport: 'tcp',
      ...common,
      sourcePort: data.readUInt16BE(ipHeader),
      destinationPort: data.readUInt16BE(ipHeader + 2),
      payloadBytes: totalLength - ipHeader - tcpHeader,
      seq: data.readUInt32BE(ipHeader + 4),
      flags: data[ipHeader + 13],
      quicHeader: null,
    };
  }
  if (protocol === UDP) {
    if (data.length < ipHeader + UDP_HEADER || ipHeader + UDP_HEADER > totalLength) return null;
    const payloadBytes = totalLength - ipHeader - UDP_HEADER;
    const first = payloadBytes > 0 && data.length > ipHeader + UDP_HEADER ? data[ipHeader + UDP_HEADER] : null;
    return {
      transport: 'udp',
      ...common,
      sourcePort: data.readUInt16BE(ipHeader),
      destinationPort: data.readUInt16BE(ipHeader + 2),
      payloadBytes,
      seq: 0,
      flags: 0,
      quicHeader: first === null ? null : first & 0x80 ? 'long' : 'short',
    };
  }
  return null;
}
