// Reads that would be long single statements on SQLite (which reads on the server's thread) are
// cut into short ones with other requests served between them: a count over many documents, or a
// window whose filter matches few of the rows it reads (in id order or in a value's), in slices of
// rows; a subquery per document, in chunks. Through HTTP, on both engines: the answers are exactly those of the unplanned
// evaluation, and on SQLite they take several statements.
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/groq/index.ts';
import type { StoredDocument } from '../../src/store/index.ts';
import { useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const AUTHORS = 150;
/** More than two slices of a count (5,000 rows each). */
const POSTS = 10_200;

const documents: StoredDocument[] = [
  ...Array.from({ length: AUTHORS }, (_, i) => ({ _id: `author-${String(i).padStart(3, '0')}`, _type: 'author' })),
  ...Array.from({ length: POSTS }, (_, i) => ({
    _id: `post-${String(i).padStart(5, '0')}`,
    _type: i % 3 === 0 ? 'page' : 'post',
    // Authors get more posts the higher their number.
    author: { _type: 'reference', _ref: `author-${String(Math.floor(Math.sqrt(i % (AUTHORS * AUTHORS)) % AUTHORS)).padStart(3, '0')}` },
    // The last documents only: a filter that few of a type's rows meet.
    ...(i >= POSTS - 40 ? { late: true } : {}),
  })),
].map((document) => ({ ...document, _rev: 'r', _createdAt: NOW, _updatedAt: NOW }) as StoredDocument);

describe(`long reads in short statements (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    await app.services.store.transaction((tx) => tx.documents.putMany(project.id, 'production', documents));
  });

  const explained = async (query: string) =>
    ok(
      await app.request<{ result: unknown; plan: { statements: number } }>('GET', `/api/v1/data/query/production?${new URLSearchParams({ query, explain: 'true' })}`, {
        token: app.admin,
        headers: { 'x-project': project.slug },
      }),
    );
  const unplanned = (query: string) => evaluate(query, { dataset: documents, planner: false });

  it('counts many documents exactly, in several statements on SQLite', async () => {
    for (const query of ['count(*)', 'count(*[_type == "post"])', 'count(*[_type == "page"])', 'count(*[_id > "post-02000"])']) {
      const answer = await explained(query);
      expect([query, answer.result]).toEqual([query, await unplanned(query)]);
      // A count past one slice takes its first slice, where each further slice ends, and the rest.
      if (testEngine === 'sqlite' && (answer.result as number) > 5_000) expect([query, answer.plan.statements > 2]).toEqual([query, true]);
    }
  });

  it('reads windows whose filter matches few of their rows exactly, in several statements on SQLite', async () => {
    // Few rows at the end of the posts' ids match, and no index drives either filter: the type's
    // rows are read (a slice at a time on SQLite). The index answers the shapes' filter exactly
    // (windows and counts in the statement); it narrows the text match, which the evaluator checks
    // on each page.
    for (const sparse of ['*[_type == "post" && defined(late)]', '*[_type == "post" && author._ref match "author-100"]']) {
      for (const query of [`${sparse}[0...3]._id`, `${sparse}[20...23]._id`, `${sparse} | order(_id desc)[0...3]._id`, `${sparse}._id`, `count(${sparse})`]) {
        const answer = await explained(query);
        expect([query, answer.result]).toEqual([query, await unplanned(query)]);
        // In descending order the matches come first, in the first slice.
        if (testEngine === 'sqlite' && !query.includes('desc')) expect([query, answer.plan.statements > 2]).toEqual([query, true]);
      }
      expect(((await explained(`${sparse}._id`)).result as string[]).length).toBeGreaterThan(23);
    }
  });

  it("reads windows in a value's order whose filter matches few of their rows exactly, in several statements on SQLite", async () => {
    // Every document shares one _updatedAt: ties in id order, the matches at the tie's end in
    // both directions. The window walks the _updatedAt value rows (a slice at a time on SQLite)
    // and checks the type and the shape on each.
    const sparse = '*[_type == "post" && defined(late)]';
    for (const query of [`${sparse} | order(_updatedAt desc)[0...3]._id`, `${sparse} | order(_updatedAt asc)[20...23]{_id, late}`, `${sparse} | order(_updatedAt desc)[0...2]`]) {
      const answer = await explained(query);
      expect([query, answer.result]).toEqual([query, await unplanned(query)]);
      if (testEngine === 'sqlite') expect([query, answer.plan.statements > 2]).toEqual([query, true]);
    }
  });

  it('reads windows far down exactly, on SQLite without a statement over every row before them', async () => {
    // A filter no index drives (the type's rows are read, a slice at a time on SQLite), whole
    // documents or ids; ties walked down; and `[]` of the dataset or of a filter of it.
    for (const query of [
      '*[_type == "post" && !defined(late)][6000...6003]',
      '*[_type == "post" && !defined(late)][6000...6003]._id',
      '*[_type == "post"] | order(_updatedAt desc)[6000...6003]._id',
      '*[][9000...9003]._id',
      '*[_type == "post"][][6000...6002]',
      // Past the 40 posts with a value there: they are counted (in slices on SQLite) before the window.
      '*[_type == "post"] | order(late)[100...103]._id',
    ]) {
      const answer = await explained(query);
      expect([query, answer.result]).toEqual([query, await unplanned(query)]);
      expect((answer.result as unknown[]).length).toBeGreaterThan(1);
      if (testEngine === 'sqlite' && query.includes('late')) expect([query, answer.plan.statements > 2]).toEqual([query, true]);
    }
  });

  it('answers a query the index cannot order from all its candidates, a page per statement on SQLite', async () => {
    // Two terms, the last not `_id` ascending: the evaluator orders every post (6,800 of them),
    // read whole (the answer is whole documents).
    const query = '*[_type == "post"] | order(late, _id desc)[0...3]';
    const answer = await explained(query);
    expect(answer.result).toEqual(await unplanned(query));
    // Pages of 1,000 documents.
    if (testEngine === 'sqlite') expect(answer.plan.statements).toBeGreaterThanOrEqual(7);
  });

  it('answers a subquery per document, each in its place', async () => {
    const query = '*[_type == "author"] | order(_id){_id, "posts": count(*[_type == "post" && references(^._id)])}';
    const answer = await explained(query);
    expect(answer.result).toEqual(await unplanned(query));
    expect((answer.result as unknown[]).length).toBe(AUTHORS);
  });
});
