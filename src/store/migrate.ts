import type { Database } from './sql.ts';
import { migrations as allMigrations, type Migration } from './migrations/index.ts';

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
 * Applies the migrations the database has not seen, each in its own transaction, under a lock so
 * that several instances starting at once apply each migration exactly once.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = allMigrations): Promise<MigrationResult> {
  return db.withMigrationLock(async () => {
    await db.exec(CREATE_TABLE);
    const done = new Set(
      (await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)),
    );
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await db.transaction(async (tx) => {
        for (const statement of splitStatements(migration.sql[db.dialect])) await tx.run(statement);
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
          migration.version,
          migration.name,
          new Date().toISOString(),
        ]);
      });
      applied.push(migration.version);
    }
    const current = Math.max(0, ...done, ...applied);
    return { applied, current };
  });
}

/** Migration scripts hold plain DDL separated by semicolons at line ends. */
function splitStatements(script: string): string[] {
  return script
    .split(/;\s*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter((statement) => statement.length > 0);
}
