// Parse and evaluate micro-benchmark: our GROQ engine against groq-js on the same in-memory data
// (a few thousand generated documents: posts with Portable Text bodies, authors, categories,
// ~10% drafts). Reports median times per query and how many times faster we are. Ours evaluates
// a query prepared once (parsed, planned, compiled), as the query endpoint does for a text it has
// seen; preparing is reported on its own.
//
//   npm run bench:groq              # 3,000 documents
//   BENCH_GROQ_DOCS=10000 npm run bench:groq
import * as groqJs from 'groq-js';
import { isDeepStrictEqual } from 'node:util';
import { createMemorySource, evaluate, parse, prepare } from '../src/groq/index.ts';
import { printTable, ratio } from './lib/report.ts';
import { medianMs } from './lib/measure.ts';

const DOCUMENTS = Number(process.env['BENCH_GROQ_DOCS'] ?? 3000);
/** Each measurement repeats until it has run this long (and at least MIN_RUNS times). */
const BUDGET_MS = 400;
const MIN_RUNS = 5;
/** Median milliseconds of `run`, after a warm-up. */
const median = (run: () => unknown) => medianMs(run, { warmups: 3, minRuns: MIN_RUNS, budgetMs: BUDGET_MS });

/** mulberry32: a small seeded generator, so that every run benchmarks the same documents. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(' ');

function generateDataset(count: number): unknown[] {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const authors = Math.max(1, Math.round(count * 0.02));
  const categories = Math.max(1, Math.round(count * 0.01));
  const docs: unknown[] = [];
  for (let i = 0; i < authors; i++) docs.push({ _id: `author-${i}`, _type: 'author', name: `Author ${i}`, bio: words(12) });
  for (let i = 0; i < categories; i++) docs.push({ _id: `category-${i}`, _type: 'category', title: `Category ${words(1)} ${i}` });
  for (let i = docs.length; i < count; i++) {
    const id = `post-${i}`;
    docs.push({
      _id: next() < 0.1 ? `drafts.${id}` : id,
      _type: 'post',
      title: { en: `${words(4)} ${i}`, nb: words(4) },
      headline: words(6),
      slug: { _type: 'slug', current: `post-${i}` },
      publishedAt: new Date(Date.UTC(2020, 0, 1) + Math.floor(next() * 1e11)).toISOString(),
      author: { _type: 'reference', _ref: `author-${Math.floor(next() * authors)}` },
      categories: Array.from({ length: 1 + Math.floor(next() * 3) }, (_, k) => ({ _key: `k${k}`, _type: 'reference', _ref: `category-${Math.floor(next() * categories)}` })),
      tags: Array.from({ length: Math.floor(next() * 4) }, () => pick(WORDS)),
      views: Math.floor(next() * 10000),
      featured: next() < 0.2,
      body: Array.from({ length: 3 + Math.floor(next() * 5) }, (_, b) => ({
        _key: `b${b}`,
        _type: 'block',
        style: 'normal',
        markDefs: [],
        children: [{ _key: `s${b}`, _type: 'span', marks: [], text: words(25) }],
      })),
    });
  }
  return docs;
}

const QUERIES: Record<string, string> = {
  'by id': '*[_id == "post-1234"][0]',
  'by slug': '*[_type == "post" && slug.current == "post-2345"][0]{_id, "title": title.en}',
  'page with derefs': '*[_type == "post" && !(_id in path("drafts.**"))] | order(publishedAt desc)[0...20]{_id, "title": title.en, "author": author->name, "categories": categories[]->title}',
  count: 'count(*[_type == "post"])',
  'published only': '*[_type == "post" && !(_id in path("drafts.**"))]._id',
  references: '*[references("author-3")]{_id}',
  'sum of views': 'math::sum(*[_type == "post"].views)',
  distinct: 'array::unique(*[_type == "post"].tags[])',
  match: '*[_type == "post" && headline match "lorem*"]{_id, headline}',
  'subquery per author': '*[_type == "author"]{name, "posts": *[_type == "post" && references(^._id)][0...3]{"title": title.en}}',
  'project all': '*[_type == "post"]{..., "authorName": author->name}',
  'pt::text': '*[_type == "post"][0...200]{"text": pt::text(body)}',
  score: '*[_type == "post"] | score(headline match "lorem", boost(featured, 2))[0...10]{_id, _score}',
};

const ms = (n: number): string => (n < 0.01 ? n.toFixed(4) : n < 1 ? n.toFixed(3) : n.toFixed(1));

async function main(): Promise<void> {
  const dataset = generateDataset(DOCUMENTS);
  const source = createMemorySource(dataset);
  const rows: (string | number)[][] = [];
  for (const [name, query] of Object.entries(QUERIES)) {
    const ours = prepare(query);
    const theirs = groqJs.parse(query);
    const oursResult = await evaluate(ours, { source });
    const theirsResult = await (await groqJs.evaluate(theirs, { dataset })).get();
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(oursResult)), JSON.parse(JSON.stringify(theirsResult)))) {
      throw new Error(`results differ for "${name}": ${query}`);
    }
    const parseOurs = await median(() => parse(query));
    const parseTheirs = await median(() => groqJs.parse(query));
    const prepareOurs = await median(() => prepare(query));
    const evalOurs = await median(() => evaluate(ours, { source }));
    const evalTheirs = await median(async () => (await groqJs.evaluate(theirs, { dataset })).get());
    rows.push([name, ms(parseOurs), ms(parseTheirs), ratio(parseTheirs, parseOurs), ms(prepareOurs), ms(evalOurs), ms(evalTheirs), ratio(evalTheirs, evalOurs)]);
  }
  printTable(
    `GROQ on ${dataset.length} documents (median ms; ratio = groq-js time / ours, above 1x means we are faster; prepare = parse, plan and compile)`,
    ['query', 'parse ours', 'parse groq-js', 'ratio', 'prepare ours', 'eval ours', 'eval groq-js', 'ratio'],
    rows,
  );
}

await main();
