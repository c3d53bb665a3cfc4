import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { AssetRecord, AssetType, JsonObject } from '../records.ts';

interface AssetRow {
  id: string;
  project_id: string;
  dataset: string;
  type: AssetType;
  filename: string | null;
  mime_type: string;
  extension: string;
  size: number;
  sha1: string;
  path: string;
  metadata: unknown;
  created_by: string | null;
  created_at: string;
}

const COLUMNS = 'id, project_id, dataset, type, filename, mime_type, extension, size, sha1, path, metadata, created_by, created_at';

function toRecord(row: AssetRow): AssetRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    dataset: row.dataset,
    type: row.type,
    filename: row.filename,
    mimeType: row.mime_type,
    extension: row.extension,
    size: Number(row.size),
    sha1: row.sha1,
    path: row.path,
    metadata: jsonColumn<JsonObject>(row.metadata),
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

export class AssetRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(asset: AssetRecord): Promise<void> {
    await this.db.run(`INSERT INTO assets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      asset.id,
      asset.projectId,
      asset.dataset,
      asset.type,
      asset.filename,
      asset.mimeType,
      asset.extension,
      asset.size,
      asset.sha1,
      asset.path,
      JSON.stringify(asset.metadata),
      asset.createdBy,
      asset.createdAt,
    ]);
  }

  async findById(id: string): Promise<AssetRecord | undefined> {
    const row = await this.db.get<AssetRow>(`SELECT ${COLUMNS} FROM assets WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  /** The asset of a dataset with this content (SHA-1), if one was uploaded. */
  async findBySha1(projectId: string, dataset: string, sha1: string): Promise<AssetRecord | undefined> {
    const row = await this.db.get<AssetRow>(`SELECT ${COLUMNS} FROM assets WHERE project_id = ? AND dataset = ? AND sha1 = ? ORDER BY created_at LIMIT 1`, [
      projectId,
      dataset,
      sha1,
    ]);
    return row && toRecord(row);
  }

  async list(projectId: string, dataset: string, type: AssetType | undefined, limit: number, offset: number): Promise<AssetRecord[]> {
    const rows = await this.db.all<AssetRow>(
      `SELECT ${COLUMNS} FROM assets WHERE project_id = ? AND dataset = ? AND (CAST(? AS TEXT) IS NULL OR type = ?)
       ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
      [projectId, dataset, type ?? null, type ?? null, limit, offset],
    );
    return rows.map(toRecord);
  }

  async count(projectId: string, dataset: string, type: AssetType | undefined): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM assets WHERE project_id = ? AND dataset = ? AND (CAST(? AS TEXT) IS NULL OR type = ?)',
      [projectId, dataset, type ?? null, type ?? null],
    );
    return Number(row?.n ?? 0);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM assets WHERE id = ?', [id])) === 1;
  }
}
