// fast-check generators for the differential tests: small datasets of related documents, and
// GROQ query texts built from the operators, traversals and functions of the language.
import fc from 'fast-check';

const TYPES = ['post', 'author', 'tag'];
const WORDS = ['alpha', 'Beta', 'gamma delta', 'fish', 'Fish-sticks', '', 'a', 'über'];
const FIELDS = ['n', 'x', 's', 'b', 'arr', 'tags', 'obj', 'ref', 'refs', 'missing'];
export const PARAMS = { num: 2, str: 'alpha', list: [1, 2, 3], id: 'd1' };

const number = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0.5, -1.25, 3.75, 100));
const word = fc.constantFrom(...WORDS);
const scalar = fc.oneof(number, word, fc.boolean(), fc.constant(null));

/** Documents d0..dN-1 (sorted by _id), each with optional fields, references between them. */
export const dataset: fc.Arbitrary<Record<string, unknown>[]> = fc.integer({ min: 2, max: 10 }).chain((count) => {
  const ref = fc.integer({ min: 0, max: Math.max(count, 1) }).map((i) => ({ _ref: `d${i}` }));
  const doc = fc.record(
    {
      _type: fc.constantFrom(...TYPES),
      n: number,
      x: scalar,
      s: word,
      b: fc.boolean(),
      arr: fc.array(number, { maxLength: 4 }),
      tags: fc.array(word, { maxLength: 3 }),
      obj: fc.record({ n: number, s: word, inner: fc.record({ b: fc.boolean() }) }, { requiredKeys: [] }),
      ref,
      refs: fc.array(ref, { maxLength: 3 }),
      items: fc.array(fc.record({ a: number, b: word, ref, items: fc.array(fc.record({ a: number }), { maxLength: 2 }) }, { requiredKeys: ['a'] }), { maxLength: 3 }),
      nested: fc.array(fc.array(number, { maxLength: 2 }), { maxLength: 3 }),
    },
    { requiredKeys: ['_type'] },
  );
  // Through JSON, as documents arrive (fast-check builds records without a prototype).
  return fc
    .array(doc, { minLength: count, maxLength: count })
    .map((docs) => JSON.parse(JSON.stringify(docs.map((d, i) => ({ _id: `d${i}`, ...d })))) as Record<string, unknown>[]);
});

const literal = fc.oneof(
  number.map((n) => String(n)),
  word.map((w) => JSON.stringify(w)),
  fc.constantFrom('true', 'false', 'null', '[1, 2]', '["alpha", "fish"]', '{"k": 1}'),
);
const field = fc.constantFrom(...FIELDS);
const param = fc.constantFrom(...Object.keys(PARAMS)).map((p) => `$${p}`);

const COMPARISONS = ['==', '!=', '<', '<=', '>', '>='];
const ARITHMETIC = ['+', '-', '*', '/', '%', '**'];
const UNARY_FUNCTIONS = ['count', 'defined', 'length', 'lower', 'upper', 'string', 'round', 'array::compact', 'array::unique', 'math::sum', 'math::min', 'math::max', 'math::avg', 'pt::text', 'dateTime', 'references'];
const BINARY_FUNCTIONS = ['coalesce', 'round', 'string::split', 'string::startsWith', 'array::join', 'array::intersects'];

/** Expressions evaluated in the scope of one document (inside a filter or a projection). */
export const { expression, predicate } = fc.letrec<{ expression: string; predicate: string }>((tie) => {
  const e = tie('expression');
  const p = tie('predicate');
  return {
    expression: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      literal,
      field,
      param,
      fc.constantFrom('@', '^._id', 'obj.n', 'obj.inner.b', 'ref->s', 'ref->_type', 'refs[]->n', 'arr[0]', 'arr[-1]', 'tags[1..2]', 'arr[0...2]', 'refs[]._ref'),
      fc.tuple(e, fc.constantFrom(...COMPARISONS, ...ARITHMETIC, '&&', '||'), e).map(([a, op, b]) => `(${a} ${op} ${b})`),
      // groq-js reads `x in (` as the start of a range and cannot parse `x in (a == b)`; an extra
      // pair of parentheses keeps such queries comparable.
      fc.tuple(e, e).map(([a, b]) => `(${a} in (${b}))`),
      fc.tuple(e, word).map(([a, w]) => `(${a} match ${JSON.stringify(w.split(' ')[0] + '*')})`),
      fc.tuple(e, fc.integer({ min: -2, max: 2 }), fc.integer({ min: -2, max: 4 })).map(([a, lo, hi]) => `(${a} in ${lo}..${hi})`),
      e.map((a) => `!(${a})`),
      e.map((a) => `-(${a})`),
      // array::unique of nulls is a listed deviation (differential.test.ts): its argument is compacted.
      fc.tuple(fc.constantFrom(...UNARY_FUNCTIONS), e).map(([f, a]) => (f === 'array::unique' ? `${f}(array::compact(${a}))` : `${f}(${a})`)),
      fc.tuple(fc.constantFrom(...BINARY_FUNCTIONS), e, e).map(([f, a, b]) => `${f}(${a}, ${b})`),
      fc.tuple(p, e, e).map(([c, a, b]) => `select(${c} => ${a}, ${b})`),
      fc.tuple(e, e).map(([a, b]) => `[${a}, ${b}]`),
      fc.tuple(e, e).map(([a, b]) => `{"p": ${a}, "q": ${b}}`),
      fc.tuple(field, p).map(([f, cond]) => `${f}[${cond}]`),
      fc.tuple(field, e).map(([f, a]) => `${f}[]{"v": ${a}}`),
      p.map((cond) => `count(*[${cond}])`),
      p.map((cond) => `*[${cond}]._id`),
    ),
    // Conditions that hold for some documents and not others, so that filters keep something.
    predicate: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('_type == "post"', '_type in ["author", "tag"]', 'n > 0', 'n <= $num', 'defined(x)', 'b', '!b', 'x == null', '"alpha" in tags', 'references($id)', 'ref._ref == "d0"', 's match "a*"', 'n in 0..3', 'count(refs) > 1', 'obj.n < 2', '_id == $id', 'ref->b', '@.s == ^.s'),
      fc.tuple(field, fc.constantFrom(...COMPARISONS), literal).map(([f, op, v]) => `${f} ${op} ${v}`),
      fc.tuple(p, fc.constantFrom('&&', '||'), p).map(([a, op, b]) => `(${a} ${op} ${b})`),
      p.map((a) => `!(${a})`),
      e,
    ),
  };
});

