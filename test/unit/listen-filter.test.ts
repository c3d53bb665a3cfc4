import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { compileListenFilter, FilterTooCostly } from '../../src/realtime/listen-filter.ts';
import type { StoredDocument } from '../../src/store/index.ts';

const scope = { projectId: 'p', dataset: 'production' };
const limits = { sliceMs: 10_000, maxTextChars: 1_000_000 };
const doc = (fields: Record<string, unknown>): StoredDocument => ({
  _id: 'a',
  _type: 'post',
  _rev: 'r',
  _createdAt: '2030-01-01T00:00:00.000Z',
  _updatedAt: '2030-01-01T00:00:00.000Z',
  ...fields,
});

async function refusal(query: string, params: Record<string, unknown> = {}): Promise<string> {
  try {
    await compileListenFilter(query, params, scope, limits);
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error(`${query} was accepted`);
}

describe('listener filters', () => {
  it('judges one document: filters in a row, params with or without $, functions on the document', async () => {
    const filter = await compileListenFilter('*[_type == $type][count(tags) > 1 && defined(slug.current)]', { $type: 'post' }, scope, limits);
    expect(await filter.matches(doc({ tags: ['a', 'b'], slug: { current: 'x' } }))).toBe(true);
    expect(await filter.matches(doc({ tags: ['a'], slug: { current: 'x' } }))).toBe(false);
    expect(await filter.matches(doc({ _type: 'page', tags: ['a', 'b'], slug: { current: 'x' } }))).toBe(false);
    expect(await (await compileListenFilter('*', {}, scope, limits)).matches(doc({}))).toBe(true);
    expect(await (await compileListenFilter('*[_id in path("drafts.**")]', {}, scope, limits)).matches(doc({ _id: 'drafts.a' }))).toBe(true);
    expect(await (await compileListenFilter('*[sanity::dataset() == "production"]', {}, scope, limits)).matches(doc({}))).toBe(true);
  });

  it('ignores projections and ordering, as Sanity does, and keys filters by query and params', async () => {
    const filter = await compileListenFilter('*[_type == "post"]{title} | order(title desc)', {}, scope, limits);
    expect(await filter.matches(doc({}))).toBe(true);
    const a = await compileListenFilter('*[_type == $t]', { t: 'a' }, scope, limits);
    const b = await compileListenFilter('*[_type == $t]', { t: 'b' }, scope, limits);
    expect(a.key).not.toBe(b.key);
    expect((await compileListenFilter('*[_type == $t]', { $t: 'a' }, scope, limits)).key).toBe(a.key);
  });

  it('refuses what is not a filter of documents, or needs other documents, with a reason', async () => {
    expect(await refusal('count(*)')).toMatch(/filter of documents/);
    expect(await refusal('*[0]')).toMatch(/filter of documents/);
    expect(await refusal('*[_type == "a"][0...10]')).toMatch(/filter of documents/);
    expect(await refusal('*[_type == "a"]._id')).toMatch(/filter of documents/);
    expect(await refusal('1 + 1')).toMatch(/filter of documents/);
    expect(await refusal('*[author->name == "x"]')).toMatch(/->/);
    expect(await refusal('*[count(*[references(^._id)]) > 0]')).toMatch(/subqueries/);
    expect(await refusal('*[_type == ')).toMatch(/syntax error at line 1, column \d+ \(position \d+\)/);
    expect(await refusal('*[_type == $missing]')).toMatch(/\$missing/);
    expect(await refusal('*'.padEnd(300_000, ' '))).toMatch(/longer than/);
  });

  // Each of these computes for longer than its slice on one large document: string functions and `match` charge
  // the text they read, so the budget looks at the clock while they run and stops the filter.
  const body = 'ab '.repeat(100_000);
  const costly = {
    'string functions': `*[count([${Array.from({ length: 300 }, () => 'string::split(body, "")[1]').join(', ')}]) > 0]`,
    match: `*[${Array.from({ length: 400 }, (_, i) => `body match "zz${i}"`).join(' || ')} || true]`,
    arrays: `*[${Array.from({ length: 300 }, () => 'count(array::unique(string::split(body, ""))) > 0').join(' && ')}]`,
  };

  it.each(Object.entries(costly))('stops a filter whose %s compute for longer than its slice on one document', async (_name, query) => {
    // A slice of 1 ms: each of these computes for far longer on this document, on any machine.
    const filter = await compileListenFilter(query, {}, scope, { ...limits, sliceMs: 1 });
    await expect(filter.matches(doc({ body }))).rejects.toThrow(FilterTooCostly);
    // Given the time, the same filter judges a document as usual.
    const patient = await compileListenFilter(query, {}, scope, limits);
    expect(await patient.matches(doc({ body: 'ab ab' }))).toBe(true);
  });

  it('stops a filter that would build a string longer than it may, however quickly', async () => {
    const filter = await compileListenFilter('*[length(array::join(string::split(body, ""), body)) > 0]', {}, scope, limits);
    // 1,001 characters joined by 1,001: 1,002,001, over the limit; 100 by 100 is within it.
    await expect(filter.matches(doc({ body: 'x'.repeat(1001) }))).rejects.toThrow(/built a string longer than 1000000 characters/);
    expect(await filter.matches(doc({ body: 'x'.repeat(100) }))).toBe(true);
  });
});
