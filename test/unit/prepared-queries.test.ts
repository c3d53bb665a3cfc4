// The query service reuses prepared queries by text, but never one whose tree depends on the
// parameters it was parsed with.
import { describe, expect, it } from 'vitest';
import { PreparedQueries } from '../../src/content/query/prepared-queries.ts';
import { execute } from '../../src/groq/index.ts';

const DOCUMENTS = [{ _id: 'a', _type: 'post', title: 'A', tags: ['x', 'y'] }];

async function run(cache: PreparedQueries, query: string, params: Record<string, unknown>): Promise<unknown> {
  const output = await execute(cache.get(query, params), { dataset: DOCUMENTS, params });
  if (output.kind !== 'value') {
    const items: unknown[] = [];
    for await (const item of output.items) items.push(item);
    return items;
  }
  return output.value;
}

describe('prepared queries', () => {
  it('prepares a query once and runs it with any parameters', async () => {
    const cache = new PreparedQueries();
    const query = '*[_id == $id][0].title';
    const first = cache.get(query, { id: 'a' });
    expect(cache.get(query, { id: 'b' })).toBe(first);
    expect(await run(cache, query, { id: 'a' })).toBe('A');
    expect(await run(cache, query, { id: 'b' })).toBeNull();
    expect(cache.size).toBe(1);
  });

  it('prepares again a query whose meaning depends on a parameter value: [$p] is an element, an attribute or a filter', async () => {
    const cache = new PreparedQueries();
    const query = '*[0].tags[$p]';
    expect(await run(cache, query, { p: 1 })).toBe('y');
    expect(await run(cache, query, { p: 'length' })).toBeNull();
    expect(cache.get(query, { p: 0 })).not.toBe(cache.get(query, { p: 0 }));
    expect(cache.size).toBe(0);
  });

  it('keeps the most recently used queries up to its capacity', () => {
    const cache = new PreparedQueries(2);
    const a = cache.get('*[_type == "a"]', {});
    const b = cache.get('*[_type == "b"]', {});
    expect(cache.get('*[_type == "a"]', {})).toBe(a);
    // "b" is now the least recently used: "c" takes its place.
    cache.get('*[_type == "c"]', {});
    expect(cache.size).toBe(2);
    expect(cache.get('*[_type == "a"]', {})).toBe(a);
    expect(cache.get('*[_type == "b"]', {})).not.toBe(b);
  });

  it('does not keep a query that fails to parse', () => {
    const cache = new PreparedQueries();
    expect(() => cache.get('*[', {})).toThrow();
    expect(cache.size).toBe(0);
  });
});
