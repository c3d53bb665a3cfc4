import type { SqlExecutor } from '../sql.ts';
import type { RefreshTokenRecord } from '../records.ts';

interface RefreshTokenRow {
  id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

const COLUMNS = 'id, user_id, family_id, token_hash, expires_at, used_at, revoked_at, created_at';

function toRecord(row: RefreshTokenRow): RefreshTokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    familyId: row.family_id,
    tokenHash: row.token_hash,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
  };
}

export class RefreshTokenRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(token: RefreshTokenRecord): Promise<void> {
    await this.db.run(`INSERT INTO refresh_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
      token.id,
      token.userId,
      token.familyId,
      token.tokenHash,
      token.expiresAt,
      token.usedAt,
      token.revokedAt,
      token.createdAt,
    ]);
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const row = await this.db.get<RefreshTokenRow>(`SELECT ${COLUMNS} FROM refresh_tokens WHERE token_hash = ?`, [tokenHash]);
    return row && toRecord(row);
  }

  /**
   * Marks a live token used. The conditional UPDATE is the rotation's guard: of two concurrent
   * refreshes with the same token (even on different instances) exactly one sees a changed row.
   */
  async consume(id: string, now: string): Promise<boolean> {
    const changed = await this.db.run(
      'UPDATE refresh_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?',
      [now, id, now],
    );
    return changed === 1;
  }

  async revoke(id: string, now: string): Promise<void> {
    await this.db.run('UPDATE refresh_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [now, id]);
  }

  async revokeFamily(familyId: string, now: string): Promise<void> {
    await this.db.run('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL', [now, familyId]);
  }

  async revokeAllForUser(userId: string, now: string): Promise<void> {
    await this.db.run('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL', [now, userId]);
  }

  /** Drops rows that can no longer be used, so the table does not grow without bound. */
  async deleteExpired(now: string): Promise<number> {
    return this.db.run('DELETE FROM refresh_tokens WHERE expires_at <= ?', [now]);
  }
}
