import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { ApiTokenRecord, TokenPermission } from '../records.ts';

interface ApiTokenRow {
  id: string;
  project_id: string;
  name: string;
  permissions: unknown;
  dataset: string | null;
  token_hash: string;
  created_by: string | null;
  last_used_at: string | null;
  created_at: string;
}

const COLUMNS = 'id, project_id, name, permissions, dataset, token_hash, created_by, last_used_at, created_at';

function toRecord(row: ApiTokenRow): ApiTokenRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    permissions: jsonColumn<TokenPermission[]>(row.permissions),
    dataset: row.dataset,
    tokenHash: row.token_hash,
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

export class ApiTokenRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(token: ApiTokenRecord): Promise<void> {
    await this.db.run(`INSERT INTO api_tokens (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      token.id,
      token.projectId,
      token.name,
      JSON.stringify(token.permissions),
      token.dataset,
      token.tokenHash,
      token.createdBy,
      token.lastUsedAt,
      token.createdAt,
    ]);
  }

  async findByHash(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    const row = await this.db.get<ApiTokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ?`, [tokenHash]);
    return row && toRecord(row);
  }

  async findById(id: string): Promise<ApiTokenRecord | undefined> {
    const row = await this.db.get<ApiTokenRow>(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  async listByProject(projectId: string): Promise<ApiTokenRecord[]> {
    const rows = await this.db.all<ApiTokenRow>(
      `SELECT ${COLUMNS} FROM api_tokens WHERE project_id = ? ORDER BY created_at, id`,
      [projectId],
    );
    return rows.map(toRecord);
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM api_tokens WHERE project_id = ? AND id = ?', [projectId, id])) === 1;
  }

  /** Records use at most once per `staleBefore` window, so hot tokens do not write on every request. */
  async touch(id: string, now: string, staleBefore: string): Promise<void> {
    await this.db.run('UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [
      now,
      id,
      staleBefore,
    ]);
  }
}
