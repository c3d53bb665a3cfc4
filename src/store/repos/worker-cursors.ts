import type { SqlExecutor } from '../sql.ts';

/** How far a consumer has read the outbox. */
export class WorkerCursorRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /**
   * The cursor's position, locked until the caller's transaction ends (PostgreSQL), so one
   * instance at a time advances it. A new cursor starts at `initial`.
   */
  async claim(name: string, initial: number): Promise<number> {
    await this.db.run('INSERT INTO worker_cursors (name, position) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [name, initial]);
    const row = await this.db.get<{ position: number }>(
      `SELECT position FROM worker_cursors WHERE name = ?${this.db.lockClause}`,
      [name],
    );
    return Number(row?.position ?? initial);
  }

  async advance(name: string, position: number): Promise<void> {
    await this.db.run('UPDATE worker_cursors SET position = ? WHERE name = ?', [position, name]);
  }
}
