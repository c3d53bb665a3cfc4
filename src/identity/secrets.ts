import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 hex digest: what we store of refresh and API tokens, never the tokens themselves. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** `bytes` cryptographically random bytes as base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Compares two strings in time that depends only on their length. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
