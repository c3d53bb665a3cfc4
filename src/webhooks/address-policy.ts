import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** An IPv6 form that carries IPv4 addresses: the address is as public as what it carries. */
interface EmbeddingForm {
  prefix: [IPv6, number];
  /** The IPv4 addresses it carries; empty when where they sit cannot be known (then refused). */
  embedded(parts: number[]): IPv4[];
}

const ipv4Of = (high: number, low: number): IPv4 => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as IPv4;
const lastWords = (parts: number[]): IPv4[] => [ipv4Of(parts[6]!, parts[7]!)];
const cidr = (text: string): [IPv6, number] => ipaddr.IPv6.parseCIDR(text);

const EMBEDDING_FORMS: EmbeddingForm[] = [
  { prefix: cidr('::ffff:0:0/96'), embedded: lastWords }, // IPv4-mapped
  { prefix: cidr('::/96'), embedded: lastWords }, // IPv4-compatible (deprecated); :: and ::1 carry 0.0.0.0/8
  { prefix: cidr('64:ff9b::/96'), embedded: lastWords }, // NAT64, well-known prefix
  // NAT64 local use: where the IPv4 sits depends on the operator's prefix length, and IANA marks it
  // not globally reachable, so all of it is refused.
  { prefix: cidr('64:ff9b:1::/48'), embedded: () => [] },
  { prefix: cidr('2002::/16'), embedded: (parts) => [ipv4Of(parts[1]!, parts[2]!)] }, // 6to4
  // Teredo: the server, then the client with every bit inverted.
  { prefix: cidr('2001::/32'), embedded: (parts) => [ipv4Of(parts[2]!, parts[3]!), ipv4Of(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff)] },
];

/** IANA's global unicast block; everything outside it that embeds no IPv4 is refused. */
const GLOBAL_UNICAST = cidr('2000::/3');

const isPublicIPv4 = (address: IPv4): boolean => address.range() === 'unicast';

function isPublicIPv6(address: IPv6): boolean {
  const form = EMBEDDING_FORMS.find((candidate) => address.match(candidate.prefix));
  if (form) {
    const carried = form.embedded(address.parts);
    return carried.length > 0 && carried.every(isPublicIPv4);
  }
  return address.match(GLOBAL_UNICAST) && address.range() === 'unicast';
}

/** A URL's host without the brackets of an IPv6 literal. */
export const unbracketedHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Whether a webhook may connect to an IP address. An allow-list: an IPv4 address must be in
 * ipaddr.js's `unicast` range (not private, loopback, link-local, carrier-grade NAT, multicast,
 * reserved, documentation...). An IPv6 form that carries an IPv4 address (mapped, compatible, NAT64,
 * 6to4, Teredo) is judged by every address it carries, since a stack or a gateway may deliver it
 * there; any other IPv6 address must be global unicast (2000::/3) and `unicast` for ipaddr.js, which
 * leaves out site-local, unique-local, documentation, benchmarking and the like. Unparseable input
 * is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? isPublicIPv4(parsed as IPv4) : isPublicIPv6(parsed as IPv6);
}
