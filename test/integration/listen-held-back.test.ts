import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.ts';
import { createProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { createTestDatabase, testEngine, type TestDatabase } from '../helpers/engine.ts';
import { listenUrl, openListenSocket } from '../helpers/listen.ts';

/** A transaction of the database kept open until `end` (PostgreSQL: with a transaction id, as a writer has). */
interface HeldTransaction {
  /** PostgreSQL: how many committed changes wait behind it for readers of the log. */
  changesBehind(): Promise<number>;
  end(): Promise<void>;
}

async function holdTransaction(db: TestDatabase): Promise<HeldTransaction> {
  if (db.engine === 'sqlite') {
    // SQLite commits one writer at a time in `seq` order: a reader's open transaction holds nothing back.
    const connection = new BetterSqlite3(db.databaseUrl.slice('sqlite:'.length));
    connection.exec('BEGIN');
    connection.prepare('SELECT COUNT(*) FROM document_changes').get();
    return {
      changesBehind: async () => 0,
      end: async () => {
        connection.exec('COMMIT');
        connection.close();
      },
    };
  }
  // Any database of the server would do: the oldest running transaction is the server's.
  const holder = new pg.Client({ connectionString: db.databaseUrl });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT pg_current_xact_id()');
  return {
    changesBehind: async () => {
      const looker = new pg.Client({ connectionString: db.databaseUrl, options: `-c search_path=${db.schema}` });
      await looker.connect();
      try {
        const { rows } = await looker.query<{ count: string }>(
          'SELECT COUNT(*) AS count FROM document_changes WHERE commit_order >= pg_snapshot_xmin(pg_current_snapshot())',
        );
        return Number(rows[0]!.count);
      } finally {
        await looker.end();
      }
    },
    end: async () => {
      await holder.query('COMMIT');
      await holder.end();
    },
  };
}

describe(`listeners while another transaction runs (${testEngine})`, () => {
  it('get a change committed behind a transaction still running once it ends, without waiting for the next poll', async () => {
    const db = createTestDatabase();
    const app = await startTestApp({}, { db });
    try {
      // Polling effectively off: the commit signal, and the feed's own look again, are all that can wake it.
      app.services.realtime.settings.pollIntervalMs = 600_000;
      const admin = await app.login();
      const project = await createProject(app, admin);
      const socket = await openListenSocket(listenUrl(app, 'production', `?project=${project.slug}`), { authorization: `Bearer ${admin}` });
      await socket.subscribe({ query: '*[_type == "held"]', includeResult: true });

      const held = await holdTransaction(db);
      let ended = false;
      try {
        const created = ok(await dataClient(app, admin, project.slug).mutate([{ create: { _id: 'held-1', _type: 'held' } }]));
        if (db.engine === 'postgres') expect(await held.changesBehind()).toBeGreaterThan(0);
        // Long enough for the commit's signal to have been spent on a read that could not see the change.
        await sleep(300);
        await held.end();
        ended = true;
        expect(await socket.next('mutation')).toMatchObject({ transactionId: created.transactionId, transition: 'appear', result: { _id: 'held-1' } });
      } finally {
        if (!ended) await held.end();
        await socket.close();
      }
    } finally {
      await app.close();
    }
  });
});
