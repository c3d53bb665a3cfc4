import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
/**
 * A deterministic, realistic dataset for benchmarks (the bars in docs/benchmarks.md): posts of about 4.4 KB with
 * localized titles, slugs, a publishedAt date, view counts, an author and categories as references
 * and a Portable Text body; authors and categories; about 10% of the documents are drafts.
 */
export interface Document {
  _id: string;
  _type: string;
  [key: string]: unknown;
}

const WORDS = (
  'content lake query index draft publish schedule revision asset image webhook dataset project editor ' +
  'viewer token stream cursor planner reference author category slug title body block span mark link ' +
  'market river mountain garden coffee window morning evening summer winter travel recipe music light'
).split(' ');

/** mulberry32: a small, fast, seedable PRNG. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const CATEGORY_COUNT = 20;
/** One author per this many posts. */
export const POSTS_PER_AUTHOR = 50;

export function authorId(n: number): string {
  return `author-${String(n).padStart(5, '0')}`;
}

export function postId(n: number): string {
  return `post-${String(n).padStart(7, '0')}`;
}

/** `count` documents in all: authors and categories first, then posts (every tenth a draft). */
export function* generateDataset(count: number, seed = 42): Generator<Document> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const sentence = (words: number) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const authors = Math.max(1, Math.floor(count / (POSTS_PER_AUTHOR + 1)));
  const categories = Math.min(CATEGORY_COUNT, Math.max(1, count - authors));
  let produced = 0;
  for (let i = 0; i < categories && produced < count; i++, produced++) {
    yield { _id: `category-${String(i).padStart(3, '0')}`, _type: 'category', title: { en: sentence(2), nb: sentence(2) } };
  }
  for (let i = 0; i < authors && produced < count; i++, produced++) {
    yield { _id: authorId(i), _type: 'author', name: sentence(2), slug: { _type: 'slug', current: `author-${i}` }, bio: sentence(30) };
  }
  for (let i = 0; produced < count; i++, produced++) {
    const body = Array.from({ length: 6 }, (_, b) => ({
      _key: `b${i}-${b}`,
      _type: 'block',
      style: b === 0 ? 'h2' : 'normal',
      markDefs: [],
      children: [{ _key: `s${i}-${b}`, _type: 'span', marks: [], text: sentence(78) }],
    }));
    const day = Math.floor(next() * 3650);
    yield {
      _id: i % 10 === 9 ? `drafts.${postId(i - 1)}` : postId(i),
      _type: 'post',
      title: { _type: 'localeString', en: sentence(6), nb: sentence(6), de: sentence(6) },
      slug: { _type: 'slug', current: `post-${i}` },
      publishedAt: new Date(Date.UTC(2015, 0, 1) + day * 86_400_000).toISOString(),
      views: Math.floor(next() * 100_000),
      featured: next() < 0.05,
      author: { _type: 'reference', _ref: authorId(Math.floor(next() * authors)) },
      categories: Array.from({ length: 1 + Math.floor(next() * 3) }, (_, c) => ({
        _key: `c${c}`,
        _type: 'reference',
        _ref: `category-${String(Math.floor(next() * categories)).padStart(3, '0')}`,
      })),
      body,
    };
  }
}

/** Writes `count` generated documents to `path` as NDJSON, as an import reads them. */
export async function writeDatasetNdjson(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  for (const document of generateDataset(count)) {
    if (!out.write(`${JSON.stringify(document)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
