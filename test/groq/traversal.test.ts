import { describe, expect, it } from 'vitest';
import { GroqParameterError, GroqSyntaxError } from '../../src/groq/index.ts';
import { run } from './helpers.ts';

describe('traversal and access', () => {
  it.each([
    ['*[_type == "author"].name', ['Ada', 'Grace']],
    ['*[_type == "author"].tags', [['math', 'code'], ['navy', 'code']]],
    ['*[_type == "author"].tags[]', ['math', 'code', 'navy', 'code']],
    ['*[_id == "a1"][0].tags[1]', 'code'],
    ['*[_id == "a1"][0].tags[-1]', 'code'],
    ['*[_id == "a1"][0].tags[5]', null],
    ['*[_id == "a1"][0]["name"]', 'Ada'],
    ['*[_id == "a1"][0].nope', null],
    ['*[_id == "a1"][0].constructor', null],
    ['dateTime("2020-01-01T00:00:00Z").ms', null],
    ['path("a.*").pattern', null],
    ['*[_id == "a1"][0].name.first', null],
    ['*[0].name[0]', null],
    ['[[1, 2], [3]][][]', [[1, 2], [3]]],
    ['[{"a": [1, 2]}, {"a": [3]}][].a[]', [1, 2, 3]],
    ['(*[_type == "author"].tags)[]', [['math', 'code'], ['navy', 'code']]],
  ])('%s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each([
    ['[1, 2, 3, 4][1..2]', [2, 3]],
    ['[1, 2, 3, 4][1...2]', [2]],
    ['[1, 2, 3, 4][-2..-1]', [3, 4]],
    ['[1, 2, 3, 4][2..10]', [3, 4]],
    ['[1, 2, 3, 4][3..1]', []],
    ['"abc"[0..1]', null],
    ['*[_type == "post"] | order(_id)[0...2]._id', ['drafts.p3', 'p1']],
  ])('slices: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it('takes slice bounds from parameters, which must be integers', async () => {
    expect(await run('[1, 2, 3, 4][$from...$to]', { params: { from: 1, to: 3 } })).toEqual([2, 3]);
    await expect(run('[1, 2, 3, 4][$from...$to]', { params: { from: 0.5, to: 3 } })).rejects.toThrow(GroqSyntaxError);
  });

  it.each([
    ['*[views > 15]._id', ['p2']],
    ['*[views]._id', []],
    ['*["code" in tags]._id', ['a1', 'a2']],
    ['*[!defined(views)]._id', ['a1', 'a2', 'drafts.p3']],
    ['[1, 2, 3][@ >= 2]', [2, 3]],
    ['"abc"[@ == "a"]', null],
  ])('filters keep elements for which the condition is true: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it.each([
    ['*[_id == "p1"]{title, "writer": author->name, "count": count(refs)}', [{ title: 'Engines', writer: 'Ada', count: 2 }]],
    ['*[_id == "p1"]{"names": refs[]->name}', [{ names: ['Ada', 'Grace'] }]],
    ['*[_id == "p1"][0]{..., "title": "New"}.title', 'New'],
    ['*[_id == "p1"][0]{"title": "New", ...}.title', 'Engines'],
    ['*[_id == "a1"]{name, age > 30 => {"senior": true}, age > 50 => {"elder": true}}', [{ name: 'Ada', senior: true }]],
    ['*[_id == "a1"]{name, ...{"extra": 1}, ...tags}', [{ name: 'Ada', extra: 1 }]],
    ['*[_id == "a1"]{"missing": nope}', [{ missing: null }]],
    ['*[_id == "p1"][0]{refs[]{"id": _ref}}', { refs: [{ id: 'a1' }, { id: 'a2' }] }],
    ['*[_id == "a1"][0]{tags[]{"t": @}}', { tags: [null, null] }],
    ['1{"a": 1}', null],
    ['[1, {}]{"a": 1}', [null, { a: 1 }]],
    ['{"__proto__": 1}', JSON.parse('{"__proto__": 1}')],
  ])('projections: %s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it('dereferences by id, giving null for missing ids and non-references', async () => {
    expect(await run('*[_type == "post"] | order(_id) {"a": author->name}')).toEqual([{ a: null }, { a: 'Ada' }, { a: 'Grace' }]);
    expect(await run('"a1"->')).toBeNull();
    expect(await run('{"_ref": "a2"}->name')).toBe('Grace');
  });

  it('resolves ^ to enclosing scopes, looking past the elements of traversals', async () => {
    expect(await run('*[_type == "author"]{name, "posts": *[_type == "post" && author._ref == ^._id].title}')).toEqual([
      { name: 'Ada', posts: ['Engines'] },
      { name: 'Grace', posts: ['Compilers'] },
    ]);
    expect(await run('*[_id == "p1"]{title, "r": refs[]{"post": ^.title, _ref}}')).toEqual([
      { title: 'Engines', r: [{ post: 'Engines', _ref: 'a1' }, { post: 'Engines', _ref: 'a2' }] },
    ]);
    expect(await run('*[_id == "a1"]{"x": *[_id == "p1"]{"y": *[_id == "p2"]{"up": ^.^._id}}}')).toEqual([{ x: [{ y: [{ up: 'a1' }] }] }]);
    expect(await run('^')).toBeNull();
    expect(await run('@')).toBeNull();
  });

  it('orders by several terms, stably, with mixed types in a fixed order', async () => {
    expect(await run('*[_type == "post"] | order(views asc)._id')).toEqual(['p1', 'p2', 'drafts.p3']);
    // Descending reverses the whole order: null, which sorts last, comes first.
    expect(await run('*[_type == "post"] | order(views desc)._id')).toEqual(['drafts.p3', 'p2', 'p1']);
    expect(await run('*[_type == "author"] | order("code" in tags, age desc).name')).toEqual(['Grace', 'Ada']);
    expect(await run('[true, "b", 2, null, "a", 1] | order(@)')).toEqual([1, 2, 'a', 'b', true, null]);
    expect(await run('[3, 1] | order(@ desc)[0]')).toBe(3);
    expect(await run('"x" | order(@)')).toBeNull();
  });

  it('scores documents by their matches, boosts included, highest first', async () => {
    const scored = (await run('*[_type == "post"] | score(title match "engines", boost(views > 20, 5)) {_id, _score}')) as { _id: string; _score: number }[];
    expect(scored.map((s) => s._id)).toEqual(['p2', 'p1', 'drafts.p3']);
    expect(scored[2]?._score).toBe(0);
  });

  it('uses parameters, and rejects queries whose parameters are missing', async () => {
    expect(await run('*[_id == $id][0].name', { params: { id: 'a2' } })).toBe('Grace');
    expect(await run('$list[1]', { params: { list: [1, 2] } })).toBe(2);
    const error = await run('*[_id == $id]').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GroqParameterError);
    expect(error).not.toBeInstanceOf(GroqSyntaxError);
    expect(error).toMatchObject({ code: 'GROQ_PARAMETER_MISSING', parameter: 'id' });
  });

  it('evaluates select() alternatives in order', async () => {
    expect(await run('*[_type == "author"]{"kind": select(age > 80 => "old", age > 30 => "grown", "young")}.kind')).toEqual(['grown', 'old']);
    expect(await run('select(false => 1)')).toBeNull();
  });
});
