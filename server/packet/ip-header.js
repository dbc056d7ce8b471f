// What the emulator reads of an IP packet: just enough to tell the lab UI's TCP traffic (carried
// unshaped) from the measured traffic. IPv4 and IPv6 (no extension headers: the lab's TCP sends
// none); anything it cannot read is measured traffic.
const TCP = 6;

/** The packet's TCP source and destination ports, or null when it is not a TCP packet it can read. */
export function tcpPorts(packet) {
  const version = packet[0] >> 4;
  let offset;
  if (version === 4 && packet.length >= 20 && packet[9] === TCP) offset = (packet[0] & 0x0f) * 4;
  else if (version === 6 && packet.length >= 40 && packet[6] === TCP) offset = 40;
  else return null;
  if (packet.length < offset + 4) return null;
  return { source: packet.readUInt16BE(offset), destination: packet.readUInt16BE(offset + 2) };
}

/** True for TCP to or from `port` (either direction of the connection). */
export function isTcpPort(packet, port) {
  const ports = tcpPorts(packet);
  return ports !== null && (ports.source === port || ports.destination === port);
}
