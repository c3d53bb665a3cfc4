import fc from 'fast-check';
import ipaddr from 'ipaddr.js';

/** IPv6 forms that carry an IPv4 address, for the webhook address rules' property tests. */
export const EMBEDDING_FORMS = ['mapped', 'compatible', 'nat64', 'nat64-local', '6to4', 'teredo-client', 'teredo-server'] as const;
export type EmbeddingForm = (typeof EMBEDDING_FORMS)[number];

type Octets = [number, number, number, number];

const octet = fc.integer({ min: 0, max: 255 });

/** Private (RFC 1918), loopback, link-local and carrier-grade NAT IPv4 addresses. */
export const nonPublicIPv4: fc.Arbitrary<Octets> = fc.oneof(
  fc.tuple(fc.constant(127), octet, octet, octet),
  fc.tuple(fc.constant(10), octet, octet, octet),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet),
  fc.tuple(fc.constant(169), fc.constant(254), octet, octet),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), octet, octet),
);

/** A public Teredo server or client to pair with the address under test. */
const PUBLIC: Octets = [65, 54, 227, 120];

const words = ([a, b, c, d]: Octets): [number, number] => [(a << 8) | b, (c << 8) | d];
const inverted = (octets: Octets): [number, number] => words(octets).map((word) => word ^ 0xffff) as [number, number];

/** The eight 16-bit words of `form` carrying `ipv4`; `seed` fills the words the form leaves free. */
function embeddedParts(ipv4: Octets, form: EmbeddingForm, seed: number): number[] {
  const free = (shift: number) => (seed >>> shift) & 0xffff;
  switch (form) {
    case 'mapped':
      return [0, 0, 0, 0, 0, 0xffff, ...words(ipv4)];
    case 'compatible':
      return [0, 0, 0, 0, 0, 0, ...words(ipv4)];
    case 'nat64':
      return [0x64, 0xff9b, 0, 0, 0, 0, ...words(ipv4)];
    case 'nat64-local':
      return [0x64, 0xff9b, 1, free(0), free(8), 0, ...words(ipv4)];
    case '6to4':
      return [0x2002, ...words(ipv4), free(0), 0, 0, free(8), 1];
    case 'teredo-client':
      return [0x2001, 0, ...words(PUBLIC), 0x8000, free(0), ...inverted(ipv4)];
    case 'teredo-server':
      return [0x2001, 0, ...words(ipv4), 0x8000, free(0), ...inverted(PUBLIC)];
  }
}

/**
 * The form as an IPv6 literal, written compressed, in full, or (where the form ends in the IPv4
 * address) with the IPv4 address dotted, as `seed` picks.
 */
export function embeddedIPv6Literal(ipv4: Octets, form: EmbeddingForm, seed: number): string {
  const address = new ipaddr.IPv6(embeddedParts(ipv4, form, seed));
  const dottedTail = form === 'mapped' || form === 'compatible' || form === 'nat64' || form === 'nat64-local';
  switch (seed % 3) {
    case 0:
      return address.toString();
    case 1:
      return address.toNormalizedString();
    default:
      return dottedTail ? `${address.parts.slice(0, 6).map((word) => word.toString(16)).join(':')}:${ipv4.join('.')}` : address.toString();
  }
}
