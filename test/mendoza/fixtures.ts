// A realistic stored document: an article with a Portable Text body of about 4.7 KB in all (as JSON).
export const SENTENCES = [
  'The quick brown fox jumps over the lazy dog while the farmer watches from the porch.',
  'Content modelling starts with the questions editors ask, not with the pages designers draw.',
  'A headless CMS stores structured content and lets every channel decide how to present it.',
  'Portable Text keeps rich text as data, so a paragraph can be rendered anywhere.',
  'Revisions let an editor see who changed what, and when, and undo it if needed.',
];

/** The article with `blocks` paragraphs in its body (10: about 4.7 KB). */
export function article(blocks = 10): Record<string, unknown> {
  const body = Array.from({ length: blocks }, (_, b) => ({
    _key: `block${b}`,
    _type: 'block',
    style: b % 5 === 0 ? 'h2' : 'normal',
    markDefs: b % 3 === 0 ? [{ _key: `link${b}`, _type: 'link', href: `https://example.com/articles/${b}` }] : [],
    children: [
      { _key: `span${b}a`, _type: 'span', marks: [], text: `${SENTENCES[b % 5]} ${SENTENCES[(b + 2) % 5]}` },
      { _key: `span${b}b`, _type: 'span', marks: b % 3 === 0 ? [`link${b}`] : ['strong'], text: `Paragraph ${b} ends here.` },
    ],
  }));
  return {
    _id: 'drafts.article-2024-headless',
    _type: 'article',
    _rev: 'Xq3bY9kLmN0pR2sT4uV6wZ',
    _createdAt: '2024-03-01T09:12:44Z',
    _updatedAt: '2024-03-04T16:05:10Z',
    title: 'Why structured content outlives every redesign',
    slug: { _type: 'slug', current: 'why-structured-content-outlives-every-redesign' },
    author: { _type: 'reference', _ref: 'author-ada' },
    categories: [
      { _key: 'c1', _type: 'reference', _ref: 'category-cms' },
      { _key: 'c2', _type: 'reference', _ref: 'category-architecture' },
    ],
    publishedAt: '2024-03-05T08:00:00Z',
    body,
  };
}
