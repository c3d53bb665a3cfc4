// The engines the conformance runner can drive: ours, and groq-js as a point of comparison.
// Both cache what they prepare per dataset, since thousands of cases share a handful of datasets.

export type Engine = {
  name: string;
  /** Cases this engine cannot finish in reasonable time (reported as skipped). */
  tooSlow?: ReadonlySet<string>;
  /** Resolves to the result, or throws when the query is rejected. */
  run(query: string, documents: unknown[], params: Record<string, unknown>): Promise<unknown>;
};

export async function ourEngine(): Promise<Engine> {
  const groq = await import('../src/groq/index.ts');
  const sources = new WeakMap<unknown[], ReturnType<typeof groq.createMemorySource>>();
  return {
    name: 'ours',
    run(query, documents, params) {
      let source = sources.get(documents);
      if (!source) {
        source = groq.createMemorySource(documents);
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
