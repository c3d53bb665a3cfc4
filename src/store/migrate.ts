import type { Database } from './sql.ts';
import { COLUMN_TYPES, migrations as allMigrations, type Migration } from './migrations/index.ts';

export interface MigrationResult {
  applied: number[];
  current: number;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/**
 * Applies the migrations the database has not seen, in one transaction that first takes the
 * migration lock, so several instances starting at once apply each migration exactly once and a
 * failed migration leaves the schema as it was (both engines have transactional DDL).
 */
export async function migrate(db: Database, migrations: readonly Migration[] = allMigrations): Promise<MigrationResult> {
  return db.transaction(async (tx) => {
    if (db.migrationLockSql) await tx.get(db.migrationLockSql);
    await tx.run(CREATE_TABLE);
    const done = new Set(
      (await tx.all<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)),
    );
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of splitStatements(migration.sql(COLUMN_TYPES[db.dialect], db.dialect))) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      applied.push(migration.version);
    }
    return { applied, current: Math.max(0, ...done, ...applied) };
  });
}

/** Migration scripts hold plain DDL separated by semicolons at line ends. */
function splitStatements(script: string): string[] {
  return script
    .split(/;\s*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter((statement) => statement.length > 0);
}
