// fast-check generators aimed at the query planner: datasets whose values sit on the edges of the
// document index (long strings, surrogates, -0, mixed types, nested references, dotted keys,
// drafts) and queries made of what the planner pushes down (ids, types, references, comparisons,
// ranges, defined(), negations, orders, slices, counts, subqueries with ^, projections).
import fc from 'fast-check';

const LONG = 'x'.repeat(170);
// Texts for `match` too: dots inside and at word edges, case, letters whose upper case is ASCII
// (U+017F) or that fold only with the `u` flag (the Kelvin sign), text past what the index holds.
const STRINGS = ['a', 'b', 'B', 'alpha', 'beta', '', 'é', '\u{1F600}', '\uE000', 'a\uFFFF', `${LONG}a`, `${LONG}b`, 'post', 'author', 'd1', 'drafts.d1', 'Alpha.Beta', 'cof.fee', 'CAFÉ bar.', '\u017Ftop \u212Aelvin'];
const string = fc.constantFrom(...STRINGS);
const number = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(-0, 0.5, -1.5, 1e21, 2 ** 53 + 2, -1e-7));
const scalar = fc.oneof(string, number, fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.constantFrom([], [1], {}, { a: 1 }) });

export const PLANNER_PARAMS = { s: 'a', n: 1, ids: ['d1', 'd3', 'drafts.d2'], t: 'post', long: `${LONG}a`, none: null };

const ID_POOL = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'drafts.d1', 'drafts.d2', 'x.y.z'];

/** Datasets of up to 9 documents, sorted by _id (the store's dataset order). */
export const plannerDataset: fc.Arbitrary<Record<string, unknown>[]> = fc
  .uniqueArray(fc.constantFrom(...ID_POOL), { minLength: 1, maxLength: 9 })
  .chain((ids) => {
    const ref = fc.constantFrom(...ID_POOL, 'missing').map((id) => ({ _type: 'reference', _ref: id }));
    const doc = fc.record(
      {
        _type: fc.constantFrom('post', 'author', 'tag'),
        n: number,
        s: string,
        v: value,
        b: fc.boolean(),
        obj: fc.record({ n: number, s: string, v: value, deep: fc.record({ x: scalar }, { requiredKeys: [] }) }, { requiredKeys: [] }),
        ref,
        refs: fc.array(ref, { maxLength: 2 }),
        // A reference inside a reference is not one for references().
        wrapped: ref.map((r) => ({ ...r, inner: { _ref: 'd6' } })),
        tags: fc.array(string, { maxLength: 2 }),
        'dotted.key': scalar,
        nested: fc.record({ _type: string, _key: string, ok: scalar }, { requiredKeys: [] }),
      },
      { requiredKeys: ['_type'] },
    );
    return fc.array(doc, { minLength: ids.length, maxLength: ids.length }).map((docs) =>
      JSON.parse(JSON.stringify(docs.map((d, i) => ({ _id: ids[i], ...d })).sort((a, b) => (a._id! < b._id! ? -1 : a._id! > b._id! ? 1 : 0)))) as Record<string, unknown>[],
    );
  });

const literal = fc.oneof(
  string.map((s) => JSON.stringify(s)),
  number.map((n) => (Object.is(n, -0) ? '-0' : String(n))),
  fc.constantFrom('true', 'false', 'null', '[1, "a"]', '$s', '$n', '$long', '$none', 'dateTime("2020-01-01T00:00:00Z")'),
);
const path = fc.constantFrom('n', 's', 'v', 'b', 'obj.n', 'obj.s', 'obj.v', 'obj.deep.x', 'obj', 'ref._ref', 'refs', 'tags', 'missing', '_type', '_id', '@["dotted.key"]', 'nested._type', 'nested.ok', 'wrapped._ref');
const op = fc.constantFrom('==', '!=', '<', '<=', '>', '>=');

/** Filter conjuncts, mostly pushable. */
export const plannerPredicate: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(path, op, literal).map(([a, o, b]) => `${a} ${o} ${b}`),
    fc.tuple(literal, op, path).map(([a, o, b]) => `${a} ${o} ${b}`),
    fc.tuple(path, fc.constantFrom('[1, 2]', '["a", "b", null]', '$ids', '["post", "tag"]', '[]', 'path("drafts.**")', 'path("d*")', 'path("x.**")', 'path("**")', 'path("d1")', '"a"')).map(([a, b]) => `${a} in ${b}`),
    fc.tuple(path, literal, literal, fc.constantFrom('..', '...')).map(([a, lo, hi, r]) => `${a} in ${lo}${r}${hi}`),
    path.map((a) => `defined(${a})`),
    fc.constantFrom('references("d1")', 'references(["d2", "d6"])', 'references($ids)', 'references("missing")', 'references([])', '_type == $t', '_id in $ids', '!(_id in path("drafts.**"))'),
    tie('p').map((a) => `!(${a})`),
    fc.tuple(tie('p'), fc.constantFrom('&&', '||'), tie('p')).map(([a, o, b]) => `(${a} ${o} ${b})`),
    fc
      .tuple(
        fc.constantFrom('s', 'obj.s', 'tags', 'n', 'missing', 'obj', '_type', '@["dotted.key"]'),
        fc.constantFrom('"a*"', '"alpha"', '"ALP*"', '"*"', '"be*ta"', '"é"', '"É"', '"café"', '"drafts.d1"', '"x*b"', '"coffee"', '"stop"', '"kelvin"', '"beta.alpha"', '["a", "b"]', '$s', '1', '""'),
      )
      .map(([a, pattern]) => `${a} match ${pattern}`),
    fc.constantFrom('count(refs) > 0', 'length(s) > 1', '@.n == ^.n', 'tags[0] == "alpha"', 'refs[1]._ref == "d1"', 'defined(v[0])', 'tags[1] match "a*"'),
  ),
})).p;

