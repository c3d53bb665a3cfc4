import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { JsonObject, OutboxEventRecord, StoredOutboxEvent } from '../records.ts';
import { positionOf, readAfter, type LogPosition } from '../commit-order.ts';
import { sqlDialect } from '../dialects/dialect.ts';
import { raw, sql } from '../sql-fragment.ts';

const ROWS_PER_STATEMENT = 500;

interface OutboxRow {
  seq: number;
  commit_order: string;
  project_id: string;
  dataset: string;
  event: string;
  document_id: string;
  document_type: string | null;
  transaction_id: string;
  payload: unknown;
  created_at: string;
}

/**
 * The transactional outbox: events are written in the same transaction as the change they
 * describe, and read back in commit order by their consumers.
 */
export class OutboxRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async append(event: OutboxEventRecord): Promise<void> {
    await this.appendMany([event]);
  }

  /** Appends events in order (their sequence numbers follow the order given). */
  async appendMany(events: readonly OutboxEventRecord[]): Promise<void> {
    for (let start = 0; start < events.length; start += ROWS_PER_STATEMENT) {
      const chunk = events.slice(start, start + ROWS_PER_STATEMENT);
      await this.db.write(
        `INSERT INTO outbox (project_id, dataset, event, document_id, document_type, transaction_id, payload, created_at)
         VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        chunk.flatMap((event) => [
          event.projectId,
          event.dataset,
          event.event,
          event.documentId,
          event.documentType,
          event.transactionId,
          JSON.stringify(event.payload),
          event.createdAt,
        ]),
      );
    }
  }

  /**
   * Deletes up to `limit` events at or before `position` (where their one consumer has read) that
   * were written before `createdAt`, oldest first; resolves to how many.
   */
  async prune(position: LogPosition, createdAt: string, limit: number): Promise<number> {
    const dialect = sqlDialect(this.db.dialect);
    return this.db.run(
      sql`DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE ${dialect.logAtOrBefore(position)} AND created_at < ${createdAt} ORDER BY ${raw(dialect.logOrder)} LIMIT ${limit})`,
    );
  }

  /** Committed events after `position`, in commit order (see commit-order.ts). */
  async after(position: LogPosition, limit: number): Promise<StoredOutboxEvent[]> {
    const read = readAfter(this.db.dialect, 'outbox', 'project_id, dataset, event, document_id, document_type, transaction_id, payload, created_at', position, limit);
    const rows = await this.db.all<OutboxRow>(read);
    return rows.map((row) => ({
      position: positionOf(row),
      projectId: row.project_id,
      dataset: row.dataset,
      event: row.event,
      documentId: row.document_id,
      documentType: row.document_type,
      transactionId: row.transaction_id,
      payload: jsonColumn<JsonObject>(row.payload),
      createdAt: row.created_at,
    }));
  }
}
