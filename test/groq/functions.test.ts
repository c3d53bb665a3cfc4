import { describe, expect, it } from 'vitest';
import { run } from './helpers.ts';

const block = (text: string) => ({ _type: 'block', children: [{ _type: 'span', text }, { _type: 'image' }] });

describe('global functions', () => {
  it.each([
    ['count(*[_type == "author"])', 2],
    ['count("abc")', null],
    ['defined(nope)', false],
    ['defined(0)', true],
    ['coalesce(null, nope, 2, 3)', 2],
    ['coalesce()', null],
    ['length("h😀")', 2],
    ['length([1, 2])', 2],
    ['length(1)', null],
    ['lower("ÅB")', 'åb'],
    ['upper("ab")', 'AB'],
    ['upper(1)', null],
    ['string(1.5)', '1.5'],
    ['string(true)', 'true'],
    ['string(dateTime("2020-01-01T00:00:00Z"))', '2020-01-01T00:00:00Z'],
    ['string([1])', null],
    ['round(2.5)', 3],
    ['round(-2.5)', -3],
    ['round(1.2345, 2)', 1.23],
    ['round(1.5, -1)', null],
    ['round("1")', null],
    ['dateTime("2020-01-01T12:00:00+02:00")', '2020-01-01T10:00:00Z'],
    ['dateTime("2020-01-01")', null],
    ['dateTime("2020-01-01T00:00:00Z") - dateTime("2019-12-31T23:00:00Z")', 3600],
    ['dateTime("2020-01-01T00:00:00Z") - 1.5', '2019-12-31T23:59:58.500Z'],
    ['path("a.*")', 'a.*'],
    ['path(1)', null],
    ['*[references("a1")]._id', ['p1']],
    ['*[references(["x", "a2"])]._id', ['p1', 'p2']],
    ['*[references("nope")]._id', []],
    // In a subquery per document, where referenced ids are collected once per document and run.
    ['*[_type == "author"]{"posts": *[references(^._id)]._id}', [{ posts: ['p1'] }, { posts: ['p1', 'p2'] }]],
    ['*[_type == "author"]{"n": count(*[references(^._id, "a1")])}', [{ n: 1 }, { n: 2 }]],
  ])('%s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it('takes now(), identity() and the project from the evaluation options', async () => {
    const now = new Date('2024-05-06T07:08:09.123Z');
    expect(await run('now()', { now })).toBe('2024-05-06T07:08:09.123Z');
    expect(await run('dateTime::now()', { now })).toBe('2024-05-06T07:08:09.123Z');
    expect(await run('identity()', { identity: 'user-1' })).toBe('user-1');
    expect(await run('[sanity::projectId(), sanity::dataset()]', { project: { projectId: 'p', dataset: 'd' } })).toEqual(['p', 'd']);
    expect(await run('sanity::projectId()')).toBeNull();
  });
});

describe('namespaced functions', () => {
  it.each([
    ['string::split("a,b,,c", ",")', ['a', 'b', '', 'c']],
    ['string::split("a😀", "")', ['a', '😀']],
    ['string::split("", ",")', []],
    ['string::split(1, ",")', null],
    ['string::startsWith("hello", "he")', true],
    ['string::startsWith("hello", 1)', null],
    ['array::join([1, "a", true], "-")', '1-a-true'],
    ['array::join([1, [2]], "-")', null],
    ['array::compact([1, null, 2])', [1, 2]],
    ['array::unique([1, "1", 1, null, null, [1], [1]])', [1, '1', null, [1], [1]]],
    ['array::intersects([1, 2], [2, 3])', true],
    ['array::intersects([[1]], [[1]])', false],
    ['array::intersects(1, [1])', null],
    ['math::sum([1, 2, null, 3.5])', 6.5],
    ['math::sum([])', 0],
    ['math::sum([1, "2"])', null],
    ['math::avg([1, 2])', 1.5],
    ['math::avg([])', null],
    ['math::min([3, 1, 2])', 1],
    ['math::max([3, 1, 2])', 3],
    ['math::max("x")', null],
    ['math::sum(*[_type == "post"].views)', 40],
  ])('%s', async (query, expected) => {
    expect(await run(query)).toEqual(expected);
  });

  it('pt::text joins the text of blocks and pt() keeps only Portable Text', async () => {
    const params = { body: [block('Hello '), block('world'), { _type: 'image' }], one: block('single') };
    expect(await run('pt::text($body)', { params })).toBe('Hello \n\nworld');
    expect(await run('pt::text($one)', { params })).toBe('single');
    expect(await run('pt::text("text")', { params })).toBeNull();
    expect(await run('[pt($one) != null, pt($body), pt(1)]', { params })).toEqual([true, null, null]);
  });

  it('sanity:: functions tell drafts and release versions of a document', async () => {
    const dataset = [{ _id: 'x' }, { _id: 'drafts.x' }, { _id: 'versions.r1.x' }, { _id: 'y' }];
    expect(await run('*[sanity::versionOf("x")]._id', { dataset })).toEqual(['x', 'drafts.x', 'versions.r1.x']);
    expect(await run('*[sanity::partOfRelease("r1")]._id', { dataset })).toEqual(['versions.r1.x']);
  });

  it('releases::all() lists release documents', async () => {
    const dataset = [{ _id: '_.releases.r1', _type: 'system.release' }, { _id: 'x', _type: 'post' }];
    expect(await run('releases::all()[]._id', { dataset })).toEqual(['_.releases.r1']);
  });

  it('diff:: functions compare what a selector picks', async () => {
    const params = { a: { t: 1, u: [{ n: 1 }, { n: 2 }], s: 'x' }, b: { t: 2, u: [{ n: 1 }, { n: 3 }], s: 'x' } };
    expect(await run('diff::changedAny($a, $b, t)', { params })).toBe(true);
    expect(await run('diff::changedAny($a, $b, s)', { params })).toBe(false);
    expect(await run('diff::changedAny($a, $b, u[n == 1].n)', { params })).toBe(false);
    expect(await run('diff::changedAny($a, $b, u[].n)', { params })).toBe(true);
    expect(await run('diff::changedOnly($a, $b, (t, u))', { params })).toBe(true);
    expect(await run('diff::changedOnly($a, $b, t)', { params })).toBe(false);
    expect(await run('diff::changedAny($a, $b, anywhere(n == 3))', { params })).toBe(true);
  });

  it('geo:: functions accept geo() values, GeoJSON and {lat, lng}; anything else gives null', async () => {
    const params = {
      square: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] },
      inside: { lat: 5, lng: 5 },
      outside: { lat: 50, lng: 50 },
    };
    expect(await run('geo($inside)', { params })).toEqual({ type: 'Point', coordinates: [5, 5] });
    expect(await run('geo::contains(geo($square), $inside)', { params })).toBe(true);
    expect(await run('geo::contains($square, $outside)', { params })).toBe(false);
    expect(await run('geo::intersects($square, geo::latLng(5, 5))', { params })).toBe(true);
    expect(await run('geo::distance(geo::latLng(0, 0), geo::latLng(0, 0))', { params })).toBe(0);
    expect(await run('[geo(1), geo::contains($square, "x"), geo::latLng("a", 1), geo::distance($square, $inside)]', { params })).toEqual([null, null, null, null]);
  });
});
