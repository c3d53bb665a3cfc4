import type { SqlExecutor } from '../sql.ts';
import type { CorsOriginRecord } from '../records.ts';

interface CorsOriginRow {
  id: string;
  project_id: string;
  origin: string;
  allow_credentials: number;
  created_at: string;
}

const COLUMNS = 'id, project_id, origin, allow_credentials, created_at';

function toRecord(row: CorsOriginRow): CorsOriginRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    origin: row.origin,
    allowCredentials: Number(row.allow_credentials) === 1,
    createdAt: row.created_at,
  };
}

/** The origins a project lets browsers call the API from. */
export class CorsOriginRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  /**
   * A project's origins, held in a transaction until it ends: another transaction that holds them
   * waits, so a limit checked on them still holds at commit.
   */
  async listHeld(projectId: string): Promise<CorsOriginRecord[]> {
    await this.db.lock([`cors-origins:${projectId}`]);
    return this.listByProject(projectId);
  }

  async insert(entry: CorsOriginRecord): Promise<void> {
    await this.db.run(`INSERT INTO cors_origins (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`, [
      entry.id,
      entry.projectId,
      entry.origin,
      entry.allowCredentials ? 1 : 0,
      entry.createdAt,
    ]);
  }

  async listByProject(projectId: string): Promise<CorsOriginRecord[]> {
    const rows = await this.db.all<CorsOriginRow>(`SELECT ${COLUMNS} FROM cors_origins WHERE project_id = ? ORDER BY created_at, id`, [projectId]);
    return rows.map(toRecord);
  }

  /** Every project's entry for one origin. */
  async findByOrigin(origin: string): Promise<CorsOriginRecord[]> {
    const rows = await this.db.all<CorsOriginRow>(`SELECT ${COLUMNS} FROM cors_origins WHERE origin = ?`, [origin]);
    return rows.map(toRecord);
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM cors_origins WHERE project_id = ? AND id = ?', [projectId, id])) > 0;
  }
}
