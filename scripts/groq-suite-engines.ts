// The engines the conformance runner can drive: ours, and groq-js as a point of comparison.
// Both cache what they prepare per dataset, since thousands of cases share a handful of datasets.

export type Engine = {
  name: string;
  /** Cases this engine cannot finish in reasonable time (reported as skipped). */
  tooSlow?: ReadonlySet<string>;
  /** Resolves to the result, or throws when the query is rejected. */
  run(query: string, documents: unknown[], params: Record<string, unknown>): Promise<unknown>;
  /** Releases what the engine holds (a database). */
  close?(): Promise<void>;
};

/**
 * Our engine over the store, as the query endpoint runs it: each dataset written to a dataset of a
 * fresh SQLite file or PostgreSQL schema (documents and their index), queries answered by the
 * planner from the document index.
 */
export async function storeEngine(kind: 'sqlite' | 'postgres', postgresUrl: string): Promise<Engine> {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore, StoreDocumentSource } = await import('../src/store/index.ts');
  const { evaluate } = await import('../src/groq/index.ts');
  const dir = mkdtempSync(join(tmpdir(), 'groq-suite-'));
  const schema = `groq_suite_${process.pid}`;
  const store = kind === 'sqlite' ? openStore(`sqlite:${join(dir, 'suite.db')}`) : openStore(postgresUrl, { schema });
  await store.migrate();
  const project = 'suite';
  const now = '2000-01-01T00:00:00.000Z';
  await store.projects.insert({ id: project, name: 'Suite', slug: project, datasets: [], locales: null, createdAt: now, updatedAt: now });
  const datasets = new WeakMap<unknown[], string>();
  return {
    name: `ours on ${kind}`,
    async run(query, documents, params) {
      let dataset = datasets.get(documents);
      if (!dataset) {
        dataset = `d${Math.random().toString(36).slice(2)}`;
        // The store's columns want a revision and timestamps: given as non-enumerable properties,
        // they fill the columns and stay out of the stored JSON.
        const stored = documents.map((document) =>
          Object.defineProperties({ ...(document as object) }, { _rev: { value: 'r' }, _createdAt: { value: now }, _updatedAt: { value: now } }),
        );
        await store.transaction((tx) => tx.documents.putMany(project, dataset!, stored as unknown as Parameters<typeof tx.documents.putMany>[2]));
        datasets.set(documents, dataset);
      }
      return evaluate(query, { source: new StoreDocumentSource(store, project, dataset), params });
    },
    async close() {
      await store.close();
      if (kind === 'sqlite') rmSync(dir, { recursive: true, force: true });
      else {
        const pg = await import('pg');
        const client = new pg.default.Client({ connectionString: postgresUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    },
  };
}

export async function ourEngine(): Promise<Engine> {
  const groq = await import('../src/groq/index.ts');
  const sources = new WeakMap<unknown[], ReturnType<typeof groq.createMemorySource>>();
  return {
    name: 'ours',
    run(query, documents, params) {
      let source = sources.get(documents);
      if (!source) {
        // Scans are planned and answered with pruned copies, as a database source answers them:
        // the suite then also checks the planner's field analysis.
        source = groq.createMemorySource(documents, { prune: true });
        sources.set(documents, source);
      }
      return groq.evaluate(query, { source, params });
    },
  };
}

export async function groqJsEngine(): Promise<Engine> {
  const groqJs = await import('groq-js');
  return {
    name: 'groq-js',
    // Eleven nested subqueries over the whole dataset: groq-js re-evaluates each one per document
    // of the enclosing filter (its own test generator disables this case as "very slow").
    tooSlow: new Set(['Filters / documents, nested 3']),
    async run(query, documents, params) {
      const tree = groqJs.parse(query, { params });
      const value = await groqJs.evaluate(tree, { dataset: documents, params });
      return value.get();
    },
  };
}
