import { boolColumn, jsonColumn, type SqlExecutor } from '../sql.ts';
import type { WebhookRecord } from '../records.ts';

interface WebhookRow {
  id: string;
  project_id: string;
  name: string;
  url: string;
  events: unknown;
  dataset: string;
  active: number;
  secret: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, project_id, name, url, events, dataset, active, secret, created_at, updated_at';

function toRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    url: row.url,
    events: jsonColumn<string[]>(row.events),
    dataset: row.dataset,
    active: boolColumn(Number(row.active)),
    secret: row.secret,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type WebhookChanges = Partial<Pick<WebhookRecord, 'name' | 'url' | 'events' | 'dataset' | 'active' | 'secret'>>;

export class WebhookRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(webhook: WebhookRecord): Promise<void> {
    await this.db.run(`INSERT INTO webhooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      webhook.id,
      webhook.projectId,
      webhook.name,
      webhook.url,
      JSON.stringify(webhook.events),
      webhook.dataset,
      webhook.active ? 1 : 0,
      webhook.secret,
      webhook.createdAt,
      webhook.updatedAt,
    ]);
  }

  async find(projectId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db.get<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE project_id = ? AND id = ?`, [projectId, id]);
    return row && toRecord(row);
  }

  async findById(id: string): Promise<WebhookRecord | undefined> {
    const row = await this.db.get<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  async listByProject(projectId: string): Promise<WebhookRecord[]> {
    return (await this.db.all<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE project_id = ? ORDER BY created_at, id`, [projectId])).map(toRecord);
  }

  async countByProject(projectId: string): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhooks WHERE project_id = ?', [projectId]);
    return Number(row?.n ?? 0);
  }

  /** Active webhooks of a dataset; the caller filters by event. */
  async activeFor(projectId: string, dataset: string): Promise<WebhookRecord[]> {
    const rows = await this.db.all<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE project_id = ? AND dataset = ? AND active = 1`, [
      projectId,
      dataset,
    ]);
    return rows.map(toRecord);
  }

  async update(id: string, changes: WebhookChanges, updatedAt: string): Promise<void> {
    const columns: Record<keyof WebhookChanges, (value: unknown) => unknown> = {
      name: (v) => v,
      url: (v) => v,
      events: (v) => JSON.stringify(v),
      dataset: (v) => v,
      active: (v) => (v ? 1 : 0),
      secret: (v) => v,
    };
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, value] of Object.entries(changes) as [keyof WebhookChanges, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${key} = ?`);
      params.push(columns[key](value));
    }
    await this.db.run(`UPDATE webhooks SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`, [...params, updatedAt, id]);
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    // Deliveries go with it (ON DELETE CASCADE; SQLite enforces it with foreign_keys on).
    return (await this.db.run('DELETE FROM webhooks WHERE project_id = ? AND id = ?', [projectId, id])) === 1;
  }
}
