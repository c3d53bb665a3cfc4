import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import type { TestApp } from './test-app.ts';

/** Makes the database itself refuse to store the document `id` (a real storage failure), then undoes it. */
export async function withFailingInsert(app: TestApp, id: string, work: () => Promise<void>): Promise<void> {
  if (app.db.engine === 'sqlite') {
    const db = new BetterSqlite3(join(app.db.dataDir, 'content.db'));
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TRIGGER refuse_doc BEFORE INSERT ON documents WHEN NEW.id = '${id}' BEGIN SELECT RAISE(ABORT, 'storage refused'); END`);
    try {
      await work();
    } finally {
      db.exec('DROP TRIGGER refuse_doc');
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: app.db.databaseUrl });
  await client.connect();
  const schema = app.db.schema!;
  await client.query(`CREATE FUNCTION ${schema}.refuse_doc() RETURNS trigger AS $$ BEGIN
    IF NEW.id = '${id}' THEN RAISE EXCEPTION 'storage refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
  await client.query(`CREATE TRIGGER refuse_doc BEFORE INSERT ON ${schema}.documents FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse_doc()`);
  try {
    await work();
  } finally {
    await client.query(`DROP TRIGGER refuse_doc ON ${schema}.documents`);
    await client.query(`DROP FUNCTION ${schema}.refuse_doc()`);
    await client.end();
  }
}
