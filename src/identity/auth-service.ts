import { randomUUID } from 'node:crypto';
import { unauthorized } from '../errors.ts';
import type { Store, UserRecord } from '../store/index.ts';
import { tokenPrincipal, userPrincipal, type Principal } from '../access/principal.ts';
import type { AccessTokens } from './access-tokens.ts';
import type { PasswordHasher } from './passwords.ts';
import { randomToken, sha256Hex } from './secrets.ts';
import { normalizeEmail } from './safe-user.ts';
import type { RecentReads } from '../access/recent-reads.ts';

export const API_TOKEN_PREFIX = 'svc_';
/** Sessions of the login page (Sanity Studio's sign-in): long-lived, revocable bearer tokens. */
export const SESSION_TOKEN_PREFIX = 'sess_';

/** A login-page session: its token is shown once, to the browser that signed in. */
export interface BrowserSession {
  token: string;
  expiresAt: string;
  user: UserRecord;
}

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
  /** How long a login-page session lasts (SESSION_EXPIRES_IN). */
  sessionLifetimeSeconds: number;
  /** The signed-in users read for requests, shared with UserService, which forgets them when it writes. */
  recentUsers: RecentReads<UserRecord>;
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
    return this.startSession(await this.verifyCredentials(email, password), randomUUID());
  }

  /**
   * Signs in through the login page: a session token that lasts SESSION_EXPIRES_IN (Studio cannot
   * refresh a 15-minute access token), stored as its hash, ended by logout or a password change.
   * It acts as the user, whose role is read on every request.
   */
  async startBrowserSession(email: string, password: string): Promise<BrowserSession> {
    const user = await this.verifyCredentials(email, password);
    const now = this.now();
    const token = `${SESSION_TOKEN_PREFIX}${randomToken(32)}`;
    const expiresAt = new Date(now.getTime() + this.deps.sessionLifetimeSeconds * 1000).toISOString();
    await this.deps.store.sessions.insert({
      id: randomUUID(),
      userId: user.id,
      tokenHash: sha256Hex(token),
      createdAt: now.toISOString(),
      expiresAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    return { token, expiresAt, user };
  }

  /** Ends a login-page session; an unknown or ended one is ignored, so logout reveals nothing. */
  async endBrowserSession(token: string): Promise<void> {
    await this.deps.store.sessions.revokeByHash(sha256Hex(token), this.now().toISOString());
  }

  private async verifyCredentials(email: string, password: string): Promise<UserRecord> {
    const { store, passwords } = this.deps;
    const user = await store.users.findByEmail(normalizeEmail(email));
    const valid = user ? await passwords.verify(password, user.passwordHash) : await passwords.verifyAgainstNothing(password);
    if (!user || !valid) throw unauthorized('Invalid email or password');
    return user;
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

  /** Resolves an `Authorization: Bearer` credential: an API token (`svc_...`), a login-page session (`sess_...`) or a JWT access token. */
  async authenticate(credential: string): Promise<Principal> {
    if (credential.startsWith(API_TOKEN_PREFIX)) return this.authenticateApiToken(credential);
    if (credential.startsWith(SESSION_TOKEN_PREFIX)) return this.authenticateSession(credential);
    return this.authenticateJwt(credential);
  }

  private async authenticateSession(credential: string): Promise<Principal> {
    const { store } = this.deps;
    const now = this.now();
    const session = await store.sessions.findLive(sha256Hex(credential), now.toISOString());
    // The user is read for requests, as for access tokens: a role change applies within a second.
    const user = session && (await this.currentUser(session.userId));
    if (!session || !user) throw unauthorized('Invalid or expired session: sign in again');
    await store.sessions.touch(session.id, now.toISOString(), new Date(now.getTime() - TOKEN_TOUCH_INTERVAL_MS).toISOString());
    return userPrincipal(user);
  }

  private async authenticateJwt(credential: string): Promise<Principal> {
    const claims = await this.deps.accessTokens.verify(credential);
    // The user is read for requests, so a role change or deletion takes effect within a second.
    const user = await this.currentUser(claims.sub);
    if (!user) throw unauthorized('Invalid access token');
    return userPrincipal(user);
  }

  /** The user as stored at most RECENT_READ_MS ago (at once after a change made on this instance). */
  private currentUser(id: string): Promise<UserRecord | undefined> {
    return this.deps.recentUsers.get(id, () => this.deps.store.users.findById(id));
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
