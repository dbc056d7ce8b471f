// What the emulator reads of an IP packet: just enough to tell the lab UI's TCP traffic (carried
// unshaped) from the measured traffic. It reads ports only where the receiving kernel would find
// a whole TCP header of an unfragmented packet; anything else is measured traffic, so that no
// packet a process on the browser side crafts passes as the UI's without being a TCP segment to
// the UI's port (issue 28: IHL 0 read the IP header's own length as a "port", and a fragment's
// payload as a TCP header).
// - IPv4: IHL at least 5 (20 bytes), the total length within what was read and covering the IP
//   header and a TCP header of at least 20 bytes (its data offset at least 5 and within the
//   packet). Options (IHL above 5) are read past, as the kernel does.
// - IPv4 fragments, first ones included (MF set, offset 0), are never the UI's: the lab's TCP sets
//   DF and sizes its segments to the path's MTU (1,500 on both devices, which the emulator never
//   changes), so it sends none; and the ports of a first fragment stand for a datagram the kernel
//   puts together from pieces this reader never sees together, the rest of which would be shaped.
// - IPv6: a TCP header right after the fixed header only; any extension header (a Fragment
//   header, next header 44, among them) makes it not TCP to this reader, so measured. The sides
//   have IPv6 disabled (launch.py): the lab sends none.
// Checksums are not checked: a packet whose header is well formed but whose checksum is wrong
// passes unshaped if it names the UI's port, and the receiving kernel drops it; it reaches nobody.
const TCP = 6;
const IPV4_MIN_HEADER = 20;
const IPV6_HEADER = 40;
const TCP_MIN_HEADER = 20;
const MORE_FRAGMENTS_AND_OFFSET = 0x3fff; // IPv4 flags and fragment offset, DF (0x4000) left out

/**
 * Where the TCP header starts and where the IP packet ends, or null when it is not a TCP segment this reader can trust.
 * @param {Buffer} packet
 */
function tcpSegment(packet) {
  if (packet.length === 0) return null;
  const version = packet[0] >> 4;
  let start;
  let end;
  if (version === 4) {
    if (packet.length < IPV4_MIN_HEADER) return null;
    start = (packet[0] & 0x0f) * 4;
    end = packet.readUInt16BE(2);
    if (start < IPV4_MIN_HEADER || packet[9] !== TCP || (packet.readUInt16BE(6) & MORE_FRAGMENTS_AND_OFFSET) !== 0) return null;
  } else if (version === 6) {
    if (packet.length < IPV6_HEADER || packet[6] !== TCP) return null;
    start = IPV6_HEADER;
    end = IPV6_HEADER + packet.readUInt16BE(4);
  } else return null;
  if (end > packet.length || end < start + TCP_MIN_HEADER) return null;
  const dataOffset = (packet[start + 12] >> 4) * 4;
  if (dataOffset < TCP_MIN_HEADER || start + dataOffset > end) return null;
  return { start, end };
}

/**
 * The packet's TCP source and destination ports, or null when it is not a TCP packet it can read.
 * @param {Buffer} packet
 */
export function tcpPorts(packet) {
  const segment = tcpSegment(packet);
  if (!segment) return null;
  return { source: packet.readUInt16BE(segment.start), destination: packet.readUInt16BE(segment.start + 2) };
}

/**
 * True for TCP to or from `port` (either direction of the connection).
 * @param {Buffer} packet @param {number} port
 */
export function isTcpPort(packet, port) {
  const ports = tcpPorts(packet);
  return ports !== null && (ports.source === port || ports.destination === port);
}