const projection = fc.constantFrom('', '{_id}', '{_id, n, "d": obj.deep.x}', '{_id, "r": ref->_id, "s": s}', '{...}', '{_id, obj}', '._id', '.obj.n', '{"t": _type, "l": tags}', '{_id, "w": wrapped}',
  // Elements by index: a source may read just those (fields.ts); on strings, objects, scalars they are null.
  '{_id, "t0": tags[0], "r1": refs[1]._ref, "s0": s[0], "o0": obj[0], "v0": v[0], "v00": v[0][0], "t9": tags[9]}',
  '{"f": refs[0]->_id, "tl": tags[-1], "t1": tags[1], "n0": nested[0]}',
);
const orderTerm = fc.tuple(fc.constantFrom('n', 's', 'v', 'b', 'obj.n', 'obj.s', '_id', '_type', 'missing', 'obj', 'lower(s)', 'tags[0]'), fc.constantFrom('', ' asc', ' desc'));
const slice = fc.oneof(
  fc.constant(''),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom('..', '...')).map(([a, b, r]) => `[${a}${r}${b}]`),
  fc.constantFrom('[0]', '[2]', '[-1]', '[-2..-1]', '[$n...3]'),
);

/** Whole queries whose scans the planner plans. */
export const plannerQuery: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.array(plannerPredicate, { minLength: 0, maxLength: 3 }), projection).map(([ps, proj]) => `*${ps.length > 0 ? `[${ps.join(' && ')}]` : ''}${proj}`),
  fc.tuple(plannerPredicate, fc.array(orderTerm, { minLength: 1, maxLength: 2 }), slice, projection).map(
    ([p, terms, s, proj]) => `*[${p}] | order(${terms.map(([t, d]) => t + d).join(', ')})${s}${proj}`,
  ),
  fc.tuple(plannerPredicate, slice, projection).map(([p, s, proj]) => `*[${p}]${s}${proj}`),
  fc.tuple(plannerPredicate, slice).map(([p, s]) => `count(*[${p}]${s})`),
  plannerPredicate.map((p) => `count(*[${p}])`),
  fc.tuple(plannerPredicate, plannerPredicate).map(([p, q]) => `*[${p}][${q}]._id`),
  fc.tuple(plannerPredicate, slice).map(([p, s]) => `*[_type == "author" || ${p}]{_id, "posts": *[references(^._id)]${s}{_id, n}, "c": count(*[ref._ref == ^._id && ${p}])}`),
  fc.tuple(plannerPredicate, orderTerm).map(([p, [t, d]]) => `*[${p}]{_id, "top": *[_type == ^._type && _id != ^._id] | order(${t}${d})[0...2]._id}`),
  // Whole documents per subquery in a value's order: the window's ids, then their documents, batched.
  fc.tuple(plannerPredicate, orderTerm).map(([p, [t, d]]) => `*[${p}]{_id, "top": *[_type == ^._type && _id != ^._id] | order(${t}${d})[0...2]}`),
  // Whole documents per subquery: on SQLite, rows of many subqueries come back in one JSON array.
  fc.tuple(plannerPredicate, slice).map(([p, s]) => `*[_type == "author" || ${p}]{_id, "posts": *[references(^._id)]${s}}`),
  plannerPredicate.map((p) => `{"a": *[${p}][0]._id, "b": count(*), "c": *[_id in *[${p}]._id]._id}`),
  // Aggregates that may take their items in any order (sums only while that is exact), or only
  // the first occurrence of each (array::unique).
  fc.tuple(plannerPredicate, fc.constantFrom('math::sum', 'math::avg', 'math::min', 'math::max', 'array::unique'), fc.constantFrom('n', 'v', 'obj.n', 'b')).map(([p, f, a]) => `${f}(*[${p}].${a})`),
  fc.constantFrom('math::sum(*[_type == "post"].n)', 'math::avg(*.n)', 'math::sum(*[defined(n)].n)', 'array::unique(*[_type == "post"].n)', 'array::unique(*[_type == "post"].obj.n)'),
);
