import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { compileListenFilter } from '../../src/realtime/listen-filter.ts';
import type { StoredDocument } from '../../src/store/index.ts';

const scope = { projectId: 'p', dataset: 'production' };
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
    await compileListenFilter(query, params, scope);
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error(`${query} was accepted`);
}

describe('listener filters', () => {
  it('judges one document: filters in a row, params with or without $, functions on the document', async () => {
    const filter = await compileListenFilter('*[_type == $type][count(tags) > 1 && defined(slug.current)]', { $type: 'post' }, scope);
    expect(await filter.matches(doc({ tags: ['a', 'b'], slug: { current: 'x' } }))).toBe(true);
    expect(await filter.matches(doc({ tags: ['a'], slug: { current: 'x' } }))).toBe(false);
    expect(await filter.matches(doc({ _type: 'page', tags: ['a', 'b'], slug: { current: 'x' } }))).toBe(false);
    expect(await (await compileListenFilter('*', {}, scope)).matches(doc({}))).toBe(true);
    expect(await (await compileListenFilter('*[_id in path("drafts.**")]', {}, scope)).matches(doc({ _id: 'drafts.a' }))).toBe(true);
    expect(await (await compileListenFilter('*[sanity::dataset() == "production"]', {}, scope)).matches(doc({}))).toBe(true);
  });

  it('ignores projections and ordering, as Sanity does, and keys filters by query and params', async () => {
    const filter = await compileListenFilter('*[_type == "post"]{title} | order(title desc)', {}, scope);
    expect(await filter.matches(doc({}))).toBe(true);
    const a = await compileListenFilter('*[_type == $t]', { t: 'a' }, scope);
    const b = await compileListenFilter('*[_type == $t]', { t: 'b' }, scope);
    expect(a.key).not.toBe(b.key);
    expect((await compileListenFilter('*[_type == $t]', { $t: 'a' }, scope)).key).toBe(a.key);
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
});
