import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { badRequest } from '../errors.ts';
import { isPublicAddress, unbracketedHost } from './address-policy.ts';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Resolves a host name to all its addresses (injectable for tests). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Webhook URL rules: http or https, at most 2048 characters, no credentials, and (unless private
 * addresses are allowed for development) a host whose every address is public. This runs on create
 * and update; deliveries check again against the address they actually connect to.
 */
export async function assertAcceptableWebhookUrl(url: string, allowPrivate: boolean, resolve: HostResolver = systemResolver): Promise<void> {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw badRequest(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest('url must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest('url must use http or https');
  if (parsed.username !== '' || parsed.password !== '') throw badRequest('url must not contain credentials (user:password@)');
  if (allowPrivate) return;
  const host = unbracketedHost(parsed.hostname);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      throw badRequest(`url host "${host}" does not resolve`);
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw badRequest(`url host "${host}" resolves to a private or reserved address; webhooks must reach public addresses`);
  }
}
