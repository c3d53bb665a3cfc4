import { jsonColumn, type SqlExecutor } from '../sql.ts';
import type { ProjectAccessEntry, Role, UserRecord } from '../records.ts';

interface UserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  project_access: unknown;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, email, name, role, password_hash, project_access, created_at, updated_at';

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    passwordHash: row.password_hash,
    projectAccess: row.project_access === null ? null : jsonColumn<ProjectAccessEntry[]>(row.project_access),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type UserChanges = Partial<Pick<UserRecord, 'email' | 'name' | 'role' | 'passwordHash' | 'projectAccess'>>;

export class UserRepository {
  private readonly db: SqlExecutor;

  constructor(db: SqlExecutor) {
    this.db = db;
  }

  async insert(user: UserRecord): Promise<void> {
    await this.db.run(`INSERT INTO users (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
      user.id,
      user.email,
      user.name,
      user.role,
      user.passwordHash,
      user.projectAccess === null ? null : JSON.stringify(user.projectAccess),
      user.createdAt,
      user.updatedAt,
    ]);
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const row = await this.db.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.db.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = ?`, [email]);
    return row && toRecord(row);
  }

  async list(): Promise<UserRecord[]> {
    return (await this.db.all<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, id`)).map(toRecord);
  }

  /** The ids of the admins, held in a transaction until it ends (a demotion checks that another admin stays). */
  async holdAdmins(): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(`SELECT id FROM users WHERE role = 'admin'${this.db.lockClause}`);
    return rows.map((row) => row.id);
  }

  async count(): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users');
    return Number(row?.n ?? 0);
  }

  async update(id: string, changes: UserChanges, updatedAt: string): Promise<void> {
    const columns: Record<keyof UserChanges, string> = {
      email: 'email',
      name: 'name',
      role: 'role',
      passwordHash: 'password_hash',
      projectAccess: 'project_access',
    };
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, value] of Object.entries(changes) as [keyof UserChanges, unknown][]) {
      if (value === undefined) continue;
      sets.push(`${columns[key]} = ?`);
      params.push(key === 'projectAccess' && value !== null ? JSON.stringify(value) : value);
    }
    await this.db.run(`UPDATE users SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`, [...params, updatedAt, id]);
  }
}
