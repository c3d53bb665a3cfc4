import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { LRUCache } from 'lru-cache';
import { AppError, unauthorized } from '../errors.ts';
import type { Role } from '../store/index.ts';

export interface AccessClaims {
  sub: string;
  email: string;
  role: Role;
  type: 'access';
  iat: number;
  exp: number;
}

const ROLES: readonly string[] = ['admin', 'editor', 'viewer'];
/** Verified tokens remembered (the least recently used go first): a client sends the same token until it expires. */
const VERIFIED_CACHE_SIZE = 1000;

/** Issues and verifies HS256 JWT access tokens with the claims the API documents (sub, email, role, iat, exp). */
export class AccessTokens {
  private readonly key: Uint8Array;
  private readonly lifetimeSeconds: number;
  private readonly now: () => number;
  /**
   * Claims of tokens whose signature was verified, by the exact token text: checking an HMAC
   * through WebCrypto costs more than the rest of a small request's authentication. Expiry is still
   * checked on every use; a token never verified is never found here.
   */
  private readonly verified = new LRUCache<string, AccessClaims>({ max: VERIFIED_CACHE_SIZE });

  constructor(secret: string, lifetimeSeconds: number, now: () => number = Date.now) {
    this.key = new TextEncoder().encode(secret);
    this.lifetimeSeconds = lifetimeSeconds;
    this.now = now;
  }

  async issue(user: { id: string; email: string; role: Role }): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ email: user.email, role: user.role, type: 'access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.lifetimeSeconds)
      .sign(this.key);
  }

  /** Verifies signature, algorithm (HS256 only: `none` and others are refused), expiry and claims. */
  async verify(token: string): Promise<AccessClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > this.now()) return known;
      this.verified.delete(token);
    }
    const claims = await this.verifySignature(token);
    this.verified.set(token, claims);
    return claims;
  }

  private async verifySignature(token: string): Promise<AccessClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppError('TOKEN_EXPIRED', 'Access token expired');
      throw unauthorized('Invalid access token');
    }
    const { sub, email, role, type, iat, exp } = payload;
    if (
      type !== 'access' ||
      typeof sub !== 'string' ||
      typeof email !== 'string' ||
      typeof role !== 'string' ||
      !ROLES.includes(role) ||
      typeof iat !== 'number' ||
      typeof exp !== 'number'
    ) {
      throw unauthorized('Invalid access token');
    }
    return { sub, email, role: role as Role, type, iat, exp };
  }
}
