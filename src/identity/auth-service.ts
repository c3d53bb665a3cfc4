import { randomUUID } from 'node:crypto';
import { unauthorized } from '../errors.ts';
import type { Store, UserRecord } from '../store/index.ts';
import { tokenPrincipal, userPrincipal, type Principal } from '../access/principal.ts';
import type { AccessTokens } from './access-tokens.ts';
import type { PasswordHasher } from './passwords.ts';
import { randomToken, sha256Hex } from './secrets.ts';
import { normalizeEmail } from './safe-user.ts';

export const API_TOKEN_PREFIX = 'svc_';

export interface Session {
  accessToken: string;
  refreshToken: string;
  user: Pick<UserRecord, 'id' | 'email' | 'name' | 'role' | 'createdAt' | 'updatedAt'>;
}

export interface AuthServiceDeps {
  store: Store;
  accessTokens: AccessTokens;
  passwords: PasswordHasher;
  refreshLifetimeSeconds: number;
  now?: () => Date;
}

const INVALID_REFRESH = 'Invalid or expired refresh token';
const TOKEN_TOUCH_INTERVAL_MS = 60_000;

/** Sign-in, refresh-token rotation, logout, and turning a bearer credential into a Principal. */
export class AuthService {
  private readonly deps: AuthServiceDeps;
  private readonly now: () => Date;

  constructor(deps: AuthServiceDeps) {
    this.deps = deps;
    this.now = deps.now ?? (() => new Date());
  }

  async login(email: string, password: string): Promise<Session> {
    const { store, passwords } = this.deps;
    const user = await store.users.findByEmail(normalizeEmail(email));
    const valid = user ? await passwords.verify(password, user.passwordHash) : await passwords.verifyAgainstNothing(password);
    if (!user || !valid) throw unauthorized('Invalid email or password');
    return this.startSession(user, randomUUID());
  }

  /**
   * Rotates a refresh token: the presented one is consumed and a new pair returned. Presenting a
   * token that was already used is treated as theft: its whole family (every token descended
   * from the same login) is revoked, so the thief's copy dies with the victim's.
   */
  async refresh(refreshToken: string): Promise<Session> {
    const { store } = this.deps;
    const now = this.now().toISOString();
    const record = await store.refreshTokens.findByHash(sha256Hex(refreshToken));
    if (!record) throw unauthorized(INVALID_REFRESH);
    if (!(await store.refreshTokens.consume(record.id, now))) {
      // Reuse of an already-rotated token: revoke the family. A token that merely expired, was
      // logged out, or lost a race with a concurrent refresh just fails.
      if (record.usedAt !== null) await store.refreshTokens.revokeFamily(record.familyId, now);
      throw unauthorized(INVALID_REFRESH);
    }
    const user = await store.users.findById(record.userId);
    if (!user) throw unauthorized(INVALID_REFRESH);
    return this.startSession(user, record.familyId);
  }

  /** Revokes the given refresh token; unknown tokens are ignored so logout never reveals anything. */
  async logout(refreshToken: string): Promise<void> {
    const { store } = this.deps;
    const record = await store.refreshTokens.findByHash(sha256Hex(refreshToken));
    if (record) await store.refreshTokens.revoke(record.id, this.now().toISOString());
  }

  /** Resolves an `Authorization: Bearer` credential: an API token (`svc_...`) or a JWT access token. */
  async authenticate(credential: string): Promise<Principal> {
    return credential.startsWith(API_TOKEN_PREFIX) ? this.authenticateApiToken(credential) : this.authenticateJwt(credential);
  }

  private async authenticateJwt(credential: string): Promise<Principal> {
    const claims = await this.deps.accessTokens.verify(credential);
    // The user is read on every request so a role change or deletion takes effect at once.
    const user = await this.deps.store.users.findById(claims.sub);
    if (!user) throw unauthorized('Invalid access token');
    return userPrincipal(user);
  }

  private async authenticateApiToken(credential: string): Promise<Principal> {
    const { store } = this.deps;
    const token = await store.apiTokens.findByHash(sha256Hex(credential));
    if (!token) throw unauthorized('Invalid API token');
    const now = this.now();
    await store.apiTokens.touch(token.id, now.toISOString(), new Date(now.getTime() - TOKEN_TOUCH_INTERVAL_MS).toISOString());
    return tokenPrincipal(token);
  }

  private async startSession(user: UserRecord, familyId: string): Promise<Session> {
    const { store, accessTokens, refreshLifetimeSeconds } = this.deps;
    const now = this.now();
    const refreshToken = randomToken(32);
    await store.refreshTokens.insert({
      id: randomUUID(),
      userId: user.id,
      familyId,
      tokenHash: sha256Hex(refreshToken),
      expiresAt: new Date(now.getTime() + refreshLifetimeSeconds * 1000).toISOString(),
      usedAt: null,
      revokedAt: null,
      createdAt: now.toISOString(),
    });
    const accessToken = await accessTokens.issue(user);
    return { accessToken, refreshToken, user };
  }
}
