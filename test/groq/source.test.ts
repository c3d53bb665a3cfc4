import { describe, expect, it } from 'vitest';
import { createMemorySource, evaluate, GroqSourceError, parse, PENDING, type DocumentSource } from '../../src/groq/index.ts';
import { DOCS } from './helpers.ts';

/** A memory source that counts how it is used. */
function countingSource(documents: readonly unknown[]): DocumentSource & { scans: number; lookups: number } {
  const inner = createMemorySource(documents);
  const source = {
    scans: 0,
    lookups: 0,
    documents() {
      source.scans++;
      return inner.documents();
    },
    getDocument(id: string) {
      source.lookups++;
      return inner.getDocument(id);
    },
  };
  return source;
}

/** An asynchronous source: answers PENDING until load() has fetched what was asked. */
function asyncSource(documents: readonly Record<string, unknown>[]): DocumentSource & { loads: number } {
  const byId = new Map(documents.map((d) => [d['_id'] as string, d]));
  let all: readonly unknown[] | null = null;
  const loaded = new Map<string, unknown>();
  const wanted = new Set<string>();
  let wantAll = false;
  const source = {
    loads: 0,
    documents() {
      if (all) return all;
      wantAll = true;
      return PENDING;
    },
    getDocument(id: string) {
      if (loaded.has(id)) return loaded.get(id);
      wanted.add(id);
      return PENDING;
    },
    async load() {
      source.loads++;
      await Promise.resolve();
      if (wantAll) all = documents;
      for (const id of wanted) loaded.set(id, byId.get(id) ?? null);
      wanted.clear();
    },
  };
  return source;
}

describe('DocumentSource', () => {
  it('dereferences through getDocument, never by scanning', async () => {
    const source = countingSource(DOCS);
    const result = await evaluate('*[_type == "post"]{"author": author->name, "all": refs[]->name}', { source });
    expect(result).toEqual([
      { author: 'Ada', all: ['Ada', 'Grace'] },
      { author: 'Grace', all: [] },
      { author: null, all: null },
    ]);
    expect(source.scans).toBe(1);
    expect(source.lookups).toBe(5);
  });

  it('evaluates a subquery that depends on no scope once per run', async () => {
    const source = countingSource(DOCS);
    const query = parse('*[author._ref in *[_type == "author" && age > 50]._id]._id');
    expect(await evaluate(query, { source })).toEqual(['p2']);
    expect(source.scans).toBe(2);
    // A subquery that uses ^ is evaluated for each element (only the bare `*` inside it is shared).
    const perElement = countingSource(DOCS);
    expect(await evaluate('*[_type == "author"]{"n": count(*[author._ref == ^._id && views > 20])}', { source: perElement })).toEqual([{ n: 0 }, { n: 1 }]);
    expect(perElement.scans).toBe(2);
  });

  it('waits for an asynchronous source, loading each round of needs in one batch', async () => {
    const source = asyncSource(DOCS);
    const result = await evaluate('*[_type == "post"] | order(_id) {"names": refs[]->name, "a": author->age}', { source });
    expect(result).toEqual([
      { names: null, a: null },
      { names: ['Ada', 'Grace'], a: 36 },
      { names: [], a: 85 },
    ]);
    // Round 1 asks for `*`, round 2 for the three referenced ids at once.
    expect(source.loads).toBe(2);
  });

  it('reports a source that answers PENDING but cannot load', async () => {
    const source: DocumentSource = { documents: () => PENDING, getDocument: () => null };
    await expect(evaluate('*', { source })).rejects.toMatchObject({ code: 'GROQ_SOURCE_ERROR' });
    await expect(evaluate('*', { source })).rejects.toBeInstanceOf(GroqSourceError);
  });

  it('takes a dataset directly, and the first document of a repeated id', async () => {
    const dataset = [{ _id: 'x', v: 1 }, { _id: 'x', v: 2 }];
    expect(await evaluate('{"_ref": "x"}->v', { dataset })).toBe(1);
    expect(await evaluate('count(*)')).toBe(0);
  });
});
