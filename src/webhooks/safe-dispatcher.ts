import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isPublicAddress, unbracketedHost } from './address-policy.ts';

export class BlockedAddressError extends Error {
  constructor(address: string | undefined) {
    super(`refused to connect to the non-public address ${address ?? '(unknown)'}`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup that only ever yields public addresses, so a rebinding host cannot steer us inward. */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    if (allowed.length === 0) return callback(new BlockedAddressError(addresses[0]?.address), []);
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}

/** A URL's literal IP address (which skips the lookup above), refused before any packet is sent to it. */
function isRefusedLiteral(hostname: string): boolean {
  const host = unbracketedHost(hostname);
  return isIP(host) !== 0 && !isPublicAddress(host);
}

/**
 * The HTTP agent webhook deliveries use. Unless private addresses are allowed (development and
 * tests), it refuses a literal IP that is not public before connecting, resolves host names to
 * public addresses only and, after connecting, checks the address it is actually connected to,
 * before any byte of the request is sent.
 */
export function createDeliveryAgent(allowPrivate: boolean, timeoutMs: number): Agent {
  const connect = buildConnector({ timeout: timeoutMs, ...(allowPrivate ? {} : { lookup: publicOnlyLookup }) });
  const guarded: buildConnector.connector = (options, callback) => {
    if (!allowPrivate && isRefusedLiteral(options.hostname)) return callback(new BlockedAddressError(options.hostname), null);
    connect(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('connection failed'), null);
      if (!allowPrivate && !isPublicAddress(socket.remoteAddress ?? '')) {
        socket.destroy();
        return callback(new BlockedAddressError(socket.remoteAddress), null);
      }
      callback(null, socket);
    });
  };
  return new Agent({ connect: guarded, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 32 });
}
