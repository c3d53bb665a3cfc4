// Differential tests of the planner in memory: planned evaluation (scans answered by the memory
// source with pruned copies of documents, streamed queries in pages of two) must give exactly
// what the unplanned evaluation gives, on generated datasets and queries.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemorySource, evaluate } from '../../src/groq/index.ts';
import { dataset, PARAMS, query } from './arbitraries.ts';
import { PLANNER_PARAMS, plannerDataset, plannerQuery } from './planner-arbitraries.ts';

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: JSON.parse(JSON.stringify((await run()) ?? null)) as unknown };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

async function compare(docs: readonly unknown[], queries: readonly string[], params: Record<string, unknown>): Promise<void> {
  for (const q of queries) {
    const unplanned = await outcome(() => evaluate(q, { dataset: docs, params, planner: false }));
    const planned = await outcome(() => evaluate(q, { source: createMemorySource(docs, { prune: true, pageSize: 2 }), params }));
    if (JSON.stringify(planned) !== JSON.stringify(unplanned)) {
      expect({ query: q, planned }).toEqual({ query: q, planned: unplanned });
    }
  }
}

describe('differential: planned and unplanned evaluation agree', () => {
  it('on queries aimed at the planner over datasets on the edges of the index', async () => {
    await fc.assert(
      fc.asyncProperty(plannerDataset, fc.array(plannerQuery, { minLength: 5, maxLength: 5 }), (docs, queries) => compare(docs, queries, PLANNER_PARAMS)),
      { numRuns: 1500 },
    );
  });

  it('on the general generated queries', async () => {
    await fc.assert(
      fc.asyncProperty(dataset, fc.array(query, { minLength: 5, maxLength: 5 }), (docs, queries) => compare(docs, queries, PARAMS)),
      { numRuns: 1500 },
    );
  });
});
