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

  it('keeps queries up to a size, by their trees, and the small ones it holds stay', () => {
    const cache = new PreparedQueries();
    const small = cache.get('*[_type == "post"]{title}', {});
    // 8 KB each, a tree of about 4,000 nodes: a dozen fit in 16 MB by the estimate, not 100.
    for (let i = 0; i < 100; i++) cache.get(`*[_type == "none"][0]{"n": [${new Array<string>(3900).fill('n').join(',')}], "i": ${i}}`, {});
    expect(cache.size).toBeGreaterThan(5);
    expect(cache.size).toBeLessThan(30);
    // The most recent long ones are kept; the small one, used now, stays through more of them.
    expect(cache.get('*[_type == "post"]{title}', {})).not.toBe(small);
    const again = cache.get('*[_type == "post"]{title}', {});
    for (let i = 0; i < 5; i++) cache.get(`*[_type == "none"][0]{"n": [${new Array<string>(3900).fill('n').join(',')}], "j": ${i}}`, {});
    expect(cache.get('*[_type == "post"]{title}', {})).toBe(again);
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
