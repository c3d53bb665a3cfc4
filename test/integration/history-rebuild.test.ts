import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine, type TestDatabase } from '../helpers/engine.ts';
import { fetchTransactions, replayBackwards, STUDIO_HISTORY_QUERY, withoutRev, type TransactionLine, type Versions } from '../helpers/history.ts';
import { LOG_START } from '../../src/store/commit-order.ts';

type Doc = Record<string, unknown>;

/** Runs statements on the test database directly, as an operator would. */
async function runSql(db: TestDatabase, statements: string[]): Promise<void> {
  if (db.engine === 'sqlite') {
    const sqlite = new BetterSqlite3(db.databaseUrl.slice('sqlite:'.length));
    try {
      for (const statement of statements) sqlite.exec(statement);
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: db.databaseUrl, options: `-c search_path=${db.schema}` });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * History written before migration 011, whose change log was pruned after 24 hours: the migration
 * rebuilds it from the revisions, so that Studio's timeline aligns and its reverts replay.
 */
describe(`history written before the change log was kept (${testEngine})`, () => {
  let app: TestApp;
  let admin: string;
  let project: TestProject;
  let data: ReturnType<typeof dataClient>;
  /** Studio's history of each document before the log was pruned. */
  const original = new Map<string, TransactionLine[]>();
  const names = ['a', 'b', 'c', 'd', 'e'];

  const mutate = async (mutations: unknown[]) => ok(await data.mutate(mutations)).transactionId;
  const history = async (id: string) =>
    (await fetchTransactions(app, admin, `/api/p/${project.slug}/v2025-02-19/data/history/production/transactions/${id},drafts.${id}?${STUDIO_HISTORY_QUERY}`)).lines;
  async function versionsOf(id: string): Promise<Versions> {
    const { documents } = ok(await data.doc<{ documents: Doc[] }>(`${id},drafts.${id}`));
    return { [id]: withoutRev(documents.find((d) => d._id === id)), [`drafts.${id}`]: withoutRev(documents.find((d) => d._id === `drafts.${id}`)) };
  }

  let kept: string;

  beforeAll(async () => {
    const first = await startTestApp();
    app = first;
    admin = await app.login();
    project = await createProject(app, admin);
    data = dataClient(app, admin, project.slug);
    // a: edited, published, edited, published again by Studio's mutations, edited.
    await mutate([{ createIfNotExists: { _id: 'drafts.a', _type: 'post' } }, { patch: { id: 'drafts.a', set: { title: 'One' } } }]);
    await mutate([{ patch: { id: 'drafts.a', set: { title: 'Two' } } }]);
    ok(await data.publish('a'));
    const published = ok(await data.doc('a'));
    await mutate([{ createIfNotExists: { ...withoutRev(published), _id: 'drafts.a' } }, { patch: { id: 'drafts.a', set: { title: 'Three' } } }]);
    const draft = ok(await data.doc('drafts.a'));
    await mutate([
      { patch: { id: 'a', unset: ['_revision_lock_pseudo_field_'], ifRevisionID: published._rev } },
      { createOrReplace: { ...withoutRev(draft), _id: 'a' } },
      { delete: { id: 'drafts.a' } },
    ]);
    await mutate([{ createIfNotExists: { _id: 'drafts.a', _type: 'post' } }, { patch: { id: 'drafts.a', set: { title: 'Four' } } }]);
    // b: created published, edited, deleted.
    await mutate([{ create: { _id: 'b', _type: 'post', v: 1 } }]);
    await mutate([{ patch: { id: 'b', set: { v: 2 } } }]);
    await mutate([{ delete: { id: 'b' } }]);
    // c: a draft discarded.
    await mutate([{ create: { _id: 'drafts.c', _type: 'post' } }]);
    await mutate([{ delete: { id: 'drafts.c' } }]);
    // d: published, then unpublished (its content becomes the draft).
    await mutate([{ create: { _id: 'drafts.d', _type: 'post', v: 1 } }]);
    ok(await data.publish('d'));
    ok(await data.unpublish('d'));
    // e: published long ago, edited since.
    await mutate([{ create: { _id: 'drafts.e', _type: 'post', v: 1 } }]);
    ok(await data.publish('e'));
    kept = await mutate([{ createIfNotExists: { ...withoutRev(ok(await data.doc('e'))), _id: 'drafts.e' } }, { patch: { id: 'drafts.e', set: { v: 2 } } }]);
    for (const name of names) original.set(name, await history(name));

    // As a server before migration 011 leaves it: everything older than 24 hours pruned (all but e's
    // last edit here), the indexes of migration 005.
    await first.close({ keepDatabase: true });
    const sqlite = first.db.engine === 'sqlite';
    await runSql(first.db, [
      `DELETE FROM document_changes WHERE transaction_id <> '${kept}'`,
      'DROP INDEX document_changes_document',
      'DROP INDEX document_changes_transaction',
      'CREATE INDEX document_changes_created ON document_changes(created_at)',
      ...(sqlite ? ['CREATE INDEX document_changes_order ON document_changes(commit_order, seq)'] : []),
      'DELETE FROM schema_migrations WHERE version = 11',
    ]);
    app = await startTestApp({}, { db: first.db });
    admin = await app.login();
    data = dataClient(app, admin, project.slug);
  });
  afterAll(async () => app.close());

  it('rebuilds edits and publishes exactly: a publish deleted the draft in its own transaction', async () => {
    for (const name of ['a', 'e']) {
      const rebuilt = await history(name);
      const sorted = (lines: TransactionLine[]) => lines.map((line) => ({ ...line, documentIDs: [...line.documentIDs].sort() }));
      expect(sorted(rebuilt)).toEqual(sorted(original.get(name)!));
    }
  });

  it('gives every document a chain that Studio aligns to and replays back to nothing', async () => {
    for (const name of names) {
      const lines = await history(name);
      const current = await versionsOf(name);
      // Studio aligns on the transaction that wrote each existing document.
      const revs = Object.values(ok(await data.doc<{ documents: Doc[] }>(`${name},drafts.${name}`)).documents).map((doc) => doc._rev);
      for (const rev of revs) expect(lines.map((line) => line.id)).toContain(rev);
      expect(replayBackwards(current, lines).at(-1)).toEqual({ [name]: null, [`drafts.${name}`]: null });
    }
  });

  it('marks deletions the revisions do not show as done by nobody, after the last version', async () => {
    const b = await history('b');
    const originalB = original.get('b')!;
    expect(b.map((line) => line.id)).toEqual([`${originalB[1]!.id}.deleted`, originalB[1]!.id, originalB[2]!.id]);
    expect(b[0]).toMatchObject({ author: 'system', documentIDs: ['b'], timestamp: originalB[1]!.timestamp, effects: { b: { apply: [0, null] } } });
    const c = await history('c');
    expect(c.map((line) => line.id)).toEqual([`${original.get('c')![1]!.id}.deleted`, original.get('c')![1]!.id]);
    // d's unpublish deleted the published document and wrote the draft: the draft's revision is
    // there, the deletion is placed after the publish.
    const d = await history('d');
    const [unpublish, publish, create] = original.get('d')!;
    expect(d.map((line) => line.id)).toEqual([unpublish!.id, `${publish!.id}.deleted`, publish!.id, create!.id]);
    expect(d[2]!.documentIDs.sort()).toEqual(['d', 'drafts.d']);
  });

  it('keeps rebuilt rows away from listeners, and documents at a revision readable', async () => {
    const changes = await app.services.store.changes.after(LOG_START, 1000);
    expect(changes.map((change) => change.transactionId)).toEqual([kept]);
    const [, , firstPublish] = original.get('a')!.slice().reverse();
    const { documents } = ok(
      await app.request<{ documents: Doc[] }>('GET', `/api/p/${project.slug}/v2025-02-19/data/history/production/documents/a,drafts.a?revision=${firstPublish!.id}`, {
        token: admin,
      }),
    );
    expect(documents.map((doc) => [doc._id, doc.title])).toEqual([['a', 'Two']]);
  });
});
