// PostgreSQL plans with the statistics ANALYZE gathers. Right after a bulk import, before anything
// analyzed the tables, it believed them empty: a lookup by slug walked every post of the type for
// its one row, a page of the latest posts read the whole dataset once per row. The service refreshes
// them itself after bulk writes and at start (docs/decisions.md, Storage). These tests turn
// autovacuum off on the schema's tables, so that only the service can have analyzed them, and never
// run ANALYZE themselves.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, useTestApp, type TestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { testEngine } from '../helpers/engine.ts';
import { ok } from '../helpers/content.ts';
import { eventually } from '../helpers/eventually.ts';
import { processDatabaseUrl, run } from '../helpers/cli.ts';
import { toPositionalParams } from '../../src/store/postgres/placeholders.ts';
import { PLANNER_TABLES } from '../../src/store/postgres/postgres-statistics.ts';

const BY_SLUG = '*[_type == "post" && slug.current == $slug][0]';
const LATEST = '*[_type == "post"] | order(publishedAt desc)[0...20]';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

interface Statement {
  text: string;
  values: unknown[];
}

const isStatementConfig = (value: unknown): value is { text: string; values?: unknown[] } =>
  typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string';

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Rows the plan's scans of `table` returned, over all their loops. */
const rowsRead = (plan: PlanNode, table: string): number =>
  nodesOf(plan)
    .filter((node) => node['Relation Name'] === table)
    .reduce((sum, node) => sum + node['Actual Rows'] * node['Actual Loops'], 0);

function post(i: number): Record<string, unknown> {
  return {
    _id: `post-${String(i).padStart(5, '0')}`,
    _type: 'post',
    title: `Post ${i}`,
    slug: { _type: 'slug', current: `post-${i}` },
    publishedAt: new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString(),
    views: i % 1000,
    author: { _type: 'reference', _ref: `author-${i % 40}` },
  };
}

