import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { DeliveryRecord, DeliveryStatus, JsonObject } from '../records.ts';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  outbox_seq: number;
  event: string;
  payload: unknown;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Finished deliveries one trim deletes at most: a trim follows every batch of outcomes, each of a
 * few dozen, and a small limit keeps PostgreSQL on the index rather than a scan of the table.
 */
const TRIMMED_AT_ONCE = 1000;

const COLUMNS = 'id, webhook_id, outbox_seq, event, payload, status, attempts, next_attempt_at, status_code, response_body, error, created_at, updated_at';

function toRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    outboxSeq: Number(row.outbox_seq),
    event: row.event,
    payload: jsonColumn<JsonObject>(row.payload),
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    responseBody: row.response_body,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
}

/** Webhook deliveries: durable jobs and, once finished, the delivery log. */
export class DeliveryRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /** Inserts a pending delivery unless this webhook already has one for this event. */
  async enqueue(delivery: DeliveryRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO webhook_deliveries (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (webhook_id, outbox_seq) DO NOTHING`,
      [
        delivery.id,
        delivery.webhookId,
        delivery.outboxSeq,
        delivery.event,
        JSON.stringify(delivery.payload),
        delivery.status,
        delivery.attempts,
        delivery.nextAttemptAt,
        delivery.statusCode,
        delivery.responseBody,
        delivery.error,
        delivery.createdAt,
        delivery.updatedAt,
      ],
    );
  }

  /**
   * Claims due pending deliveries inside the caller's transaction and leases them until
   * `leaseUntil`: if the worker dies, they become due again then (same delivery id). On PostgreSQL
   * rows another worker holds are skipped.
   */
  async claimDue(now: string, leaseUntil: string, limit: number, busyWebhooks: readonly string[]): Promise<DeliveryRecord[]> {
    const exclude = busyWebhooks.length > 0 ? `AND webhook_id NOT IN (${busyWebhooks.map(() => '?').join(', ')})` : '';
    const rows = await this.db.all<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ? ${exclude}
       ORDER BY next_attempt_at LIMIT ?${this.db.claimClause}`,
      [now, ...busyWebhooks, limit],
    );
    if (rows.length > 0) {
      await this.db.run(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, updated_at = ? WHERE id IN (${rows.map(() => '?').join(', ')})`,
        [leaseUntil, now, ...rows.map((row) => row.id)],
      );
    }
    return rows.map(toRecord);
  }

  async recordAttempt(id: string, outcome: AttemptOutcome, now: string): Promise<void> {
    await this.db.run(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, status_code = ?, response_body = ?, error = ?, updated_at = ?
       WHERE id = ?`,
      [outcome.status, outcome.attempts, outcome.nextAttemptAt, outcome.statusCode, outcome.responseBody, outcome.error, now, id],
    );
  }

  /** Newest first. */
  async recent(webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.db.all<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, outbox_seq DESC LIMIT ?`,
      [webhookId, limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Keeps the newest `keep` finished deliveries of a webhook; pending ones are never dropped. Reads
   * the finished ones only (an index of their own), newest first: `keep` and those past it.
   */
  async trim(webhookId: string, keep: number): Promise<void> {
    await this.db.run(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND status <> 'pending'
         ORDER BY created_at DESC, outbox_seq DESC LIMIT ${TRIMMED_AT_ONCE} OFFSET ?
       )`,
      [webhookId, keep],
    );
  }

  /** Drops pending deliveries of a webhook that was deactivated. */
  async cancelPending(webhookId: string, now: string): Promise<void> {
    await this.db.run(
      `UPDATE webhook_deliveries SET status = 'failed', error = 'webhook deactivated', updated_at = ? WHERE webhook_id = ? AND status = 'pending'`,
      [now, webhookId],
    );
  }
}
