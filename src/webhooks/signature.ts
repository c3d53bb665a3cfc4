import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures: `v1=` + hex(HMAC-SHA256(secret, "v1:" + timestamp +
 * ":" + raw body)), with the timestamp in Unix seconds sent as X-Service-Timestamp.
 */
export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signWebhook(secret: string, timestamp: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${SIGNATURE_VERSION}:${timestamp}:`);
  hmac.update(rawBody);
  return `${SIGNATURE_VERSION}=${hmac.digest('hex')}`;
}

export interface VerifyOptions {
  secret: string;
  /** The request body exactly as received (not re-serialized JSON). */
  rawBody: string | Buffer;
  /** The X-Service-Timestamp header. */
  timestamp: string | undefined;
  /** The X-Service-Signature header. */
  signature: string | undefined;
  toleranceSeconds?: number;
  /** Current time in Unix seconds (for tests). */
  now?: number;
}

/**
 * For receivers: true when the signature matches the raw body and the timestamp is within the
 * tolerance (300 s by default) of now. Compares in constant time. Unknown scheme versions are
 * ignored, so a header carrying `v1=...` beside a future `v2=...` still verifies.
 */
export function verifyWebhookSignature(options: VerifyOptions): boolean {
  const { secret, rawBody, timestamp, signature } = options;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), rawBody));
  return signature
    .split(/[\s,]+/)
    .filter((candidate) => candidate.startsWith(`${SIGNATURE_VERSION}=`))
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