describe.skipIf(testEngine !== 'postgres')('planner statistics on PostgreSQL (skipped on SQLite: its plans do not depend on statistics, and the store keeps none there; docs/decisions.md, Storage)', () => {
  const app = useTestApp();
  let project: TestProject;
  let client: pg.Client;

  async function connect(target: TestApp): Promise<pg.Client> {
    const connection = new pg.Client({ connectionString: target.db.databaseUrl, options: `-c search_path=${target.db.schema}` });
    await connection.connect();
    // Nothing but the service may analyze these tables.
    for (const table of PLANNER_TABLES) await connection.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    return connection;
  }

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'archive']);
    client = await connect(app);
  });
  afterAll(async () => {
    await client.end();
  });

  async function importPosts(dataset: string, from: number, count: number): Promise<void> {
    const lines = Array.from({ length: count }, (_, i) => JSON.stringify(post(from + i)));
    ok(
      await app.request('POST', `/api/v1/data/import/${dataset}`, {
        token: app.admin,
        headers: { 'x-project': project.slug, 'content-type': 'application/x-ndjson' },
        rawBody: lines.join('\n'),
      }),
    );
  }

  /**
   * Whether the planner's statistics of documents and of their values came to know `dataset`
   * (waiting for the service's refresh after the commit), which here only an ANALYZE by the service
   * can have told them. Without one the plans are checked all the same, to show what they are.
   */
  const analyzedWith = (connection: pg.Client, dataset: string): Promise<boolean> =>
    eventually(async () => {
      const { rows } = await connection.query<{ tablename: string }>(
        `SELECT tablename FROM pg_stats WHERE schemaname = current_schema() AND tablename IN ('documents', 'document_values')
         AND attname = 'dataset' AND $1 = ANY (most_common_vals::text::text[])`,
        [dataset],
      );
      return rows.length === 2 ? true : undefined;
    }).catch(() => false);

  /**
   * The statements that answer `query` (the SQL `?explain=true` reports), with the parameters the
   * service sent them with, as PostgreSQL received them.
   */
  async function statementsOf(target: TestApp, slug: string, dataset: string, query: string, params: Record<string, unknown>): Promise<Statement[]> {
    const sent: Statement[] = [];
    const original = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const [first, values] = args as [unknown, unknown[] | undefined];
      if (typeof first === 'string') sent.push({ text: first, values: values ?? [] });
      else if (isStatementConfig(first)) sent.push({ text: first.text, values: first.values ?? [] });
      return (original as (...forwarded: unknown[]) => unknown).apply(this, args);
    } as typeof original);
    let reported: string[];
    try {
      const response = await target.request<{ plan: { scans: { sql: string[] }[] } }>('POST', `/api/v1/data/query/${dataset}?explain=true`, {
        token: await target.login(),
        headers: { 'x-project': slug },
        body: { query, params },
      });
      reported = ok(response).plan.scans.flatMap((scan) => scan.sql.map(toPositionalParams));
    } finally {
      spy.mockRestore();
    }
    const answering = sent.filter((statement) => reported.includes(statement.text));
    expect(answering.length).toBeGreaterThan(0);
    return answering;
  }

  /** Each statement's plan as it runs: no table scanned whole, and no more rows read than the window holds. */
  async function expectIndexedPlans(connection: pg.Client, statements: Statement[], window: number): Promise<void> {
    for (const { text, values } of statements) {
      const { rows } = await connection.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      const plan = rows[0]!['QUERY PLAN'][0].Plan;
      const scans = nodesOf(plan).filter((node) => /Seq Scan/.test(node['Node Type'])).map((node) => node['Relation Name']);
      expect(scans.filter((table) => table !== 'document_shapes'), text).toEqual([]);
      expect(rowsRead(plan, 'documents'), text).toBeLessThanOrEqual(2 * window);
      expect(rowsRead(plan, 'document_values'), text).toBeLessThanOrEqual(2 * window);
    }
  }

  it('plans a lookup by slug and the latest posts with their indexes right after an import', async () => {
    await importPosts('production', 0, 4000);
    const analyzed = await analyzedWith(client, 'production');
    // The last post in id order: a plan that walks the type's posts reads them all to find it.
    await expectIndexedPlans(client, await statementsOf(app, project.slug, 'production', BY_SLUG, { slug: 'post-3999' }), 1);
    await expectIndexedPlans(client, await statementsOf(app, project.slug, 'production', LATEST, {}), 20);
    expect(analyzed).toBe(true);
  });

  it('refreshes them again when an import brings many documents the statistics do not know', async () => {
    await importPosts('archive', 10_000, 8000);
    const analyzed = await analyzedWith(client, 'archive');
    await expectIndexedPlans(client, await statementsOf(app, project.slug, 'archive', BY_SLUG, { slug: 'post-17999' }), 1);
    await expectIndexedPlans(client, await statementsOf(app, project.slug, 'archive', LATEST, {}), 20);
    expect(analyzed).toBe(true);
  });

  it('leaves them refreshed when a command-line import exits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cms-statistics-'));
    const file = join(dir, 'posts.ndjson');
    writeFileSync(file, Array.from({ length: 4000 }, (_, i) => JSON.stringify(post(20_000 + i))).join('\n'));
    const other = await createProject(app, app.admin, ['cli']);
    try {
      const result = await run(['import', file, '--dataset', 'cli', '--project', other.slug], { DATA_DIR: app.db.dataDir, DATABASE_URL: await processDatabaseUrl(app.db) });
      expect(result.code, result.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // No waiting: the process refreshed them before it exited.
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_stats WHERE schemaname = current_schema() AND attname = 'dataset' AND 'cli' = ANY (most_common_vals::text::text[])",
    );
    expect(rows.map((row) => row.tablename).sort()).toEqual(expect.arrayContaining(['document_values', 'documents']));
    await expectIndexedPlans(client, await statementsOf(app, other.slug, 'cli', BY_SLUG, { slug: 'post-23999' }), 1);
  });

  it('at start, gathers statistics that are missing (documents written around the service, as by a restore)', async () => {
    const first = await startTestApp();
    const token = await first.login();
    const restored = await first.request<{ id: string }>('POST', '/api/v1/projects', { token, body: { name: 'Restored', slug: 'restored' } });
    await first.close({ keepDatabase: true });
    const raw = await connect(first);
    // Documents as a restore writes them, without their index rows: the next start rebuilds those.
    await raw.query(
      `INSERT INTO documents (project_id, dataset, id, type, rev, created_at, updated_at, content)
       SELECT $1, 'production', d->>'_id', 'post', 'r', now(), now(), d || '{"_rev": "r", "_createdAt": "2020-01-01T00:00:00Z", "_updatedAt": "2020-01-01T00:00:00Z"}'
       FROM jsonb_array_elements($2::jsonb) d`,
      [restored.body.id, JSON.stringify(Array.from({ length: 4000 }, (_, i) => post(i)))],
    );
    await raw.query("UPDATE document_index_state SET value = '0' WHERE name = 'version'");
    const second = await startTestApp({}, { db: first.db });
    try {
      // No waiting: the start itself refreshed them.
      const { rows } = await raw.query<{ tablename: string }>('SELECT DISTINCT tablename FROM pg_stats WHERE schemaname = current_schema()');
      expect(rows.map((row) => row.tablename)).toEqual(expect.arrayContaining(['documents', 'document_values']));
      await expectIndexedPlans(raw, await statementsOf(second, 'restored', 'production', BY_SLUG, { slug: 'post-3999' }), 1);
      await expectIndexedPlans(raw, await statementsOf(second, 'restored', 'production', LATEST, {}), 20);
    } finally {
      await raw.end();
      await second.close();
    }
  });
});
