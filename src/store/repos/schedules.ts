import type { SqlExecutor } from '../sql.ts';
import type { ScheduleRecord } from '../records.ts';

interface ScheduleRow {
  project_id: string;
  dataset: string;
  document_id: string;
  scheduled_at: string;
  created_by: string | null;
  created_at: string;
}

const COLUMNS = 'project_id, dataset, document_id, scheduled_at, created_by, created_at';

function toRecord(row: ScheduleRow): ScheduleRecord {
  return {
    projectId: row.project_id,
    dataset: row.dataset,
    documentId: row.document_id,
    scheduledAt: row.scheduled_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

/** Scheduled publishes, stored beside the documents (not inside their content). */
export class ScheduleRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async set(schedule: ScheduleRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO schedules (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, dataset, document_id) DO UPDATE SET
         scheduled_at = excluded.scheduled_at, created_by = excluded.created_by, created_at = excluded.created_at`,
      [schedule.projectId, schedule.dataset, schedule.documentId, schedule.scheduledAt, schedule.createdBy, schedule.createdAt],
    );
  }

  async get(projectId: string, dataset: string, documentId: string): Promise<ScheduleRecord | undefined> {
    const row = await this.db.get<ScheduleRow>(
      `SELECT ${COLUMNS} FROM schedules WHERE project_id = ? AND dataset = ? AND document_id = ?`,
      [projectId, dataset, documentId],
    );
    return row && toRecord(row);
  }

  async clear(projectId: string, dataset: string, documentId: string): Promise<boolean> {
    const changed = await this.db.run('DELETE FROM schedules WHERE project_id = ? AND dataset = ? AND document_id = ?', [
      projectId,
      dataset,
      documentId,
    ]);
    return changed === 1;
  }

  /**
   * Due schedules in firing order (time, then key), the first `limit` after `after`, without
   * locking them: the scheduler walks past one it cannot fire yet instead of reading it again.
   */
  async due(now: string, after: ScheduleRecord | undefined, limit: number): Promise<ScheduleRecord[]> {
    const past = after === undefined ? '' : ' AND (scheduled_at, project_id, dataset, document_id) > (?, ?, ?, ?)';
    const keys = after === undefined ? [] : [after.scheduledAt, after.projectId, after.dataset, after.documentId];
    const rows = await this.db.all<ScheduleRow>(
      `SELECT ${COLUMNS} FROM schedules WHERE scheduled_at <= ?${past}
       ORDER BY scheduled_at, project_id, dataset, document_id LIMIT ?`,
      [now, ...keys, limit],
    );
    return rows.map(toRecord);
  }

  /**
   * Claims one schedule, if still due, inside the caller's transaction. On PostgreSQL the row stays
   * locked until commit and other instances skip it, so each schedule fires once.
   */
  async claim(projectId: string, dataset: string, documentId: string, now: string): Promise<ScheduleRecord | undefined> {
    const row = await this.db.get<ScheduleRow>(
      `SELECT ${COLUMNS} FROM schedules WHERE project_id = ? AND dataset = ? AND document_id = ? AND scheduled_at <= ?${this.db.claimClause}`,
      [projectId, dataset, documentId, now],
    );
    return row && toRecord(row);
  }
}