const STEPS = [
  '.a', '.b', '.items', '.nested', '.ref', '[]', '[0]', '[-1]', '[0..1]', '[1...3]', '[defined(a)]', '[a > 0]', '[@ > 1]',
  '{a, "k": b}', '{"x": items[].a}', '{...}', '{"up": ^._id, a}', '->', '.ref->', '| order(a)', '| order(a desc, b)', '.items[]', '.nested[]',
];

/** Chains of traversal steps: where arrays are mapped and flattened is the subtle part of GROQ. */
export const traversal: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('*', '*[0]', '*[_type == "post"]', '*.items', '*[].items[]', '$list', '*[0].nested'), fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 5 }))
  .map(([base, steps]) => base + steps.join(''));

/** Whole queries: filters, projections, ordering, slicing and scoring over the dataset. */
export const query: fc.Arbitrary<string> = fc.oneof(
  expression,
  traversal,
  traversal.map((t) => `*[_type == "author"]{_id, "t": ${t.replace(/^\*/, '@')}}`),
  predicate.map((cond) => `*[${cond}]`),
  fc.tuple(predicate, expression).map(([cond, value]) => `*[${cond}]{_id, "v": ${value}}`),
  fc.tuple(predicate, field, fc.constantFrom('asc', 'desc'), fc.integer({ min: 0, max: 3 })).map(
    ([cond, f, dir, n]) => `*[${cond}] | order(${f} ${dir}, _id)[0...${n}]._id`,
  ),
  fc.tuple(predicate, expression).map(([cond, value]) => `*[${cond}]{..., "v": ${value}, "author": ref->{_id, s}}`),
  fc.tuple(word, predicate).map(([w, cond]) => `*[_type == "post"] | score(s match ${JSON.stringify(w)}, boost(${cond}, 2)) {_id, _score}`),
  fc.tuple(predicate, expression).map(([cond, value]) => `*[_type == "author"]{_id, "posts": *[_type == "post" && ref._ref == ^._id && ${cond}]{_id, "v": ${value}}}`),
  predicate.map((cond) => `*[${cond}].tags[]`),
  predicate.map((cond) => `*[${cond}].refs[]->_id`),
  fc.tuple(predicate, predicate, expression).map(([cond, when, value]) => `*[${cond}]{_id, ...obj, ${when} => {"c": ${value}}}`),
  fc.tuple(predicate, fc.constantFrom('x', 'n', 's', 'tags', 'obj.n', 'ref->n'), fc.constantFrom('asc', 'desc')).map(
    ([cond, key, dir]) => `*[${cond}] | order(${key} ${dir}) {_id, "k": ${key}}`,
  ),
  fc.tuple(predicate, fc.integer({ min: -4, max: 4 }), fc.integer({ min: -4, max: 4 }), fc.constantFrom('..', '...')).map(
    ([cond, a, b, range]) => `*[${cond}][${a}${range}${b}]._id`,
  ),
  fc.tuple(fc.integer({ min: 1, max: 9 }), expression).map(([day, value]) => `dateTime("2020-01-0${day}T00:00:00Z") + ${value}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom(...COMPARISONS)).map(([day, op]) => `*[dateTime("2020-01-0" + string(n) + "T00:00:00Z") ${op} dateTime("2020-01-0${day}T00:00:00Z")]._id`),
  fc.constantFrom('*[_id in path("d*")]._id', '*[path(_id) in path("d*")]._id', '*.refs[]->refs[]->_id', '*{"r": refs[]->{_id, "rr": ref->ref->_id}}', '*[0..2]{_id}[1]'),
);
