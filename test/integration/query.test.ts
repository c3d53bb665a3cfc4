import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createApiToken, createProject, createUser, type TestProject } from '../helpers/fixtures.ts';
import { dataClient } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

interface QueryBody {
  query: string;
  ms: number;
  result: unknown;
}

describe(`GROQ queries over HTTP (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin, ['production', 'staging']);
    await app.request('PUT', `/api/v1/projects/${project.slug}`, {
      token: app.admin,
      body: { locales: { default: 'en', languages: [{ id: 'en', title: 'English' }, { id: 'nb', title: 'Norsk' }] } },
    });
    await dataClient(app, app.admin, project.slug).mutate([
      { create: { _id: 'author-ann', _type: 'author', name: 'Ann' } },
      { create: { _id: 'post-1', _type: 'post', title: { en: 'Hello', nb: 'Hei' }, views: 10, author: { _type: 'reference', _ref: 'author-ann' }, slug: { current: 'hello' } } },
      { create: { _id: 'post-2', _type: 'post', title: { en: 'Bye' }, views: 3, author: { _type: 'reference', _ref: 'author-ann' }, slug: { current: 'bye' } } },
      { create: { _id: 'drafts.post-3', _type: 'post', title: { en: 'Draft' }, views: 0 } },
    ]);
  });

  const query = (body: unknown, options: { token?: string; qs?: string; dataset?: string } = {}) =>
    app.request<QueryBody>('POST', `/api/v1/data/query/${options.dataset ?? 'production'}${options.qs ?? ''}`, {
      token: options.token ?? app.admin,
      headers: { 'x-project': project.slug },
      body,
    });

  it('answers {query, ms, result} for filters, ordering, projections and dereferences', async () => {
    const text = '*[_type == "post" && views > $min] | order(views desc) {_id, "author": author->name, "slug": slug.current}';
    const response = await query({ query: text, params: { min: 1 } });
    expect(response.status).toBe(200);
    expect(response.body.query).toBe(text);
    expect(typeof response.body.ms).toBe('number');
    expect(response.body.result).toEqual([
      { _id: 'post-1', author: 'Ann', slug: 'hello' },
      { _id: 'post-2', author: 'Ann', slug: 'bye' },
    ]);
  });

  it('sees drafts and published documents, counts, and follows references backwards', async () => {
    expect((await query({ query: 'count(*[_type == "post"])' })).body.result).toBe(3);
    expect((await query({ query: '*[_id in path("drafts.**")]._id' })).body.result).toEqual(['drafts.post-3']);
    expect((await query({ query: '*[_type == "author"]{name, "posts": count(*[references(^._id)])}' })).body.result).toEqual([{ name: 'Ann', posts: 2 }]);
    expect((await query({ query: '*[_id == $id][0].views', params: { $id: 'post-2' } })).body.result).toBe(3);
  });

  it('resolves localized fields with ?language=, falling back to the default', async () => {
    const nb = await query({ query: '*[_type == "post" && !(_id in path("drafts.**"))] | order(_id) {_id, title}' }, { qs: '?language=nb' });
    expect(nb.body.result).toEqual([
      { _id: 'post-1', title: 'Hei' },
      { _id: 'post-2', title: 'Bye' },
    ]);
    expectErrorBody(await query({ query: '*' }, { qs: '?language=fr' }), 400);
  });

  it('answers 400 for syntax errors with line, column and position', async () => {
    const error = expectErrorBody(await query({ query: '*[_type == "post"' }), 400);
    expect(error.message).toMatch(/line 1, column \d+ \(position \d+\)/);
    expectErrorBody(await query({ query: '*[_type == ]' }), 400);
    expectErrorBody(await query({ query: 'nosuchfunction(1)' }), 400);
    expectErrorBody(await query({ query: '"unterminated' }), 400);
  });

  it('answers 400 for a missing parameter, a missing query and a wrong-typed body', async () => {
    expect(expectErrorBody(await query({ query: '*[_id == $id]' }), 400).message).toContain('$id');
    expectErrorBody(await query({}), 400);
    expectErrorBody(await query({ query: 42 }), 400);
    expectErrorBody(await query({ query: '*', params: [1] }), 400);
    expectErrorBody(await query({ query: '*', extra: true }), 400);
  });

  it('answers the same query text again with other parameters, and by their values where they shape the query', async () => {
    const byId = '*[_id == $id][0].views';
    expect((await query({ query: byId, params: { id: 'post-1' } })).body.result).toBe(10);
    expect((await query({ query: byId, params: { id: 'post-2' } })).body.result).toBe(3);
    // The same text missing its parameter is still refused, after it was answered.
    expect(expectErrorBody(await query({ query: byId }), 400).message).toContain('$id');
    // `[$p]` is an element access for a number, an attribute access for a string.
    const shaped = '*[_id == "post-1"][0].title[$p]';
    expect((await query({ query: shaped, params: { p: 'en' } })).body.result).toBe('Hello');
    expect((await query({ query: shaped, params: { p: 'nb' } })).body.result).toBe('Hei');
    const list = '["a", "b", "c"][$p]';
    expect((await query({ query: list, params: { p: 1 } })).body.result).toBe('b');
    expect((await query({ query: list, params: { p: 2 } })).body.result).toBe('c');
    expect((await query({ query: list, params: { p: 'x' } })).body.result).toEqual([null, null, null]);
  });

  it('answers 400, not a crash, for deeply nested queries', async () => {
    expectErrorBody(await query({ query: `${'['.repeat(5000)}1${']'.repeat(5000)}` }), 400);
  });

  it('lets viewers and read tokens query; refuses a token scoped to another dataset', async () => {
    const viewer = await createUser(app, app.admin, 'viewer');
    expect((await query({ query: 'count(*)' }, { token: viewer.token })).body.result).toBe(4);
    const read = await createApiToken(app, app.admin, project.slug);
    expect((await query({ query: 'count(*)' }, { token: read.token })).status).toBe(200);
    const staging = await createApiToken(app, app.admin, project.slug, { dataset: 'staging' });
    expectErrorBody(await query({ query: 'count(*)' }, { token: staging.token }), 403);
    expect((await query({ query: 'count(*)' }, { token: staging.token, dataset: 'staging' })).body.result).toBe(0);
    expectErrorBody(await query({ query: '*' }, { dataset: 'unknown' }), 404);
    expectErrorBody(await app.request('POST', '/api/v1/data/query/production', { body: { query: '*' } }), 401);
  });
});
