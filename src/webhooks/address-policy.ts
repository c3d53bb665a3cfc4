import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may connect to an IP address: only global unicast addresses. Private,
 * loopback, link-local, unique-local, multicast, unspecified, carrier-grade NAT, reserved and
 * documentation ranges are refused, and an IPv4-mapped IPv6 address is judged as the IPv4 address
 * it carries (so ::ffff:10.0.0.1 is private). Unparseable input is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}
