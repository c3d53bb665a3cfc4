import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { Locales, ProjectRecord } from '../records.ts';

interface ProjectRow {
  id: string;
  name: string;
  slug: string;
  datasets: unknown;
  locales: unknown;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, name, slug, datasets, locales, created_at, updated_at';

function toRecord(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    datasets: jsonColumn<string[]>(row.datasets),
    locales: row.locales === null ? null : jsonColumn<Locales>(row.locales),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ProjectChanges = Partial<Pick<ProjectRecord, 'name' | 'datasets' | 'locales'>>;

export class ProjectRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(project: ProjectRecord): Promise<void> {
    await this.db.run(`INSERT INTO projects (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      project.id,
      project.name,
      project.slug,
      JSON.stringify(project.datasets),
      project.locales === null ? null : JSON.stringify(project.locales),
      project.createdAt,
      project.updatedAt,
    ]);
  }

  async findBySlug(slug: string): Promise<ProjectRecord | undefined> {
    const row = await this.db.get<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE slug = ?`, [slug]);
    return row && toRecord(row);
  }

  async findById(id: string): Promise<ProjectRecord | undefined> {
    const row = await this.db.get<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  async list(): Promise<ProjectRecord[]> {
    return (await this.db.all<ProjectRow>(`SELECT ${COLUMNS} FROM projects ORDER BY created_at, slug`)).map(toRecord);
  }

  async update(id: string, changes: ProjectChanges, updatedAt: string): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (changes.name !== undefined) {
      sets.push('name = ?');
      params.push(changes.name);
    }
    if (changes.datasets !== undefined) {
      sets.push('datasets = ?');
      params.push(JSON.stringify(changes.datasets));
    }
    if (changes.locales !== undefined) {
      sets.push('locales = ?');
      params.push(changes.locales === null ? null : JSON.stringify(changes.locales));
    }
    await this.db.run(`UPDATE projects SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`, [...params, updatedAt, id]);
  }
}
