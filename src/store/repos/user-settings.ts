import { jsonColumn, type SqlExecutor } from '../sql.ts';

/** A user's small UI settings by key (Studio's key-value store), values as JSON. */
export class UserSettingsRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async get(userId: string, keys: readonly string[]): Promise<Map<string, unknown>> {
    const found = new Map<string, unknown>();
    if (keys.length === 0) return found;
    const rows = await this.db.all<{ key: string; value: unknown }>(
      `SELECT key, value FROM user_settings WHERE user_id = ? AND key IN (${keys.map(() => '?').join(', ')})`,
      [userId, ...keys],
    );
    for (const row of rows) found.set(row.key, jsonColumn(row.value));
    return found;
  }

  async count(userId: string): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM user_settings WHERE user_id = ?', [userId]);
    return Number(row?.n ?? 0);
  }

  async put(userId: string, key: string, value: unknown, now: string): Promise<void> {
    await this.db.run(
      `INSERT INTO user_settings (user_id, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      [userId, key, JSON.stringify(value), now],
    );
  }

  async delete(userId: string, key: string): Promise<void> {
    await this.db.run('DELETE FROM user_settings WHERE user_id = ? AND key = ?', [userId, key]);
  }
}
