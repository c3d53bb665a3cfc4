import type { SqlExecutor } from '../sql.ts';
import type { SessionRecord } from '../records.ts';

interface SessionRow {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const COLUMNS = 'id, user_id, token_hash, created_at, expires_at, last_used_at, revoked_at';

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Sign-in sessions of the login page (Studio's): looked up by the hash of their token. */
export class SessionRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(session: SessionRecord): Promise<void> {
    await this.db.run(`INSERT INTO sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      session.id,
      session.userId,
      session.tokenHash,
      session.createdAt,
      session.expiresAt,
      session.lastUsedAt,
      session.revokedAt,
    ]);
  }

  /** The live session with this token hash: not revoked, not expired at `now`. */
  async findLive(tokenHash: string, now: string): Promise<SessionRecord | undefined> {
    const row = await this.db.get<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?`, [tokenHash, now]);
    return row && toRecord(row);
  }

  /** Records a use, at most once per `staleBefore` interval (a write per request would cost every request). */
  async touch(id: string, now: string, staleBefore: string): Promise<void> {
    await this.db.run('UPDATE sessions SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [now, id, staleBefore]);
  }

  async revokeByHash(tokenHash: string, now: string): Promise<boolean> {
    return (await this.db.run('UPDATE sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL', [now, tokenHash])) > 0;
  }

  async revokeAllOf(userId: string, now: string): Promise<void> {
    await this.db.run('UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [now, userId]);
  }
}
