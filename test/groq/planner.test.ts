import { describe, expect, it } from 'vitest';
import {
  createMemorySource,
  describePlan,
  evaluate,
  execute,
  parse,
  PENDING,
  planQuery,
  prepare,
  QueryTrace,
  requestKey,
  type DocumentSource,
  type FieldPath,
  type ScanAnswer,
  type ScanRequest,
} from '../../src/groq/index.ts';
import { DOCS } from './helpers.ts';
import { Path } from '../../src/groq/evaluator/values.ts';

const plan = (query: string) =>
  describePlan(planQuery(parse(query)), query).scans.map((scan) => ({ ...scan, fields: Array.isArray(scan.fields) ? [...scan.fields].sort() : scan.fields }));

/** A memory source that records the scan requests it answers; with `summaries`, it also sums numbers (DocumentSource.numbers). */
function recordingSource(
  documents: readonly unknown[],
  pageSize = 1000,
  summaries = false,
): DocumentSource & { requests: ScanRequest[]; valuesAt: FieldPath[]; summarized: FieldPath[] } {
  const inner = createMemorySource(documents, { prune: true, pageSize });
  const requests: ScanRequest[] = [];
  const valuesAt: FieldPath[] = [];
  const summarized: FieldPath[] = [];
  return {
    requests,
    valuesAt,
    summarized,
    ...(summaries && {
      async numbers(request: ScanRequest, path: FieldPath) {
        requests.push(request);
        const summary = await inner.numbers!(request, path);
        if (summary) summarized.push(path);
        return summary;
      },
    }),
    documents: () => inner.documents(),
    getDocument: (id) => inner.getDocument(id),
    scan(request) {
      requests.push(request);
      return inner.scan!(request);
    },
    pages(request) {
      requests.push(request);
      return inner.pages!(request);
    },
    async values(request, path) {
      requests.push(request);
      const pages = await inner.values!(request, path);
      if (pages) valuesAt.push(path);
      return pages;
    },
  };
}

