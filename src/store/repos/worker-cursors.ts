import type { SqlExecutor } from '../sql.ts';
import { LOG_START, type LogPosition } from '../commit-order.ts';

/** How far a consumer has read the outbox. */
export class WorkerCursorRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /**
   * The cursor's position in a log, locked until the caller's transaction ends (PostgreSQL), so
   * one instance at a time advances it. A new cursor starts at the beginning of the log.
   */
  async claim(name: string): Promise<LogPosition> {
    await this.db.run('INSERT INTO worker_cursors (name, commit_order, position) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [
      name,
      LOG_START.order,
      LOG_START.seq,
    ]);
    return this.read(name, this.db.lockClause);
  }

  /** The cursor's position as last committed, without locking it (the start of the log if it has none). */
  position(name: string): Promise<LogPosition> {
    return this.read(name, '');
  }

  private async read(name: string, lockClause: string): Promise<LogPosition> {
    const row = await this.db.get<{ commit_order: string; position: number }>(`SELECT commit_order, position FROM worker_cursors WHERE name = ?${lockClause}`, [name]);
    return row ? { order: row.commit_order, seq: Number(row.position) } : LOG_START;
  }

  async advance(name: string, position: LogPosition): Promise<void> {
    await this.db.run('UPDATE worker_cursors SET commit_order = ?, position = ? WHERE name = ?', [position.order, position.seq, name]);
  }
}
