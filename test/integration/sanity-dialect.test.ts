import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, useTestApp } from '../helpers/test-app.ts';
import { createProject, type TestProject } from '../helpers/fixtures.ts';
import { dataClient, ok } from '../helpers/content.ts';
import { testEngine } from '../helpers/engine.ts';

/** Sanity's request and response shapes, by HTTP (the real client is in sanity-client.test.ts). */
describe(`Sanity's API dialect (${testEngine})`, () => {
  const app = useTestApp();
  let project: TestProject;

  beforeAll(async () => {
    project = await createProject(app, app.admin);
    await dataClient(app, app.admin, project.slug).mutate([
      { create: { _id: 'one', _type: 'post', title: 'One' } },
      { create: { _id: 'drafts.one', _type: 'post', title: 'One, edited' } },
      { create: { _id: 'two', _type: 'post', title: 'Two' } },
    ]);
  });

  const get = <T>(path: string, headers: Record<string, string> = { 'x-project': project.slug }) => app.request<T>('GET', path, { token: app.admin, headers });

  it('serves dated and vX paths like v1, with {documents, omitted} for documents', async () => {
    for (const version of ['v2025-02-19', 'vX', 'v2021-06-07']) {
      const response = await get(`/api/${version}/data/doc/production/one`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ documents: [expect.objectContaining({ _id: 'one', title: 'One' })], omitted: [] });
    }
    expect(ok(await get('/api/v1/data/doc/production/one'))).toMatchObject({ _id: 'one' });
    expect(ok(await get('/api/v1/data/doc/production/one', { 'x-sanity-project-id': project.id }))).toEqual({
      documents: [expect.objectContaining({ _id: 'one' })],
      omitted: [],
    });
    expectErrorBody(await get('/api/v2/data/doc/production/one'), 404);
  });

  it('answers several ids with the missing ones omitted', async () => {
    expect(ok(await get<{ documents: { _id: string }[]; omitted: unknown[] }>('/api/v1/data/doc/production/two,nope,one'))).toEqual({
      documents: [expect.objectContaining({ _id: 'two' }), expect.objectContaining({ _id: 'one' })],
      omitted: [{ id: 'nope', reason: 'existence' }],
    });
  });

  it('runs GET queries with form-encoded text and $parameters as JSON', async () => {
    const query = encodeURIComponent('*[_type == $type && title == $title]._id').replace(/%20/g, '+');
    const response = ok(await get<{ result: string[]; query: string }>(`/api/v2025-02-19/data/query/production?query=${query}&%24type=%22post%22&%24title=%22Two%22`));
    expect(response.result).toEqual(['two']);
    expect(response.query).toBe('*[_type == $type && title == $title]._id');
    const withoutQuery = ok(await get<Record<string, unknown>>(`/api/v1/data/query/production?query=count(*)&returnQuery=false&tag=t`));
    expect(withoutQuery).not.toHaveProperty('query');
    expectErrorBody(await get(`/api/v1/data/query/production?query=*[_id==$id]&%24id=not-json`), 400);
  });

  it('applies perspectives: raw, published and drafts', async () => {
    const titles = async (perspective: string) =>
      ok(await get<{ result: unknown }>(`/api/v1/data/query/production?query=${encodeURIComponent('*[_type == "post"] | order(_id) {_id, title}')}&perspective=${perspective}`)).result;
    expect(await titles('raw')).toEqual([
      { _id: 'drafts.one', title: 'One, edited' },
      { _id: 'one', title: 'One' },
      { _id: 'two', title: 'Two' },
    ]);
    expect(await titles('published')).toEqual([
      { _id: 'one', title: 'One' },
      { _id: 'two', title: 'Two' },
    ]);
    expect(await titles('drafts')).toEqual([
      { _id: 'one', title: 'One, edited' },
      { _id: 'two', title: 'Two' },
    ]);
    expectErrorBody(await get('/api/v1/data/query/production?query=*&perspective=not%20a%20layer'), 400);
    expectErrorBody(await get('/api/v1/data/query/production?query=*&perspective=published,drafts'), 400);
  });

  it('takes text patches of up to 100 hunks, and 1,000 in a transaction, in mutations and edit actions', async () => {
    const data = dataClient(app, app.admin, project.slug);
    const text = 'abcdefghij'.repeat(1000);
    ok(await data.mutate([{ create: { _id: 'hunks', _type: 'post', text } }]));
    // Hunks whose text is not where they say (the costly kind: each is searched for nearby).
    const hunks = (count: number) => Array.from({ length: count }, (_, i) => `@@ -${i * 50 + 1},4 +${i * 50 + 1},4 @@\n-zzzz\n+yyyy\n`).join('');
    const patch = (count: number) => ({ patch: { id: 'hunks', diffMatchPatch: { text: hunks(count) } } });
    ok(await data.mutate([patch(100)]));
    expect(expectErrorBody(await data.mutate([patch(101)]), 400).message).toBe(
      'mutations[0].patch.diffMatchPatch["text"] holds 101 hunks; a text patch may hold 100: set the text instead, or send the hunks in several patches',
    );
    ok(await data.mutate(Array.from({ length: 10 }, () => patch(100))));
    const accepted = ok(await data.doc('hunks')).text;
    expect(expectErrorBody(await data.mutate([...Array.from({ length: 10 }, () => patch(100)), patch(1)]), 400).message).toContain('more than 1000 hunks');
    const edit = (count: number) => ({ actionType: 'sanity.action.document.edit', draftId: 'drafts.hunks', publishedId: 'hunks', patch: { diffMatchPatch: { text: hunks(count) } } });
    const act = (actions: unknown[]) => app.request('POST', '/api/v1/data/actions/production', { token: app.admin, headers: { 'x-project': project.slug }, body: { actions } });
    expect(expectErrorBody(await act([edit(101)]), 400).message).toContain('holds 101 hunks');
    expect(expectErrorBody(await act(Array.from({ length: 11 }, () => edit(100))), 400).message).toContain('more than 1000 hunks');
    // The refused ones changed nothing.
    expect(ok(await data.doc('hunks')).text).toBe(accepted);
  });

  it('takes transactionId, visibility, autoGenerateArrayKeys and diffMatchPatch on mutations', async () => {
    const data = dataClient(app, app.admin, project.slug);
    const created = ok(
      await app.request<{ transactionId: string }>('POST', '/api/v1/data/mutate/production?visibility=async&autoGenerateArrayKeys=true', {
        token: app.admin,
        headers: { 'x-project': project.slug },
        body: { transactionId: 'my-tx-1', mutations: [{ create: { _id: 'keyed', _type: 'post', body: [{ text: 'a' }, { _key: 'kept', text: 'b' }], text: 'hello world' } }] },
      }),
    );
    expect(created.transactionId).toBe('my-tx-1');
    const doc = ok(await data.doc('keyed'));
    expect(doc._rev).toBe('my-tx-1');
    const body = doc.body as { _key: string }[];
    expect(body[0]!._key).toMatch(/^[0-9a-f]{12}$/);
    expect(body[1]!._key).toBe('kept');
    ok(await data.mutate([{ patch: { id: 'keyed', diffMatchPatch: { text: '@@ -1,11 +1,11 @@\n hello \n-world\n+there\n' } } }]));
    expect(ok(await data.doc('keyed')).text).toBe('hello there');
    expectErrorBody(await data.mutate([{ patch: { id: 'keyed', diffMatchPatch: { text: 'not a patch' } } }]), 400);
    expectErrorBody(
      await app.request('POST', '/api/v1/data/mutate/production?transactionId=bad%20id', {
        token: app.admin,
        headers: { 'x-project': project.slug },
        body: { mutations: [{ create: { _type: 'x' } }] },
      }),
      400,
    );
  });
});