describe('query planner: what it pushes down', () => {
  it('splits a filter into constraints and the conjuncts it cannot say', () => {
    const [scan] = plan('*[_type == "post" && views > $min && title match "E*" && length(title) > 1 && !(_id in path("drafts.**"))]');
    expect(scan).toMatchObject({
      constraints: ['_type == "post"', 'views > $min', 'title match "E*"', '!(_id in path("drafts.**"))'],
      evaluated: ['length(title) > 1'],
      order: null,
      range: null,
      count: false,
    });
  });

  it('takes order(), slices, elements and count() with the scan, and merges consecutive filters', () => {
    expect(plan('*[_type == "post"] | order(views desc)[0...2]{title}')[0]).toMatchObject({ order: 'views desc', orderable: true, range: '[0...2]' });
    expect(plan('*[_type == "post"]{title}[1]')[0]).toMatchObject({ range: '[1...2]' });
    expect(plan('count(*[_type == "post"]{title})')[0]).toMatchObject({ count: true, fields: [] });
    expect(plan('*[_type == "post"][views > 1]')[0]).toMatchObject({ constraints: ['_type == "post"', 'views > 1'] });
    expect(plan('*[_type == "post"] | order(lower(title))[0]')[0]).toMatchObject({ order: 'lower(title)', orderable: false });
  });

  it('reads `[]` of the dataset, of a filter, an order or a slice of it as what it traverses, and `[]` of an element as null', async () => {
    // `*[][90000...90010]` read every document of the dataset in one statement, then sliced them.
    expect(plan('*[][1...3]._id')).toEqual([expect.objectContaining({ range: '[1...3]', constraints: [] })]);
    expect(plan('count(*[][_type == "post"])')).toEqual([expect.objectContaining({ count: true, constraints: ['_type == "post"'] })]);
    expect(plan('*[_type == "post"][] | order(views desc)[][0...2][]{title}')).toEqual([expect.objectContaining({ order: 'views desc', range: '[0...2]' })]);
    expect(plan('*[][0]')).toEqual([expect.objectContaining({ range: '[0]' })]);
    const queries = ['*[][1...3]._id', 'count(*[][_type == "post"])', '*[_type == "post"][] | order(views desc)[][0...2][]{title}', '*[][0]', '*[0][]', '*[][0][]', 'count(*[0][])', '*[]'];
    for (const query of queries) expect(await evaluate(query, { dataset: DOCS }), query).toEqual(await evaluate(query, { dataset: DOCS, planner: false }));
    expect(await evaluate('*[0][]', { dataset: DOCS })).toBeNull();
  });

  it('binds values that do not read the element: parameters, ^ and subqueries', () => {
    const scans = plan('*[_type == "author"]{"posts": *[references(^._id) && _type in *[_id == "x"]._type && views > @.n]}');
    expect(scans.map((s) => s.constraints)).toEqual([['_type == "author"'], ['references(^._id)', '_type in *[_id == "x"]._type'], ['_id == "x"']]);
    expect(scans[1]!.evaluated).toEqual(['views > @.n']);
  });

  it('records the fields each scan reads, or * when documents escape whole', () => {
    expect(plan('*[_type == "post"]{title, "a": author->name}')[0]!.fields).toEqual(['author._ref', 'title']);
    expect(plan('*[_type == "post"]{..., "a": 1}')[0]!.fields).toBe('*');
    expect(plan('*[_type == "post"]')[0]!.fields).toBe('*');
    expect(plan('*[_type == "post"][0].title.en')[0]!.fields).toEqual(['title.en']);
    // The outer scan's _id is read by the subquery's binding.
    expect(plan('*[_type == "author"]{name, "n": count(*[references(^._id)])}')[0]!.fields).toEqual(['_id', 'name']);
    // A conjunct no source can apply is always evaluated: its fields are read.
    expect(plan('*[_type == "post" && length(title) > 3]._id')[0]!.fields).toEqual(['_id', 'title']);
    // A constraint's are asked for with it, for a source that does not apply it.
    expect(plan('*[_type == "post" && title match "x"]._id')[0]!.fields).toEqual(['_id']);
    expect(plan('*[_type == "post"] | score(title match "x")')[0]!.fields).toBe('*');
  });
});

describe('query planner: evaluation', () => {
  const cases = [
    '*[_type == "post" && views > 5] | order(views desc)[0...1]{title, "a": author->name}',
    '*[_type == "author"]{name, "posts": *[references(^._id)] | order(_id)[0...3]{title}, "n": count(*[author._ref == ^._id])}',
    'count(*[_type == "post" && defined(views)])',
    '*[_id in ["p1", "a2", "zz"]]._id',
    '*[!(_id in path("drafts.**"))] | order(_id desc)[1..2]._id',
    '*[views in 10..30 || name == "Ada"]._id',
    'math::sum(*[_type == "post"].views)',
    '*[_type == "post" && title match "E*"]{title}',
    '*[_type == "post"] | order(views)[-1]._id',
  ];

  it.each(cases)('gives the unplanned result for %s', async (query) => {
    const expected = await evaluate(query, { dataset: DOCS, planner: false });
    expect(await evaluate(query, { source: recordingSource(DOCS, 1) })).toEqual(expected);
    expect(await evaluate(query, { dataset: DOCS })).toEqual(expected);
  });

  it('lets the source apply, window and count what the request allows', async () => {
    const source = recordingSource(DOCS);
    const trace = new QueryTrace();
    expect(await evaluate('*[_type == "post" && views > 5] | order(views desc)[0...1]._id', { source, trace })).toEqual(['p2']);
    expect(source.requests[0]).toMatchObject({ complete: true, window: { start: 0, end: 1 }, order: [{ path: ['views'], descending: true }], count: false });
    expect(trace.scans.get(0)).toMatchObject({ evaluations: 1, windowed: 1, applied: [1, 1], candidates: 1 });

    const counted = recordingSource(DOCS);
    expect(await evaluate('count(*[_type == "post"])', { source: counted })).toBe(3);
    expect(counted.requests[0]).toMatchObject({ count: true, complete: true });

    // A residual conjunct: the source may not window (or count) for the evaluator.
    const partial = recordingSource(DOCS);
    const partialTrace = new QueryTrace();
    expect(await evaluate('*[_type == "post" && lower(title) match "c*"][0]._id', { source: partial, trace: partialTrace })).toBe('p2');
    expect(partial.requests[0]).toMatchObject({ complete: false });
    expect(partialTrace.scans.get(0)).toMatchObject({ windowed: 0, candidates: 3, matched: 1 });
  });

  it('evaluates the conjuncts a source leaves, on the candidates it returns', async () => {
    // A source that applies nothing: every document is a candidate.
    const lazy: DocumentSource = {
      documents: () => DOCS,
      getDocument: () => null,
      scan: (request) => ({ documents: DOCS, applied: request.constraints.map(() => false), windowed: false }),
    };
    const query = '*[_type == "post" && views >= 10] | order(views desc)[0]._id';
    expect(await evaluate(query, { source: lazy })).toBe('p2');
    expect(await evaluate('count(*[_type == "author"])', { source: lazy })).toBe(2);
  });

  it('evaluates the original expression for sources without scan()', async () => {
    let scans = 0;
    const plain: DocumentSource = { documents: () => (scans++, DOCS), getDocument: () => null };
    expect(await evaluate('count(*[_type == "post"])', { source: plain })).toBe(3);
    expect(scans).toBe(1);
  });

  it('streams a result made document by document, a page at a time', async () => {
    const source = recordingSource(DOCS, 2);
    const trace = new QueryTrace();
    const output = await execute('*[views > 0]{_id, "t": title}', { source, trace });
    expect(output.kind).toBe('items');
    const items: unknown[] = [];
    if (output.kind === 'items') for await (const item of output.items) items.push(item);
    expect(items).toEqual([
      { _id: 'p1', t: 'Engines' },
      { _id: 'p2', t: 'Compilers' },
    ]);
    expect(trace.pages).toBe(1);
    const all = await execute('*{_id}', { source: recordingSource(DOCS, 2), trace: new QueryTrace() });
    expect(all.kind).toBe('items');
    // Aggregates over a streamed scan and counts a source cannot do are values.
    expect(await execute('math::sum(*[_type == "post"].views)', { source: recordingSource(DOCS, 1) })).toEqual({ kind: 'value', value: 40 });
    expect(await execute('count(*[title match "*"])', { source: recordingSource(DOCS, 1) })).toEqual({ kind: 'value', value: 3 });
    // Ordered or sliced results need every candidate first: not streamed.
    expect((await execute('*[_type == "post"] | order(_id)', { source: recordingSource(DOCS) })).kind).toBe('value');
  });

  it('prepares a query once: its plan, executors and stream go with it to any source', async () => {
    const query = 'math::sum(*[_type == "post"].views)';
    const prepared = prepare(query);
    expect(prepared.compiled.stream).toMatchObject({ kind: 'aggregate', scan: 0 });
    expect(describePlan(prepared.tree, query).scans.map((scan) => scan.expression)).toEqual(['*[_type == "post"]']);
    for (const pageSize of [1, 2, 1000]) expect(await evaluate(prepared, { source: recordingSource(DOCS, pageSize) })).toBe(40);
    expect(await evaluate(prepared, { dataset: DOCS })).toBe(40);
    expect(prepare(query, { planner: false }).compiled.stream).toBeNull();
  });

  it('lets an aggregate whose value does not depend on order take its items in any order', async () => {
    // Added in dataset order, 1e16 + 1 + 1 is 1e16; the memory source hands unordered pages out
    // backwards, where 1 + 1 + 1e16 is 1e16 + 2.
    const docs = ['a', 'b', 'c'].map((id, i) => ({ _id: id, _type: 'n', x: i === 0 ? 1e16 : 1 }));
    const asked = async (query: string, documents: readonly unknown[]) => {
      const source = recordingSource(documents, 1);
      const value = await evaluate(query, { source });
      return { value, unordered: source.requests.map((request) => request.unordered === true) };
    };
    expect(await asked('math::min(*[_type == "n"].x)', docs)).toEqual({ value: 1, unordered: [true] });
    expect(await asked('math::sum(*[_type == "post"].views)', DOCS)).toEqual({ value: 40, unordered: [true] });
    // Not exact in any order: asked again in dataset order.
    expect(await asked('math::sum(*[_type == "n"].x)', docs)).toEqual({ value: 1e16, unordered: [true, false] });
    expect(await asked('array::unique(*[_type == "n"].x)', docs)).toEqual({ value: [1e16, 1], unordered: [false] });
  });

  it('takes an aggregate of one path\'s values from the source as values, not documents', async () => {
    const docs = [
      { _id: 'a', _type: 'n', x: { y: 2 }, z: 1 },
      { _id: 'b', _type: 'n', x: { y: 3 } },
      { _id: 'c', _type: 'n', x: null },
      { _id: 'd', _type: 'm', x: { y: 100 } },
    ];
    const asked = async (query: string) => {
      const source = recordingSource(docs, 1);
      const trace = new QueryTrace();
      const value = await evaluate(query, { source, trace });
      return { value, valuesAt: source.valuesAt, pages: trace.pages };
    };
    // Nested paths too; documents without a value there (c) contribute nothing, as their null would not.
    expect(await asked('math::sum(*[_type == "n"].x.y)')).toEqual({ value: 5, valuesAt: [['x', 'y']], pages: 2 });
    expect(await asked('math::avg(*[_type == "n"].x.y)')).toEqual({ value: 2.5, valuesAt: [['x', 'y']], pages: 2 });
    expect(await asked('math::max(*[_type == "n"].z)')).toEqual({ value: 1, valuesAt: [['z']], pages: 1 });
    // An object among the values makes the sum null, in any order.
    expect(await asked('math::sum(*[_type == "n"].x)')).toMatchObject({ value: null, valuesAt: [['x']] });
    // Items that are not one path's values, or a filter the source cannot apply whole, take documents.
    expect(await asked('math::sum(*[_type == "n"]{"v": x.y * 2}.v)')).toMatchObject({ value: 10, valuesAt: [] });
    expect(await asked('math::sum(*[_type == "n" && length(_id) == 1].x.y)')).toMatchObject({ value: 5, valuesAt: [] });
    // So do functions that do not take their items in any order, and may keep nulls.
    expect(await asked('array::unique(*[_type == "n"].z)')).toMatchObject({ value: [1, null], valuesAt: [] });
  });

  it('takes a math:: aggregate of one path\'s numbers from the source as their summary, where that tells its value', async () => {
    const docs = [
      { _id: 'a', _type: 'i', n: 4, f: 0.5, s: 1, big: 2 ** 53 - 1 },
      { _id: 'b', _type: 'i', n: -9, f: 0.25, s: 'two', big: 1 },
      { _id: 'c', _type: 'i', n: null, big: 1 },
      { _id: 'd', _type: 'i', big: -1 },
    ];
    const asked = async (query: string) => {
      const source = recordingSource(docs, 1000, true);
      const trace = new QueryTrace();
      const value = await evaluate(query, { source, trace });
      return { value, summarized: source.summarized.length, valuesAt: source.valuesAt.length, pages: trace.pages };
    };
    // Integers: every function from the summary alone, no page read.
    expect(await asked('math::sum(*[_type == "i"].n)')).toEqual({ value: -5, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::avg(*[_type == "i"].n)')).toEqual({ value: -2.5, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::min(*[_type == "i"].n)')).toEqual({ value: -9, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::max(*[_type == "i"].n)')).toEqual({ value: 4, summarized: 1, valuesAt: 0, pages: 0 });
    // Fractions: the bounds still come from the summary; a sum in another order might differ, so the
    // values are read (a page), and not being exact in any order, the documents in dataset order (another).
    expect(await asked('math::max(*[_type == "i"].f)')).toEqual({ value: 0.5, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::sum(*[_type == "i"].f)')).toEqual({ value: 0.75, summarized: 1, valuesAt: 1, pages: 2 });
    // So are integers whose magnitudes add up past 2^53 - 1: (2^53 - 1) + 1 + 1 - 1 rounds in dataset order.
    expect(await asked('math::sum(*[_type == "i"].big)')).toEqual({ value: 2 ** 53 - 1, summarized: 1, valuesAt: 1, pages: 2 });
    // A value that is not a number makes every one of them null; no value at all, an empty sum.
    expect(await asked('math::sum(*[_type == "i"].s)')).toEqual({ value: null, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::min(*[_type == "i"].s)')).toEqual({ value: null, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::sum(*[_type == "i"].none)')).toEqual({ value: 0, summarized: 1, valuesAt: 0, pages: 0 });
    expect(await asked('math::avg(*[_type == "i"].none)')).toEqual({ value: null, summarized: 1, valuesAt: 0, pages: 0 });
    // Not for other functions, nor for items that are not one path's values.
    expect(await asked('array::unique(*[_type == "i"].n)')).toMatchObject({ value: [4, -9, null], summarized: 0 });
    expect(await asked('math::sum(*[_type == "i"]{"v": n * 2}.v)')).toMatchObject({ value: -10, summarized: 0 });
  });

  it('waits for an asynchronous source, asking each round of scans in one batch', async () => {
    const inner = createMemorySource(DOCS);
    const asked: ScanRequest[][] = [];
    let round: ScanRequest[] = [];
    const answers = new Map<string, ScanAnswer>();
    const source: DocumentSource = {
      documents: () => PENDING,
      getDocument: (id) => inner.getDocument(id),
      scan(request) {
        const answer = answers.get(requestKey(request));
        if (answer) return answer;
        round.push(request);
        return PENDING;
      },
      async load() {
        asked.push(round);
        for (const request of round) answers.set(requestKey(request), inner.scan!(request) as ScanAnswer);
        round = [];
      },
    };
    const result = await evaluate('*[_type == "author"] | order(_id) {name, "n": count(*[references(^._id)])}', { source, planner: true });
    expect(result).toEqual([
      { name: 'Ada', n: 1 },
      { name: 'Grace', n: 2 },
    ]);
    // The authors, then both subqueries at once.
    expect(asked.map((requests) => requests.length)).toEqual([1, 2]);
  });

  it('keys requests by GROQ type: a datetime is not its text', () => {
    const base: ScanRequest = { scan: 0, constraints: [], constraintFields: [], complete: true, order: null, window: null, count: false, fields: null };
    const at = (value: unknown): ScanRequest => ({ ...base, constraints: [{ kind: 'compare', path: ['t'], op: '>', value }] });
    const text = '2020-01-01T00:00:00Z';
    expect(requestKey(at(text))).not.toBe(requestKey(at(parseDateTime(text))));
    expect(requestKey(at(text))).toBe(requestKey(at(text)));
    // A path inside a list, as `_id in path("drafts.**")` or an `in [...]` constraint holds it.
    expect(requestKey(at(['drafts.**']))).not.toBe(requestKey(at([new Path('drafts.**')])));
    // What is bound per evaluation: the scan, its window, its constraints' values.
    expect(requestKey({ ...at(text), scan: 1 })).not.toBe(requestKey(at(text)));
    expect(requestKey({ ...at(text), window: { start: 0, end: 3 } })).not.toBe(requestKey({ ...at(text), window: { start: 0, end: 2 } }));
    expect(requestKey({ ...at(text), window: { start: 0, end: 3 } })).not.toBe(requestKey(at(text)));
  });
});

/** A GROQ datetime value, as dateTime() makes it. */
function parseDateTime(text: string): unknown {
  // evaluate() turns datetimes into text; the value inside a run is what a request carries.
  let captured: unknown;
  const source: DocumentSource = {
    documents: () => [],
    getDocument: () => null,
    scan(request) {
      captured = (request.constraints[0] as { value: unknown }).value;
      return { documents: [], applied: [true], windowed: false };
    },
  };
  void evaluate(`*[t > dateTime("${text}")]`, { source });
  return captured;
}
